// Drives a running sandnet's reads with the Canton Network's own TypeScript
// clients (@canton-network/core-ledger-client, core-asyncapi-client) and
// checks every answer against the schemas those clients were generated from
// (core-ledger-client-types' openapi-3.5.1.d.ts). Command submission, and
// the completions of the commands it makes: ledger-commands.mjs.
//
// Environment: SANDNET_URL (http://127.0.0.1:PORT), ADMIN_TOKEN (user
// participant_admin), ALICE_TOKEN (user alice). run.sh sets them.
//
// Each check is MUST (the run fails when it fails) or GAP (a known missing
// feature: reported, does not fail the run). Schema findings are listed at the
// end: "error" ones (a required field missing, a wrong JSON type, an unknown
// union variant) fail the run; "note" ones (null in an optional field, fields
// the schema does not know) do not.

import { LedgerClient, isJsCantonError } from '@canton-network/core-ledger-client'
import { WebSocketClient } from '@canton-network/core-asyncapi-client'
import {
    EventFilterBySetup,
    TransactionFilterBySetup,
} from '@canton-network/core-ledger-client-types'
import { AuthTokenProvider } from '@canton-network/core-wallet-auth'
import { VERBOSE, assert, check, logger, rejection, report, schemaChecker } from './lib.mjs'

const BASE = process.env.SANDNET_URL
const ADMIN_TOKEN = process.env.ADMIN_TOKEN
const ALICE_TOKEN = process.env.ALICE_TOKEN
if (!BASE || !ADMIN_TOKEN || !ALICE_TOKEN) {
    console.error('set SANDNET_URL, ADMIN_TOKEN and ALICE_TOKEN (run.sh does)')
    process.exit(2)
}
if (typeof WebSocket === 'undefined') {
    console.error('no global WebSocket: run with node --experimental-websocket (Node 20)')
    process.exit(2)
}

const AMULET = '#splice-amulet:Splice.Amulet:Amulet'
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding'

// the schemas of core-ledger-client-types' generated OpenAPI types
const checkSchema = schemaChecker('@canton-network/core-ledger-client-types', 'openapi-3.5.1.d.ts')

// ---------------------------------------------------------------- checks
const admin = new LedgerClient({
    baseUrl: new URL(BASE),
    logger,
    accessTokenProvider: AuthTokenProvider.fromToken(ADMIN_TOKEN, logger),
})
const alice = new LedgerClient({
    baseUrl: new URL(BASE),
    logger,
    accessTokenProvider: AuthTokenProvider.fromToken(ALICE_TOKEN, logger),
})

function updates(list, path) {
    assert(Array.isArray(list), `${path}: expected an array, got ${typeof list}`)
    list.forEach((u, j) => checkSchema('JsGetUpdatesResponse', u, `${path}[${j}]`))
    return list
}
const txs = (list) => list.filter((u) => u.update && 'Transaction' in u.update).map((u) => u.update.Transaction.value)
const events = (list) => txs(list).flatMap((t) => t.events)
const created = (list) => events(list).filter((e) => 'CreatedEvent' in e).map((e) => e.CreatedEvent)

function updateFormat(eventFormat, shape = 'TRANSACTION_SHAPE_ACS_DELTA') {
    return { includeTransactions: { eventFormat, transactionShape: shape } }
}

let alicePartyId, bobPartyId, ledgerEnd

await check('MUST', 'LedgerClient.init() reads /v2/version and picks API 3.5', async () => {
    await admin.init()
    assert(admin.getCurrentClientVersion() === '3.5', `picked ${admin.getCurrentClientVersion()}`)
})

await check('MUST', 'GET /v2/version matches GetLedgerApiVersionResponse', async () => {
    const v = await admin.get('/v2/version')
    checkSchema('GetLedgerApiVersionResponse', v)
    assert(typeof v.version === 'string' && v.version.startsWith('3.5'), `version ${v.version}`)
    return `version ${v.version}`
})

await check('MUST', 'GET /v2/state/ledger-end', async () => {
    const r = await admin.get('/v2/state/ledger-end')
    checkSchema('GetLedgerEndResponse', r)
    assert(Number.isInteger(r.offset) && r.offset > 0, `offset ${r.offset}`)
    ledgerEnd = r.offset
    return `offset ${r.offset}`
})

await check('MUST', 'GET /v2/users lists alice, bob, participant_admin', async () => {
    const r = await admin.get('/v2/users')
    checkSchema('ListUsersResponse', r)
    const ids = r.users.map((u) => u.id)
    for (const id of ['alice', 'bob', 'participant_admin']) assert(ids.includes(id), `no ${id} in ${ids}`)
    alicePartyId = r.users.find((u) => u.id === 'alice').primaryParty
    bobPartyId = r.users.find((u) => u.id === 'bob').primaryParty
    assert(alicePartyId?.startsWith('alice::'), `alice's party ${alicePartyId}`)
    return `${ids.length} users`
})

await check('MUST', 'GET /v2/users/{user-id}, /v2/authenticated-user, rights', async () => {
    const u = await admin.get('/v2/users/{user-id}', { path: { 'user-id': 'alice' } })
    checkSchema('GetUserResponse', u)
    assert(u.user.id === 'alice', JSON.stringify(u))
    const me = await alice.get('/v2/authenticated-user')
    checkSchema('GetUserResponse', me)
    assert(me.user.id === 'alice', JSON.stringify(me))
    const r = await admin.get('/v2/users/{user-id}/rights', { path: { 'user-id': 'alice' } })
    checkSchema('ListUserRightsResponse', r)
    assert(r.rights.some((x) => x.kind?.CanActAs?.value?.party === alicePartyId), JSON.stringify(r))
})

await check('MUST', 'LedgerClient.createUser + grantRights on a new user', async () => {
    const id = `client-check-${Date.now()}`
    const u = await admin.createUser(id, alicePartyId)
    checkSchema('User', u)
    assert(u.id === id, JSON.stringify(u))
    const g = await admin.grantRights(id, { readAs: [alicePartyId] })
    checkSchema('GrantUserRightsResponse', g)
    assert(g.newlyGrantedRights?.length === 1, JSON.stringify(g))
})

await check('MUST', 'unknown user: rejects with a JsCantonError USER_NOT_FOUND', async () => {
    const e = await rejection(admin.get('/v2/users/{user-id}', { path: { 'user-id': 'nobody-here' } }))
    checkSchema('JsCantonError', e)
    assert(isJsCantonError(e), `not a JsCantonError: ${JSON.stringify(e)}`)
    assert(e.code === 'USER_NOT_FOUND', e.code)
    return `${e.code}: ${e.cause}`
})

// ---- POST /v2/updates and /v2/updates/flats
for (const path of ['/v2/updates', '/v2/updates/flats']) {
    await check('MUST', `${path} bounded, filtersByParty alice, Amulet template (EventFilterBySetup)`, async () => {
        const eventFormat = EventFilterBySetup({ templateIds: AMULET, partyId: alicePartyId, verbose: true })
        const list = updates(
            await alice.post(path, { beginExclusive: 0, endInclusive: ledgerEnd, updateFormat: updateFormat(eventFormat) }),
            path,
        )
        const c = created(list)
        assert(c.length > 0, 'no Amulet created for alice')
        for (const ev of c) {
            assert(ev.templateId.endsWith(':Splice.Amulet:Amulet'), ev.templateId)
            assert(ev.createArgument?.owner === alicePartyId, JSON.stringify(ev.createArgument))
            assert(typeof ev.createdEventBlob === 'string' && ev.createdEventBlob.length > 0, 'no createdEventBlob')
        }
        assert(txs(list).every((t) => t.offset <= ledgerEnd), 'offset past endInclusive')
        return `${list.length} updates, ${c.length} Amulet creates`
    })

    await check('MUST', `${path} bounded, filtersForAnyParty wildcard (admin, CanReadAsAnyParty)`, async () => {
        const eventFormat = {
            filtersByParty: {},
            filtersForAnyParty: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] },
            verbose: false,
        }
        const list = updates(
            await admin.post(path, { beginExclusive: 0, endInclusive: ledgerEnd, updateFormat: updateFormat(eventFormat) }),
            path,
        )
        assert(txs(list).length > 0, 'no transactions')
        const owners = new Set(created(list).map((e) => e.createArgument?.owner).filter(Boolean))
        assert(owners.has(alicePartyId) && owners.has(bobPartyId), `owners ${[...owners]}`)
        return `${list.length} updates`
    })

    await check('MUST', `${path} Holding interface filter with view (EventFilterBySetup interfaceIds)`, async () => {
        const eventFormat = EventFilterBySetup({ interfaceIds: HOLDING, partyId: alicePartyId })
        const list = updates(
            await alice.post(path, { beginExclusive: 0, endInclusive: ledgerEnd, updateFormat: updateFormat(eventFormat) }),
            path,
        )
        const c = created(list)
        assert(c.length > 0, 'no Holding creates')
        for (const ev of c) {
            const view = ev.interfaceViews?.find((v) => v.interfaceId.endsWith(':Splice.Api.Token.HoldingV1:Holding'))
            assert(view, `no Holding view in ${JSON.stringify(ev.interfaceViews)}`)
            assert(view.viewStatus?.code === 0, JSON.stringify(view.viewStatus))
            assert(view.viewValue?.owner === alicePartyId, JSON.stringify(view.viewValue))
            assert(typeof view.viewValue?.amount === 'string', JSON.stringify(view.viewValue))
            assert(view.viewValue?.instrumentId?.id === 'Amulet', JSON.stringify(view.viewValue))
        }
        return `${c.length} Holding creates with views`
    })

    await check('MUST', `${path} open-ended (no endInclusive) returns after stream_idle_timeout_ms`, async () => {
        const eventFormat = EventFilterBySetup({ templateIds: AMULET, partyId: alicePartyId })
        const t0 = Date.now()
        const list = updates(
            await alice.post(path, { beginExclusive: 0, updateFormat: updateFormat(eventFormat) }, { query: { stream_idle_timeout_ms: 300 } }),
            path,
        )
        assert(created(list).length > 0, 'no Amulet creates')
        assert(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`)
        return `${list.length} updates`
    })

    await check('MUST', `${path} ?limit=2 returns at most 2`, async () => {
        const eventFormat = EventFilterBySetup({ templateIds: [], includeWildcard: true, partyId: alicePartyId })
        const list = updates(
            await alice.post(path, { beginExclusive: 0, endInclusive: ledgerEnd, updateFormat: updateFormat(eventFormat) }, { query: { limit: 2 } }),
            path,
        )
        assert(list.length === 2, `${list.length} elements`)
    })

    await check('MUST', `${path} legacy filter+verbose request (what WebSocketClient sends)`, async () => {
        const filter = TransactionFilterBySetup({ templateIds: [AMULET], partyId: alicePartyId })
        const list = updates(await alice.post(path, { beginExclusive: 0, endInclusive: ledgerEnd, filter, verbose: true }), path)
        assert(created(list).length > 0, 'no Amulet creates')
    })
}

await check('MUST', '/v2/updates LEDGER_EFFECTS shape has ExercisedEvents', async () => {
    const eventFormat = EventFilterBySetup({ templateIds: [], includeWildcard: true, partyId: alicePartyId })
    const list = updates(
        await alice.post('/v2/updates', {
            beginExclusive: 0,
            endInclusive: ledgerEnd,
            updateFormat: updateFormat(eventFormat, 'TRANSACTION_SHAPE_LEDGER_EFFECTS'),
        }),
        '/v2/updates',
    )
    const ex = events(list).filter((e) => 'ExercisedEvent' in e)
    assert(ex.length > 0, 'no ExercisedEvent')
    return `${ex.length} exercised events`
})

await check('MUST', 'alice reading bob\'s party: rejects with a JsCantonError (PERMISSION_DENIED)', async () => {
    const eventFormat = EventFilterBySetup({ templateIds: AMULET, partyId: bobPartyId })
    const e = await rejection(alice.post('/v2/updates', { beginExclusive: 0, endInclusive: ledgerEnd, updateFormat: updateFormat(eventFormat) }))
    checkSchema('JsCantonError', e)
    assert(isJsCantonError(e), `not a JsCantonError: ${JSON.stringify(e)}`)
    return `${e.code} (grpc ${e.grpcCodeValue})`
})

await check('MUST', 'endInclusive past the ledger end: rejects with a JsCantonError', async () => {
    const eventFormat = EventFilterBySetup({ templateIds: AMULET, partyId: alicePartyId })
    const e = await rejection(alice.post('/v2/updates', { beginExclusive: 0, endInclusive: ledgerEnd + 1000, updateFormat: updateFormat(eventFormat) }))
    checkSchema('JsCantonError', e)
    assert(isJsCantonError(e), `not a JsCantonError: ${JSON.stringify(e)}`)
    return `${e.code}`
})

await check('MUST', 'TransactionFilterBySetup({isMasterUser, templateIds}) (client bug: builds an InterfaceFilter) is answered with a JsCantonError', async () => {
    // core-ledger-client-types 1.8.0 buildFilter passes (templateIds, interfaceIds)
    // to filtersForAnyParty(interfaceNames, templateIds): template ids become interface ids.
    const filter = TransactionFilterBySetup({ templateIds: [AMULET], isMasterUser: true })
    assert(filter.filtersForAnyParty.cumulative[0].identifierFilter.InterfaceFilter, JSON.stringify(filter))
    const e = await rejection(admin.post('/v2/updates', { beginExclusive: 0, endInclusive: ledgerEnd, filter, verbose: false }))
    assert(isJsCantonError(e), `not a JsCantonError: ${JSON.stringify(e)}`)
    return `${e.code}: ${e.cause.slice(0, 100)}`
})

// ---- websockets (core-asyncapi-client WebSocketClient)
const wsBase = BASE.replace(/^http/, 'ws').replace(/\/$/, '')
function wsClient(token) {
    return quiet(new WebSocketClient({ baseUrl: wsBase, accessTokenProvider: AuthTokenProvider.fromToken(token, logger), version: '3.5' }))
}
// WebSocketClient takes no logger: it makes its own (pino, level info, to
// stdout) and logs every stream's opening and closing. Silent unless VERBOSE.
function quiet(c) {
    if (!VERBOSE && c.logger) c.logger.level = 'silent'
    return c
}
async function collect(iter, { max = Infinity, ms = 5000 } = {}) {
    const out = []
    const timer = new Promise((r) => setTimeout(() => r('timeout'), ms))
    const run = (async () => {
        for await (const m of iter) {
            out.push(m)
            if (out.length >= max) break
        }
        return 'done'
    })()
    const how = await Promise.race([run, timer])
    if (how === 'timeout') await iter.return?.()
    return { out, how }
}

await check('MUST', 'WebSocketClient.streamUpdates bounded (templateIds, partyId alice) ends by itself', async () => {
    const iter = wsClient(ALICE_TOKEN).streamUpdates({ beginExclusive: 0, endInclusive: ledgerEnd, templateIds: [AMULET], partyId: alicePartyId })
    const { out, how } = await collect(iter, { ms: 5000 })
    assert(how === 'done', 'stream did not close after endInclusive')
    const errs = out.filter((m) => !('update' in m))
    assert(errs.length === 0, `error messages: ${JSON.stringify(errs).slice(0, 300)}`)
    updates(out, 'ws /v2/updates')
    assert(created(out).length > 0, `no Amulet creates in ${out.length} messages`)
    return `${out.length} messages`
})

await check('MUST', 'WebSocketClient.streamUpdates open-ended (interfaceIds Holding) yields then can be closed', async () => {
    const iter = wsClient(ALICE_TOKEN).streamUpdates({ beginExclusive: 0, interfaceIds: [HOLDING], partyId: alicePartyId })
    const { out } = await collect(iter, { max: 3, ms: 3000 })
    updates(out.filter((m) => 'update' in m), 'ws /v2/updates')
    assert(out.length > 0 && out.every((m) => 'update' in m), `messages: ${JSON.stringify(out).slice(0, 300)}`)
    const views = created(out).flatMap((e) => e.interfaceViews ?? [])
    assert(views.length > 0, 'no interface views')
    return `${out.length} messages`
})

await check('MUST', 'WebSocketClient.streamUpdates for bob\'s party with alice\'s token: error message, then close', async () => {
    const iter = wsClient(ALICE_TOKEN).streamUpdates({ beginExclusive: 0, endInclusive: ledgerEnd, templateIds: [AMULET], partyId: bobPartyId })
    const { out, how } = await collect(iter, { ms: 3000 })
    assert(how === 'done', 'stream stayed open')
    assert(out.length === 1 && isJsCantonError(out[0]), `messages: ${JSON.stringify(out).slice(0, 300)}`)
    checkSchema('JsCantonError', out[0])
    return `${out[0].code}`
})

await check('MUST', 'raw WebSocket /v2/updates/flats with updateFormat (jwt.token subprotocol)', async () => {
    const ws = new WebSocket(`${wsBase}/v2/updates/flats`, [`jwt.token.${ALICE_TOKEN}`, 'daml.ws.auth'])
    const out = []
    const closed = new Promise((resolve, reject) => {
        ws.onopen = () =>
            ws.send(JSON.stringify({
                beginExclusive: 0,
                endInclusive: ledgerEnd,
                updateFormat: updateFormat(EventFilterBySetup({ templateIds: AMULET, partyId: alicePartyId })),
            }))
        ws.onmessage = (ev) => out.push(JSON.parse(ev.data))
        ws.onerror = () => reject(new Error('websocket error'))
        ws.onclose = (ev) => resolve(ev)
        setTimeout(() => reject(new Error('no close within 5 s')), 5000)
    })
    const ev = await closed
    assert(ws.protocol === 'daml.ws.auth', `subprotocol ${ws.protocol}`)
    updates(out, 'ws /v2/updates/flats')
    assert(created(out).length > 0, `messages: ${JSON.stringify(out).slice(0, 300)}`)
    return `${out.length} messages, close ${ev.code}`
})

await check('MUST', 'bad token: REST rejects with a 401 JsCantonError (grpc 16)', async () => {
    const bad = new LedgerClient({ baseUrl: new URL(BASE), logger, accessTokenProvider: { getAccessToken: async () => 'garbage', getAuthContext: async () => ({}) } })
    const e = await rejection(bad.post('/v2/updates', { beginExclusive: 0, endInclusive: 1, filter: TransactionFilterBySetup({ templateIds: AMULET, partyId: 'x::1' }) }))
    checkSchema('JsCantonError', e)
    assert(isJsCantonError(e) && e.grpcCodeValue === 16, JSON.stringify(e))
})

await check('MUST', 'bad token: WebSocketClient.streamUpdates throws', async () => {
    const c = quiet(new WebSocketClient({ baseUrl: wsBase, version: '3.5', accessTokenProvider: { getAccessToken: async () => 'garbage', getAuthContext: async () => ({}) } }))
    const iter = c.streamUpdates({ beginExclusive: 0, endInclusive: 1, templateIds: [AMULET], partyId: alicePartyId })
    let threw = null
    const { out } = await collect(iter, { ms: 3000 }).catch((e) => ((threw = e), { out: [] }))
    assert(threw || (out.length === 1 && isJsCantonError(out[0])), `no error: ${JSON.stringify(out).slice(0, 200)}`)
    return threw ? `threw: ${threw.message}` : `error message ${out[0].grpcCodeValue}`
})

await check('MUST', 'LedgerClient on an SV participant (baseUrl .../sv/1)', async () => {
    const sv = new LedgerClient({ baseUrl: new URL(BASE.replace(/\/$/, '') + '/sv/1'), logger, accessTokenProvider: AuthTokenProvider.fromToken(ADMIN_TOKEN, logger) })
    await sv.init()
    const end = await sv.get('/v2/state/ledger-end')
    checkSchema('GetLedgerEndResponse', end)
    const list = updates(await sv.post('/v2/updates', {
        beginExclusive: 0,
        endInclusive: end.offset,
        // the SV's own party is a stakeholder of nothing seeded: read any party (DSO's contracts)
        updateFormat: updateFormat({ filtersForAnyParty: { cumulative: [{ identifierFilter: { WildcardFilter: { value: {} } } }] } }),
    }), '/sv/1/v2/updates')
    assert(txs(list).length > 0, 'no transactions')
    return `ledger end ${end.offset}, ${list.length} updates`
})

await check('MUST', 'WebSocketClient.streamUpdates open-ended delivers a new Amulet live (admin API tap)', async () => {
    const iter = wsClient(ALICE_TOKEN).streamUpdates({ beginExclusive: ledgerEnd, templateIds: [AMULET], partyId: alicePartyId })
    const first = iter.next() // opens the socket
    await new Promise((r) => setTimeout(r, 300))
    const tap = await fetch(`${BASE.replace(/\/$/, '')}/api/sandnet/v0/tap`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'alice', amount: '12.5' }),
    })
    assert(tap.ok, `tap: ${tap.status} ${await tap.text()}`)
    const got = await Promise.race([first, new Promise((r) => setTimeout(() => r('timeout'), 5000))])
    await iter.return?.()
    assert(got !== 'timeout', 'no update within 5 s of the tap')
    const msg = got.value
    updates([msg], 'ws /v2/updates live')
    const c = created([msg])
    assert(c.length === 1 && c[0].createArgument?.amount?.initialAmount?.startsWith('12.5'), JSON.stringify(msg).slice(0, 300))
    return `offset ${c[0].offset}`
})

await check('MUST', 'POST /v2/updates from the old ledger end sees the tap; ledger end moved', async () => {
    const end = (await alice.get('/v2/state/ledger-end')).offset
    assert(end > ledgerEnd, `ledger end ${end} not past ${ledgerEnd}`)
    const list = updates(await alice.post('/v2/updates', {
        beginExclusive: ledgerEnd,
        endInclusive: end,
        updateFormat: updateFormat(EventFilterBySetup({ templateIds: AMULET, partyId: alicePartyId })),
    }), '/v2/updates')
    assert(created(list).some((e) => e.createArgument?.amount?.initialAmount?.startsWith('12.5')), 'tap not seen')
    return `ledger end ${ledgerEnd} -> ${end}`
})

// ---- what the client's helpers use beyond the reads above
await check('MUST', 'LedgerClient.checkIfPartyExists(alice) (GET /v2/parties/{party})', async () => {
    const r = await admin.get('/v2/parties/{party}', { path: { party: alicePartyId } })
    checkSchema('GetPartiesResponse', r)
    const ok = await admin.checkIfPartyExists(alicePartyId)
    assert(ok === true, 'returned false')
})
await check('MUST', 'POST /v2/state/active-contracts (ACS snapshot, used by the wallet SDK for holdings)', async () => {
    const r = await alice.post('/v2/state/active-contracts', {
        activeAtOffset: ledgerEnd,
        eventFormat: EventFilterBySetup({ interfaceIds: HOLDING, partyId: alicePartyId }),
    })
    assert(Array.isArray(r) && r.length > 0, JSON.stringify(r).slice(0, 200))
    r.forEach((x, j) => checkSchema('JsGetActiveContractsResponse', x, `/v2/state/active-contracts[${j}]`))
    return `${r.length} active Holdings`
})
await check('MUST', 'awaitCompletion / POST /v2/commands/completions', async () => {
    const r = await alice.post('/v2/commands/completions', { userId: 'alice', parties: [alicePartyId], beginExclusive: 0 }, { query: { limit: '10', stream_idle_timeout_ms: '300' } })
    assert(Array.isArray(r), JSON.stringify(r).slice(0, 200))
    r.forEach((x, j) => checkSchema('CompletionStreamResponse', x, `/v2/commands/completions[${j}]`))
    // The seeding's taps for alice were her user's commands.
    assert(r.some((x) => x.completionResponse?.Completion?.value?.status?.code === 0), 'no accepted completion')
    return `${r.length} elements`
})
await check('MUST', 'POST /v2/updates/trees (deprecated, still in the 3.5 client)', async () => {
    const r = await alice.post('/v2/updates/trees', { beginExclusive: 0, endInclusive: ledgerEnd, filter: TransactionFilterBySetup({ templateIds: [], includeWildcard: true, partyId: alicePartyId }), verbose: false })
    assert(Array.isArray(r), JSON.stringify(r).slice(0, 200))
})
await check('MUST', 'LedgerClient.getSynchronizerId() (GET /v2/state/connected-synchronizers)', async () => {
    const id = await admin.getSynchronizerId()
    assert(typeof id === 'string' && id.length > 0, String(id))
    return id
})

// ---------------------------------------------------------------- report
report('response vs core-ledger-client-types openapi-3.5.1.d.ts')
