// Drives a running sandnet's Scan with the Splice TypeScript client
// (@canton-network/core-splice-client's ScanClient) and checks every answer
// against the schemas that client was generated from (its
// generated-clients/scan.d.ts, Splice's scan.yaml in openapi-typescript form).
//
// Environment: SANDNET_URL (http://127.0.0.1:PORT); the Scan is at
// SANDNET_URL/api/scan and needs no auth. run.sh sets it.
//
// Calls go through ScanClient's own get/post (openapi-fetch, typed by the
// client's paths) and its helpers (getAmuletRules, getOpenMiningRounds, ...).
// Endpoints the client's paths lack are called with fetch and marked
// "[fetch: not in the client]". ScanClient rejects with the error body alone
// ({error}), so the error checks read the status through the same
// openapi-fetch instance the client wraps (scan.client, private in the .d.ts).
//
// Each check is MUST (the run fails when it fails) or GAP (reported, does not
// fail the run). Schema findings are listed at the end: "error" ones (a
// required field missing, a wrong JSON type, no union variant matching) fail
// the run; "note" ones (null in an optional field, fields the schema does not
// know) do not.

import { ScanClient } from '@canton-network/core-splice-client'
import { assert, check, logger, noAuth, rejection, report, schemaChecker, show } from './lib.mjs'

const BASE = process.env.SANDNET_URL
if (!BASE) {
    console.error('set SANDNET_URL (run.sh does)')
    process.exit(2)
}
const SCAN = BASE.replace(/\/$/, '') + '/api/scan'

// the schemas of the client's generated scan.d.ts
const checkSchema = schemaChecker('@canton-network/core-splice-client', 'scan.d.ts')

// ---------------------------------------------------------------- checks
// the Scan needs no auth: no token, so the client sends no Authorization
const scan = new ScanClient(new URL(SCAN), logger, noAuth)

// the same call through the openapi-fetch client ScanClient wraps, for the
// HTTP status ScanClient's get/post drop
async function raw(method, path, { body, params } = {}) {
    const r = await scan.client[method](path, { body, params })
    return { status: r.response.status, data: r.data, error: r.error }
}

// an endpoint the client's paths lack
async function fetchJson(method, path, body) {
    const r = await fetch(SCAN + path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await r.text()
    let json
    try {
        json = JSON.parse(text)
    } catch {
        throw new Error(`${method} ${path}: ${r.status}, not JSON: ${text.slice(0, 200)}`)
    }
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 200)}`)
    return json
}

function errorBody(e, want) {
    checkSchema('ErrorResponse', e, 'error body')
    assert(e && typeof e === 'object' && typeof e.error === 'string', `not an ErrorResponse: ${show(e, 200)}`)
    if (want !== undefined) assert(e.error === want, `error ${show(e.error, 200)}, want ${show(want, 200)}`)
}

const NOT_IN_CLIENT = '[fetch: not in the client]'

// an ISO timestamp in microseconds: record times are distinct to the
// microsecond, and several fall in one millisecond (Date.parse's unit)
function micros(t) {
    const m = /^(.*?)(?:\.(\d{1,6}))?Z$/.exec(t)
    assert(m && !Number.isNaN(Date.parse(m[1] + 'Z')), `not a timestamp: ${t}`)
    return BigInt(Date.parse(m[1] + 'Z')) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0'))
}
let dsoParty, syncId, snapshotTime, acsCount, updatesList

await check('MUST', 'GET /v0/dso-party-id', async () => {
    const r = await scan.get('/v0/dso-party-id')
    checkSchema('GetDsoPartyIdResponse', r)
    assert(typeof r.dso_party_id === 'string' && r.dso_party_id.startsWith('DSO::'), show(r, 200))
    dsoParty = r.dso_party_id
    return dsoParty.slice(0, 24) + '…'
})

await check('MUST', 'GET /v0/dso', async () => {
    const r = await scan.get('/v0/dso')
    checkSchema('GetDsoInfoResponse', r)
    assert(r.dso_party_id === dsoParty, `dso_party_id ${r.dso_party_id}`)
    assert(r.amulet_rules?.contract?.template_id?.endsWith(':Splice.AmuletRules:AmuletRules'), show(r.amulet_rules, 200))
    assert(r.dso_rules?.contract?.template_id?.endsWith(':Splice.DsoRules:DsoRules'), show(r.dso_rules, 200))
    return `${r.sv_node_states?.length} sv node states, voting threshold ${r.voting_threshold}`
})

await check('MUST', 'ScanClient.getAmuletSynchronizerId() (reads /v0/dso)', async () => {
    syncId = await scan.getAmuletSynchronizerId()
    assert(typeof syncId === 'string' && syncId.includes('::'), String(syncId))
    return syncId.slice(0, 30) + '…'
})

await check('MUST', 'GET /v0/backfilling/status: complete', async () => {
    const r = await scan.get('/v0/backfilling/status')
    checkSchema('GetBackfillingStatusResponse', r)
    assert(r.complete === true, show(r))
})

await check('MUST', 'POST /v0/backfilling/migration-info {migration_id:0}', async () => {
    const r = await scan.post('/v0/backfilling/migration-info', { migration_id: 0 })
    checkSchema('GetMigrationInfoResponse', r)
    assert(r.record_time_range.length > 0, show(r, 200))
    return `${r.record_time_range.length} range(s), complete ${r.complete}`
})

await check('MUST', 'GET /v0/state/acs/snapshot-timestamp (before=now, migration_id=0)', async () => {
    const r = await scan.get('/v0/state/acs/snapshot-timestamp', { query: { before: new Date().toISOString(), migration_id: 0 } })
    checkSchema('AcsSnapshotTimestampResponse', r)
    assert(!Number.isNaN(Date.parse(r.record_time)), show(r))
    snapshotTime = r.record_time
    return snapshotTime
})

function activeContracts(list, path) {
    assert(Array.isArray(list), `${path}: created_events is not an array`)
    list.forEach((c, j) => {
        checkSchema('ActiveContract', c, `${path}[${j}]`)
        assert(typeof c.template_id === 'string' && c.template_id, `${path}[${j}]: no template_id`)
        assert(typeof c.created_at === 'string' && c.created_at, `${path}[${j}]: no created_at`)
        assert(c.create_arguments && typeof c.create_arguments === 'object', `${path}[${j}]: no create_arguments`)
    })
}

await check('MUST', `POST /v2/state/acs paged (page_size 10, next_page_token) ${NOT_IN_CLIENT}`, async () => {
    assert(snapshotTime, 'no snapshot time')
    let after, pages = 0, n = 0
    const ids = new Set()
    for (;;) {
        const body = { migration_id: 0, record_time: snapshotTime, record_time_match: 'exact', page_size: 10, ...(after ? { after } : {}) }
        const r = await fetchJson('POST', '/v2/state/acs', body)
        pages++
        // no AcsResponseV2 in the client: the v1 response with a string token
        for (const p of ['record_time', 'migration_id', 'created_events']) assert(p in r, `page ${pages}: no ${p}`)
        assert(r.migration_id === 0, `migration_id ${r.migration_id}`)
        assert(Date.parse(r.record_time) === Date.parse(snapshotTime), `record_time ${r.record_time}`)
        activeContracts(r.created_events, `/v2/state/acs page ${pages}`)
        assert(r.created_events.length <= 10, `${r.created_events.length} on a page`)
        r.created_events.forEach((c) => ids.add(c.contract_id))
        n += r.created_events.length
        if (r.next_page_token === undefined || r.next_page_token === null || r.next_page_token === '') break
        assert(typeof r.next_page_token === 'string', `next_page_token ${show(r.next_page_token)} is not a string`)
        after = r.next_page_token
        assert(pages < 1000, 'more than 1000 pages')
    }
    assert(n > 0, 'no contracts')
    assert(ids.size === n, `${n - ids.size} contracts repeated across pages`)
    acsCount = n
    return `${n} contracts in ${pages} pages`
})

await check('MUST', 'POST /v1/state/acs paged (page_size 10, numeric next_page_token)', async () => {
    assert(snapshotTime, 'no snapshot time')
    let after, pages = 0, n = 0
    for (;;) {
        const r = await scan.post('/v1/state/acs', { migration_id: 0, record_time: snapshotTime, record_time_match: 'exact', page_size: 10, ...(after ? { after } : {}) })
        pages++
        checkSchema('AcsResponseV1', r, `/v1/state/acs page ${pages}`)
        activeContracts(r.created_events, `/v1/state/acs page ${pages}`)
        n += r.created_events.length
        if (r.next_page_token === undefined) break
        assert(Number.isInteger(r.next_page_token), `next_page_token ${show(r.next_page_token)}`)
        after = r.next_page_token
        assert(pages < 1000, 'more than 1000 pages')
    }
    assert(acsCount === undefined || n === acsCount, `${n} contracts, /v2/state/acs had ${acsCount}`)
    return `${n} contracts in ${pages} pages`
})

await check('MUST', 'POST /v2/updates paged (page_size 10, after {after_migration_id, after_record_time}) until empty', async () => {
    let after, pages = 0
    const all = []
    for (;;) {
        const r = await scan.post('/v2/updates', { page_size: 10, ...(after ? { after } : {}) })
        pages++
        checkSchema('UpdateHistoryResponseV2', r, `/v2/updates page ${pages}`)
        assert(r.transactions.length <= 10, `${r.transactions.length} on a page`)
        if (r.transactions.length === 0) break
        const last = r.transactions.at(-1)
        if (after) {
            const first = r.transactions[0]
            assert(first.migration_id > after.after_migration_id || micros(first.record_time) > micros(after.after_record_time), `page ${pages} starts at ${first.record_time}, not after ${after.after_record_time}`)
        }
        all.push(...r.transactions)
        after = { after_migration_id: last.migration_id, after_record_time: last.record_time }
        assert(pages < 1000, 'more than 1000 pages')
    }
    assert(all.length > 0, 'no updates')
    assert(new Set(all.map((u) => u.update_id)).size === all.length, 'an update repeated across pages')
    updatesList = all
    const txs = all.filter((u) => 'events_by_id' in u).length
    return `${all.length} updates (${txs} transactions) in ${pages} pages`
})

await check('MUST', 'GET /v2/updates/{update_id} of a listed update', async () => {
    assert(updatesList?.length, 'no updates listed')
    const want = updatesList.find((u) => Object.keys(u.events_by_id ?? {}).length > 1) ?? updatesList[0]
    const r = await scan.get('/v2/updates/{update_id}', { path: { update_id: want.update_id } })
    checkSchema('UpdateHistoryItemV2', r, '/v2/updates/{update_id}')
    assert(r.update_id === want.update_id, `update_id ${r.update_id}`)
    assert(JSON.stringify(r) === JSON.stringify(want), 'differs from the listed update')
    return `${Object.keys(r.events_by_id ?? {}).length} events`
})

await check('MUST', 'POST /v0/backfilling/import-updates {migration_id:0, after_update_id:"", limit:10}', async () => {
    const r = await scan.post('/v0/backfilling/import-updates', { migration_id: 0, after_update_id: '', limit: 10 })
    checkSchema('GetImportUpdatesResponse', r)
    return `${r.transactions.length} import updates`
})

let voteRequestCid
await check('MUST', 'GET /v0/admin/sv/voterequests', async () => {
    const r = await scan.get('/v0/admin/sv/voterequests')
    checkSchema('ListDsoRulesVoteRequestsResponse', r)
    assert(r.dso_rules_vote_requests.length > 0, 'no vote requests')
    for (const c of r.dso_rules_vote_requests) assert(c.template_id.endsWith(':Splice.DsoRules:VoteRequest'), c.template_id)
    voteRequestCid = r.dso_rules_vote_requests[0].contract_id
    return `${r.dso_rules_vote_requests.length} vote requests`
})

await check('MUST', 'GET /v0/voterequests/{vote_request_contract_id} of a listed one', async () => {
    assert(voteRequestCid, 'no vote request listed')
    const r = await scan.get('/v0/voterequests/{vote_request_contract_id}', { path: { vote_request_contract_id: voteRequestCid } })
    checkSchema('LookupDsoRulesVoteRequestResponse', r)
    assert(r.dso_rules_vote_request.contract_id === voteRequestCid, show(r, 200))
})

await check('MUST', 'GET /v0/sv-bft-sequencers', async () => {
    const r = await scan.get('/v0/sv-bft-sequencers')
    checkSchema('ListSvBftSequencersResponse', r)
    return `${r.bftSequencers.length} sequencers`
})

let ansName
await check('MUST', 'GET /v0/ans-entries?page_size=10', async () => {
    const r = await scan.get('/v0/ans-entries', { query: { page_size: 10 } })
    checkSchema('ListEntriesResponse', r)
    assert(r.entries.length > 0 && r.entries.length <= 10, `${r.entries.length} entries`)
    ansName = r.entries[0].name
    return `${r.entries.length} entries`
})

await check('MUST', 'GET /v0/ans-entries/by-name/{name} of a listed one', async () => {
    assert(ansName, 'no entry listed')
    const r = await scan.get('/v0/ans-entries/by-name/{name}', { path: { name: ansName } })
    checkSchema('LookupEntryByNameResponse', r)
    assert(r.entry.name === ansName, show(r, 200))
    return ansName
})

await check('MUST', 'POST /v0/open-and-issuing-mining-rounds {cached_*: []}', async () => {
    const r = await scan.post('/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] })
    checkSchema('GetOpenAndIssuingMiningRoundsResponse', r)
    const open = Object.values(r.open_mining_rounds)
    assert(open.length > 0 && open.every((x) => x.contract?.template_id?.endsWith(':Splice.Round:OpenMiningRound')), show(r.open_mining_rounds, 200))
    return `${open.length} open, ${Object.keys(r.issuing_mining_rounds).length} issuing`
})

await check('MUST', 'ScanClient.getOpenMiningRounds() / getActiveOpenMiningRound()', async () => {
    const rounds = await scan.getOpenMiningRounds()
    rounds.forEach((c, j) => checkSchema('Contract', c, `getOpenMiningRounds()[${j}]`))
    assert(rounds.length > 0, 'no rounds')
    const active = await scan.getActiveOpenMiningRound()
    assert(active, `no round is open now: ${rounds.map((c) => `${c.payload.opensAt}..${c.payload.targetClosesAt}`).join(', ')}`)
    return `${rounds.length} rounds, active round ${active.payload.round?.number}`
})

await check('MUST', 'POST /v0/amulet-rules {}', async () => {
    const r = await scan.post('/v0/amulet-rules', {})
    checkSchema('GetAmuletRulesResponse', r)
    assert(r.amulet_rules_update.contract?.template_id?.endsWith(':Splice.AmuletRules:AmuletRules'), show(r, 200))
})

await check('MUST', 'ScanClient.getAmuletRules() / isDevNet() (POST /v0/amulet-rules)', async () => {
    const c = await scan.getAmuletRules()
    checkSchema('Contract', c, 'getAmuletRules()')
    const dev = await scan.isDevNet()
    assert(typeof dev === 'boolean', show(dev))
    return `isDevNet ${dev}`
})

await check('MUST', 'GET /v1/domains/{domain_id}/parties/{dso}/participant-id', async () => {
    assert(syncId && dsoParty, 'no synchronizer or DSO party')
    const r = await scan.get('/v1/domains/{domain_id}/parties/{party_id}/participant-id', { path: { domain_id: syncId, party_id: dsoParty } })
    checkSchema('GetPartyToParticipantResponseV1', r)
    assert(r.participant_ids.length > 0, show(r))
    return `${r.participant_ids.length} participants`
})

// ---- errors: ScanClient rejects with the ErrorResponse body; status via raw()
const LIMIT = 'Exceeded limit maximum (1001 > 1000).'
await check('MUST', 'POST /v2/updates page_size 1001: 400 {"error":"Exceeded limit maximum (1001 > 1000)."}', async () => {
    const e = await rejection(scan.post('/v2/updates', { page_size: 1001 }))
    errorBody(e, LIMIT)
    const r = await raw('POST', '/v2/updates', { body: { page_size: 1001 } })
    assert(r.status === 400, `status ${r.status}`)
})

await check('MUST', 'POST /v1/state/acs page_size 1001: 400 {"error":"Exceeded limit maximum (1001 > 1000)."}', async () => {
    const body = { migration_id: 0, record_time: snapshotTime, record_time_match: 'exact', page_size: 1001 }
    const e = await rejection(scan.post('/v1/state/acs', body))
    errorBody(e, LIMIT)
    const r = await raw('POST', '/v1/state/acs', { body })
    assert(r.status === 400, `status ${r.status}`)
})

await check('MUST', 'GET /v0/voterequests/{unknown cid}: 404 ErrorResponse', async () => {
    const cid = '00' + 'ab'.repeat(32) + 'ca111220' + 'cd'.repeat(32)
    const e = await rejection(scan.get('/v0/voterequests/{vote_request_contract_id}', { path: { vote_request_contract_id: cid } }))
    errorBody(e)
    const r = await raw('GET', '/v0/voterequests/{vote_request_contract_id}', { params: { path: { vote_request_contract_id: cid } } })
    assert(r.status === 404, `status ${r.status}`)
    return e.error
})

await check('MUST', 'POST /v1/state/acs record_time with no snapshot (exact): 404 ErrorResponse', async () => {
    assert(snapshotTime, 'no snapshot time')
    const t = new Date(Date.parse(snapshotTime) + 1).toISOString() // 1 ms after a snapshot
    const body = { migration_id: 0, record_time: t, record_time_match: 'exact', page_size: 10 }
    const e = await rejection(scan.post('/v1/state/acs', body))
    errorBody(e)
    const r = await raw('POST', '/v1/state/acs', { body })
    assert(r.status === 404, `status ${r.status}`)
    return e.error
})

// ---- a fifth SV joins: its Scan, read with its own ScanClient, backfills
// from the other four and then answers as SV 1's does
const ADMIN_TOKEN = process.env.ADMIN_TOKEN
const allUpdates = async (client) => {
    const all = []
    let after
    for (let pages = 0; pages < 1000; pages++) {
        const r = await client.post('/v2/updates', { page_size: 100, ...(after ? { after } : {}) })
        checkSchema('UpdateHistoryResponseV2', r, '/v2/updates of a late SV')
        if (r.transactions.length === 0) break
        all.push(...r.transactions)
        const last = r.transactions.at(-1)
        after = { after_migration_id: last.migration_id, after_record_time: last.record_time }
    }
    return all
}
let late
await check('MUST', `a fifth SV joins (POST /api/sandnet/v0/svs) and its Scan's GET /v0/backfilling/status becomes complete ${NOT_IN_CLIENT}`, async () => {
    assert(ADMIN_TOKEN, 'no ADMIN_TOKEN (run.sh sets it)')
    const r = await fetch(BASE.replace(/\/$/, '') + '/api/sandnet/v0/svs', { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    const sv = await r.json()
    assert(r.ok && sv.sv === 5, `${r.status} ${show(sv)}`)
    late = new ScanClient(new URL(BASE.replace(/\/$/, '') + sv.scan_path), logger, noAuth)
    for (let i = 0; i < 200; i++) {
        const st = await late.get('/v0/backfilling/status')
        checkSchema('GetBackfillingStatusResponse', st)
        if (st.complete) return `complete after ${i * 100} ms`
        await new Promise((ok) => setTimeout(ok, 100))
    }
    throw new Error('still backfilling after 20 s')
})

await check('MUST', "the late SV's Scan: POST /v2/updates, paged, equals SV 1's", async () => {
    assert(late, 'no late SV')
    for (let i = 0; i < 100; i++) {
        const [mine, first] = [await allUpdates(late), await allUpdates(scan)]
        if (JSON.stringify(mine) === JSON.stringify(first)) return `${mine.length} updates, the same`
        await new Promise((ok) => setTimeout(ok, 100))
    }
    throw new Error("its history never equals SV 1's")
})

await check('MUST', "the late SV's Scan: ScanClient.getAmuletRules() and getOpenMiningRounds() as SV 1's", async () => {
    assert(late, 'no late SV')
    const [a, b] = [await late.getAmuletRules(), await scan.getAmuletRules()]
    assert(a.contract_id === b.contract_id, `amulet rules ${a.contract_id} vs ${b.contract_id}`)
    const [x, y] = [await late.getOpenMiningRounds(), await scan.getOpenMiningRounds()]
    assert(JSON.stringify(x.map((r) => r.contract_id)) === JSON.stringify(y.map((r) => r.contract_id)), 'open rounds differ')
    return `${x.length} open rounds`
})

// ---------------------------------------------------------------- report
report('response vs core-splice-client generated-clients/scan.d.ts')
