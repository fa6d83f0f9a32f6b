// What the client scripts share: the
// check runner (check, assert, report), the schema findings (finding, show,
// knownSchemaGap),
// the checker over a generated .d.ts's schemas (schemaChecker), the silent
// client logger and token minting.
//
// Each check is MUST (the run fails when it fails) or GAP (reported, does not
// fail the run). Schema findings are listed by report(): "error" ones (a
// required field missing, a wrong JSON type, no union variant matching) fail
// the run; "note" ones (null in an optional field, fields the schema does not
// know) and "gap" ones (errors a script names as known gaps,
// knownSchemaGap) do not. VERBOSE=1 prints client warnings and failed checks' stacks.

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export const VERBOSE = !!process.env.VERBOSE

// ---------------------------------------------------------------- findings
// key -> {level, msg, count, example}; one map for all of a script's checkers
let findings = new Map()
export function finding(level, key, msg, example) {
    const f = findings.get(key)
    if (f) f.count++
    else if (level === 'error' && knownGaps.has(key)) findings.set(key, { level: 'gap', msg: `${msg} — known gap: ${knownGaps.get(key)}`, count: 1, example })
    else findings.set(key, { level, msg, count: 1, example })
}

// Schema errors that are known gaps (a difference of sandnet's, said with
// where it lies), by finding key (e.g. 'ProtoAny.valueDecoded:type'):
// listed as "gap", they fail nothing, as a failed GAP check does.
const knownGaps = new Map()
export function knownSchemaGap(key, why) {
    knownGaps.set(key, why)
}
// v as JSON, cut to n characters; BigInts (protobuf-es int64s, as in
// the client's decoded google.rpc details) as strings
export const show = (v, n = 60) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))?.slice(0, n)

// ---------------------------------------------------------------- schemas
// Parse components.schemas of a generated .d.ts (pkg's
// generated-clients/fileName) into
// { name: {kind:'object', props:{p:{type, optional}}, map?, base?} |
//         {kind:'union', variants:{Key:type}} | {kind:'alias', type} }.
// Types stay strings: 'string', 'number', 'boolean', "'a' | 'b'",
// components['schemas']['X'], T[], A | B, T | null, Record<string, never>
// (any object) and map<T> (an inline { [key: string]: T }; other inline
// objects are 'unknown').
export function loadSchemas(pkg, fileName) {
    const require = createRequire(import.meta.url)
    const file = join(dirname(require.resolve(pkg)), 'generated-clients', fileName)
    const lines = readFileSync(file, 'utf8').split('\n')
    let i = lines.findIndex((l) => l === 'export interface components {')
    while (lines[i] !== '    schemas: {') i++
    i++
    const schemas = {}
    let cur = null
    let inline = null // { prop, optional, map } while inside an inline object
    for (; i < lines.length; i++) {
        const l = lines[i]
        if (l === '    };') break
        if (/^\s*(\/\*\*|\*)/.test(l)) continue
        let m
        if (inline) {
            if (l === ' '.repeat(12) + '};') {
                cur.props[inline.prop] = { type: inline.map ? `map<${inline.map}>` : 'unknown', optional: inline.optional }
                inline = null
            } else if ((m = /^ {16}\[key: string\]: (.*);$/.exec(l))) inline.map = m[1]
            continue
        }
        if ((m = /^ {8}([A-Za-z0-9_]+): (.*)$/.exec(l))) {
            const [, name, rest] = m
            if (rest === '{') cur = schemas[name] = { kind: 'object', props: {} }
            else if ((m = /^(components\['schemas'\]\['[A-Za-z0-9_]+'\]) & \{$/.exec(rest))) {
                cur = schemas[name] = { kind: 'object', props: {}, base: m[1] }
            } else {
                schemas[name] = { kind: 'alias', type: rest.replace(/;$/, '') }
                cur = null
            }
            continue
        }
        // { A: ... } | { B: ... }: a tagged union, one key per variant
        if (/^ {8}} \| {$/.test(l)) {
            if (cur.kind === 'object') {
                const [[k, v]] = Object.entries(cur.props)
                cur.kind = 'union'
                cur.variants = { [k]: v.type }
                delete cur.props
            }
            continue
        }
        if (/^ {8}};$/.test(l)) {
            cur = null
            continue
        }
        if (cur && (m = /^ {12}\[key: string\]: (.*);$/.exec(l))) {
            cur.map = m[1]
            continue
        }
        if (cur && (m = /^ {12}'?([A-Za-z0-9_-]+)'?(\?)?: (.*)$/.exec(l))) {
            if (m[3] === '{') {
                inline = { prop: m[1], optional: !!m[2], map: null }
                continue
            }
            const type = m[3].replace(/;$/, '')
            if (cur.kind === 'union') cur.variants[m[1]] = type
            else cur.props[m[1]] = { type, optional: !!m[2] }
        }
    }
    return schemas
}

// the alternatives of a union type, split outside parentheses:
// ('a' | 'b')[] is one array type
function alternatives(type) {
    const alts = []
    let depth = 0, start = 0
    for (let j = 0; j < type.length; j++) {
        const c = type[j]
        if (c === '(') depth++
        else if (c === ')') depth--
        else if (depth === 0 && type.startsWith(' | ', j)) {
            alts.push(type.slice(start, j))
            start = j + 3
        }
    }
    alts.push(type.slice(start))
    return alts
}

// A checker over one generated file's schemas: checkSchema(name, value,
// path?) records findings. With a label, schema names in findings are
// prefixed with it (`vi:ErrorResponse`), for scripts checking against several
// files.
export function schemaChecker(pkg, fileName, label) {
    const SCHEMAS = loadSchemas(pkg, fileName)
    if (Object.keys(SCHEMAS).length === 0) {
        console.error(`no schemas parsed from ${fileName}`)
        process.exit(2)
    }

    function checkType(type, v, path, ctx) {
        type = type.trim()
        if (type === 'unknown') return
        const alts = alternatives(type)
        if (alts.length > 1) {
            if (alts.every((a) => a.startsWith("'"))) {
                const allowed = alts.map((s) => s.replace(/^'|'$/g, ''))
                if (!allowed.includes(v)) finding('error', `${ctx}:enum`, `${ctx}: ${show(v)} is not one of ${allowed.join(', ')}`, path)
                return
            }
            const rest = alts.filter((a) => a !== 'null')
            if (rest.length < alts.length && v === null) return
            if (rest.length === 1) return checkType(rest[0], v, path, ctx)
            // untagged oneOf: the first variant that matches without errors wins
            const outer = findings
            const tries = rest.map((alt) => {
                findings = new Map()
                checkType(alt, v, path, ctx)
                const f = findings
                const errors = [...f.values()].filter((x) => x.level === 'error').length
                return { alt, f, errors, notes: f.size - errors }
            })
            findings = outer
            // none matches: report the closest (fewest unknown fields, then fewest errors)
            const best = tries.find((t) => t.errors === 0) ??
                tries.reduce((a, b) => (b.notes < a.notes || (b.notes === a.notes && b.errors < a.errors) ? b : a))
            if (best.errors > 0) {
                finding('error', `${ctx}:oneof`, `${ctx}: matches none of ${rest.map((a) => a.replace(/components\['schemas'\]\['([^']+)'\]/, '$1')).join(' | ')}`, path)
            }
            for (const [k, x] of best.f) {
                const f = findings.get(k)
                if (f) f.count += x.count
                else findings.set(k, x)
            }
            return
        }
        if (type.endsWith('[]')) {
            if (!Array.isArray(v)) {
                finding('error', `${ctx}:notarray`, `${ctx}: expected array, got ${show(v)}`, path)
                return
            }
            v.forEach((x, j) => checkType(type.slice(0, -2), x, `${path}[${j}]`, ctx + '[]'))
            return
        }
        let m
        if ((m = /^components\['schemas'\]\['([^']+)'\]$/.exec(type))) return checkSchema(m[1], v, path)
        if ((m = /^map<(.*)>$/.exec(type)) || type === 'Record<string, never>') {
            if (v === null || typeof v !== 'object' || Array.isArray(v)) {
                finding('error', `${ctx}:notobject`, `${ctx}: expected object, got ${show(v)}`, path)
                return
            }
            if (m) for (const [k, x] of Object.entries(v)) checkType(m[1], x, `${path}[${k}]`, `${ctx}[*]`)
            return
        }
        if (type === 'string' || type === 'number' || type === 'boolean') {
            if (typeof v !== type) finding('error', `${ctx}:type`, `${ctx}: expected ${type}, got ${show(v)}`, path)
            return
        }
        if (type.startsWith("'")) {
            if (v !== type.slice(1, -1)) finding('error', `${ctx}:enum`, `${ctx}: ${show(v)} is not ${type}`, path)
            return
        }
        // anything else (e.g. a parenthesised type): not checked
    }

    // the properties of an object schema, its allOf base's included
    function propsOf(s) {
        if (!s.base) return s.props
        const base = SCHEMAS[/\['([^']+)'\]$/.exec(s.base)[1]]
        return { ...propsOf(base), ...s.props }
    }

    function checkSchema(name, v, path = name) {
        const s = SCHEMAS[name]
        const sname = label ? `${label}:${name}` : name
        if (!s) return finding('note', `schema:${sname}`, `schema ${name} not found in ${fileName}`, path)
        if (s.kind === 'alias') return checkType(s.type, v, path, sname)
        if (v === null || typeof v !== 'object' || Array.isArray(v)) {
            return finding('error', `${sname}:notobject`, `${sname}: expected object, got ${show(v, 80)}`, path)
        }
        if (s.kind === 'union') {
            const keys = Object.keys(v)
            if (keys.length !== 1 || !(keys[0] in s.variants)) {
                return finding('error', `${sname}:variant:${keys.join(',')}`, `${sname}: expected exactly one of {${Object.keys(s.variants).join(', ')}}, got keys {${keys.join(', ')}}`, path)
            }
            return checkType(s.variants[keys[0]], v[keys[0]], `${path}.${keys[0]}`, `${sname}.${keys[0]}`)
        }
        if (s.map) {
            for (const [k, x] of Object.entries(v)) checkType(s.map, x, `${path}[${k}]`, `${sname}[*]`)
            return
        }
        const props = propsOf(s)
        for (const [p, { type, optional }] of Object.entries(props)) {
            const ctx = `${sname}.${p}`
            if (!(p in v)) {
                if (!optional) finding('error', `${ctx}:missing`, `${ctx} is required but absent`, path)
                continue
            }
            if (v[p] === null && !alternatives(type).includes('null')) {
                finding(optional ? 'note' : 'error', `${ctx}:null`, `${ctx} is null (schema: ${optional ? 'optional' : 'required'} ${type}, not nullable)`, path)
                continue
            }
            checkType(type, v[p], `${path}.${p}`, ctx)
        }
        for (const p of Object.keys(v)) {
            if (!(p in props)) finding('note', `${sname}.${p}:extra`, `${sname}.${p} is not in the client's schema`, path)
        }
    }
    return checkSchema
}

// ---------------------------------------------------------------- checks
const results = []
export async function check(level, name, fn) {
    const t0 = Date.now()
    try {
        const detail = await fn()
        results.push({ level, name, ok: true })
        console.log(`ok    ${level.padEnd(4)} ${name}${detail ? ` — ${detail}` : ''} (${Date.now() - t0} ms)`)
    } catch (e) {
        results.push({ level, name, ok: false })
        const msg = e instanceof Error ? e.message : JSON.stringify(e)
        console.log(`FAIL  ${level.padEnd(4)} ${name} — ${msg}`)
        if (VERBOSE && e instanceof Error) console.log(e.stack)
    }
}
export function assert(cond, msg) {
    if (!cond) throw new Error(msg)
}

// Prints the schema findings (what: what the responses were checked against)
// and the summary, and exits: 1 when a MUST check failed or a finding is an
// error.
export function report(what) {
    console.log(`\nschema findings (${what}):`)
    const rank = { error: 0, gap: 1, note: 2 }
    const sorted = [...findings.values()].sort((a, b) => rank[a.level] - rank[b.level])
    if (sorted.length === 0) console.log('  none')
    for (const f of sorted) console.log(`  ${f.level.padEnd(5)} ${f.msg}  (${f.count}×, e.g. at ${f.example})`)

    const mustFailed = results.filter((r) => r.level === 'MUST' && !r.ok).length
    const gapFailed = results.filter((r) => r.level === 'GAP' && !r.ok).length
    const schemaErrors = sorted.filter((f) => f.level === 'error').length
    const schemaGaps = sorted.filter((f) => f.level === 'gap').length
    const passed = results.filter((r) => r.ok).length
    // Nothing is skipped: every check ran. A failed GAP check is a known
    // difference from upstream, reported as a failure that does not fail
    // the run.
    console.log(`\n${results.length} checks: ${passed} passed, ${mustFailed} MUST failed, ${gapFailed} GAP failed (known gaps: they do not fail the run); ${schemaErrors} schema errors` +
        (schemaGaps ? `, ${schemaGaps} known schema gaps` : ''))
    process.exit(mustFailed > 0 || schemaErrors > 0 ? 1 : 0)
}

// ---------------------------------------------------------------- clients
// the logger the clients take: silent unless VERBOSE
export const logger = {
    child: () => logger,
    debug() {},
    info() {},
    trace() {},
    warn: (...a) => VERBOSE && console.log('  [client warn]', ...a),
    error: (...a) => VERBOSE && console.log('  [client error]', ...a),
}

// an access token provider sending no token (no Authorization header)
export const noAuth = { getAccessToken: async () => '', getAuthContext: async () => ({}) }

// a token for user, minted by the sandnet binary bin with the server's secret
// in dataDir
export function mintToken(bin, dataDir, user) {
    return execFileSync(bin, ['token', '--data-dir', dataDir, '--user', user], { encoding: 'utf8' }).trim()
}

// the error a client call rejected with, or a failure if it resolved
export async function rejection(p) {
    try {
        const v = await p
        throw new Error(`expected an error, got ${show(v, 200)}`)
    } catch (e) {
        if (e instanceof Error && e.message.startsWith('expected an error')) throw e
        return e
    }
}
