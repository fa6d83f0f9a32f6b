// Drives a running sandnet's validator app (/api/validator) with the clients
// @canton-network/core-splice-client ships for it, ValidatorInternalClient
// (validator-internal: onboarding, users) and ScanProxyClient (the
// scan-proxy), and checks every answer against the schemas those clients were
// generated from (their generated-clients/validator-internal.d.ts and
// scan-proxy.d.ts, Splice's OpenAPI in openapi-typescript form).
//
// Environment: SANDNET_URL (http://127.0.0.1:PORT), SANDNET_BIN (the built
// sandnet binary) and SANDNET_DATA_DIR (its data directory): tokens are
// minted with `SANDNET_BIN token --data-dir SANDNET_DATA_DIR --user U`, for
// alice, bob, participant_admin (the operator) and users this script
// creates. run.sh sets them.
//
// Calls go through the clients' own get/post (openapi-fetch, typed by their
// paths) and ScanProxyClient's helpers. The package has no wallet-internal,
// wallet-external or ans-external client: those endpoints are called with
// fetch and marked "[fetch: not in the client]"; their responses are checked
// field by field against Splice's wallet/ANS shapes, and the contracts in
// them against the client's Contract / ContractWithState (scan-proxy.d.ts,
// Splice's common.yaml). The clients reject with the error body alone
// ({error}), so the error checks read the status through the same
// openapi-fetch instance the client wraps (.client, private in the .d.ts).
// The ledger clock is advanced (admin API) only by the last check.
//
// Each check is MUST (the run fails when it fails) or GAP (reported, does not
// fail the run). Schema findings are listed at the end: "error" ones (a
// required field missing, a wrong JSON type, no union variant matching) fail
// the run; "note" ones (null in an optional field, fields the schema does not
// know) do not.

import { ScanProxyClient, ValidatorInternalClient } from '@canton-network/core-splice-client'
import { LedgerClient } from '@canton-network/core-ledger-client'
import { AuthTokenProvider } from '@canton-network/core-wallet-auth'
import { assert, check, logger, mintToken, noAuth, rejection, report, schemaChecker, show } from './lib.mjs'

const BASE = process.env.SANDNET_URL
const BIN = process.env.SANDNET_BIN
const DATA = process.env.SANDNET_DATA_DIR
if (!BASE || !BIN || !DATA) {
    console.error('set SANDNET_URL, SANDNET_BIN and SANDNET_DATA_DIR (run.sh does)')
    process.exit(2)
}
const ROOT = BASE.replace(/\/$/, '')
const VALIDATOR = ROOT + '/api/validator'

// the schemas of the clients' generated files; names in findings are
// prefixed with a label (vi: validator-internal.d.ts, sp: scan-proxy.d.ts)
const SPLICE = '@canton-network/core-splice-client'
const checkVI = schemaChecker(SPLICE, 'validator-internal.d.ts', 'vi')
const checkSP = schemaChecker(SPLICE, 'scan-proxy.d.ts', 'sp')

// ---------------------------------------------------------------- checks
// a token for user, minted by the sandnet binary with the server's secret
const token = (user) => mintToken(BIN, DATA, user)
const tokens = { operator: token('participant_admin'), alice: token('alice'), bob: token('bob') }
const provider = (tok) => AuthTokenProvider.fromToken(tok, logger)
const validatorClient = (tok) => new ValidatorInternalClient(new URL(VALIDATOR), logger, tok ? provider(tok) : noAuth)
const operator = validatorClient(tokens.operator)
const scanProxy = new ScanProxyClient(new URL(VALIDATOR), logger, provider(tokens.alice))

// the same call through the openapi-fetch client a splice client wraps, for
// the HTTP status its get/post drop
async function raw(client, method, path, { body, params } = {}) {
    const r = await client.client[method](path, { body, params })
    return { status: r.response.status, data: r.data, error: r.error }
}

// an endpoint the package has no client for: {status, json}
async function call(tok, method, path, body, base = VALIDATOR) {
    const r = await fetch(base + path, {
        method,
        headers: { ...(tok ? { authorization: `Bearer ${tok}` } : {}), 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await r.text()
    let json
    try {
        json = text === '' ? undefined : JSON.parse(text)
    } catch {
        throw new Error(`${method} ${path}: ${r.status}, not JSON: ${text.slice(0, 200)}`)
    }
    return { status: r.status, json }
}
// the same, failing unless it is a 200
async function ok(tok, method, path, body, base) {
    const r = await call(tok, method, path, body, base)
    assert(r.status === 200, `${method} ${path}: ${r.status} ${show(r.json, 300)}`)
    return r.json
}

function errorBody(e, want) {
    checkVI('ErrorResponse', e, 'error body')
    assert(e && typeof e === 'object' && typeof e.error === 'string', `not an ErrorResponse: ${show(e, 200)}`)
    if (want instanceof RegExp) assert(want.test(e.error), `error ${show(e.error, 200)}, want ${want}`)
    else if (want !== undefined) assert(e.error === want, `error ${show(e.error, 200)}, want ${show(want, 200)}`)
}
// an error answered by an endpoint without a client: status and body
function errorResponse(r, status, want) {
    assert(r.status === status, `status ${r.status} ${show(r.json, 200)}, want ${status}`)
    errorBody(r.json, want)
    return r.json.error
}

// Splice's wallet/ANS response fields (the package has no schema for them):
// each [field, typeof] must be present with that JSON type
function fields(v, what, spec) {
    assert(v && typeof v === 'object' && !Array.isArray(v), `${what}: not an object: ${show(v, 200)}`)
    for (const [f, t] of Object.entries(spec)) {
        const got = Array.isArray(v[f]) ? 'array' : v[f] === null ? 'null' : typeof v[f]
        assert(got === t, `${what}.${f}: ${got} ${show(v[f])}, want ${t}`)
    }
}
const DECIMAL = /^-?\d+(\.\d+)?$/
const isContractId = (s) => typeof s === 'string' && /^00[0-9a-f]{64}/.test(s)

// the ledger time now, in µs (the admin API's clock)
async function ledgerNowUs() {
    const c = await ok(tokens.operator, 'GET', '/clock', undefined, ROOT + '/api/sandnet/v0')
    return Date.parse(c.now) * 1000
}
async function poll(what, fn, ms = 10000) {
    const end = Date.now() + ms
    let last
    for (;;) {
        last = await fn()
        if (last.done) return last.value
        if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms, last ${show(last.value, 300)}`)
        await new Promise((r) => setTimeout(r, 50))
    }
}

const NOT_IN_CLIENT = '[fetch: not in the client]'
const run = Date.now().toString(36)
let operatorParty, alice, bob

await check('MUST', 'GET /v0/validator-user', async () => {
    const r = await operator.get('/v0/validator-user')
    checkVI('GetValidatorUserInfoResponse', r)
    assert(typeof r.party_id === 'string' && r.party_id.includes('::'), show(r, 200))
    operatorParty = r.party_id
    return `${r.user_name}, ${r.party_id.slice(0, 24)}…, featured ${r.featured}`
})

const fresh = `vc-${run}`
let freshParty
await check('MUST', `POST /v0/admin/users {name:"${fresh}"} (operator)`, async () => {
    const r = await operator.post('/v0/admin/users', { name: fresh })
    checkVI('OnboardUserResponse', r)
    assert(typeof r.party_id === 'string' && r.party_id.includes('::'), show(r, 200))
    freshParty = r.party_id
    return r.party_id.slice(0, 30) + '…'
})

await check('MUST', `POST /v0/register {} (as ${fresh})`, async () => {
    const r = await validatorClient(token(fresh)).post('/v0/register', {})
    checkVI('RegistrationResponse', r)
    assert(r.party_id === freshParty, `party_id ${r.party_id}, onboarded as ${freshParty}`)
})

await check('MUST', 'GET /v0/admin/users (operator) lists alice, bob and the new user', async () => {
    const r = await operator.get('/v0/admin/users')
    checkVI('ListUsersResponse', r)
    for (const u of ['alice', 'bob', fresh]) assert(r.usernames.includes(u), `${u} not in ${show(r.usernames, 200)}`)
    return `${r.usernames.length} users`
})

await check('MUST', `GET /v0/wallet/user-status (alice, bob, ${fresh}) ${NOT_IN_CLIENT}`, async () => {
    const out = {}
    for (const [who, tok] of [['alice', tokens.alice], ['bob', tokens.bob], [fresh, token(fresh)]]) {
        const r = await ok(tok, 'GET', '/v0/wallet/user-status')
        fields(r, 'UserStatusResponse', { party_id: 'string', user_onboarded: 'boolean', user_wallet_installed: 'boolean', has_featured_app_right: 'boolean' })
        assert(r.user_onboarded && r.user_wallet_installed, `${who}: ${show(r, 200)}`)
        out[who] = r.party_id
    }
    assert(out[fresh] === freshParty, `${fresh}: ${out[fresh]}`)
    alice = out.alice
    bob = out.bob
})

const balance = async (tok) => {
    const r = await ok(tok, 'GET', '/v0/wallet/balance')
    fields(r, 'GetBalanceResponse', { round: 'number', effective_unlocked_qty: 'string', effective_locked_qty: 'string', total_holding_fees: 'string' })
    for (const f of ['effective_unlocked_qty', 'effective_locked_qty', 'total_holding_fees']) assert(DECIMAL.test(r[f]), `${f} ${show(r[f])}`)
    return r
}
let before, tapCid, tapAmount
await check('MUST', `POST /v0/wallet/tap {amount:"10.0"} ${NOT_IN_CLIENT}`, async () => {
    before = await balance(tokens.alice)
    const r = await ok(tokens.alice, 'POST', '/v0/wallet/tap', { amount: '10.0' })
    fields(r, 'TapResponse', { contract_id: 'string' })
    assert(isContractId(r.contract_id), show(r, 200))
    tapCid = r.contract_id
})

await check('MUST', `GET /v0/wallet/amulets: lists the tapped amulet ${NOT_IN_CLIENT}`, async () => {
    const r = await ok(tokens.alice, 'GET', '/v0/wallet/amulets')
    fields(r, 'ListResponse', { amulets: 'array', locked_amulets: 'array' })
    for (const [k, list] of [['amulets', r.amulets], ['locked_amulets', r.locked_amulets]]) {
        list.forEach((a, j) => {
            fields(a, `${k}[${j}]`, { contract: 'object', round: 'number', accrued_holding_fee: 'string', effective_amount: 'string' })
            checkSP('ContractWithState', a.contract, `/v0/wallet/amulets ${k}[${j}].contract`)
            assert(DECIMAL.test(a.effective_amount) && DECIMAL.test(a.accrued_holding_fee), show(a, 200))
        })
    }
    const mine = r.amulets.find((a) => a.contract.contract.contract_id === tapCid)
    assert(mine, `tapped amulet ${tapCid?.slice(0, 16)}… not listed`)
    assert(mine.contract.contract.template_id.endsWith(':Splice.Amulet:Amulet'), mine.contract.contract.template_id)
    // the tap's amount is in USD: the amulet is 10 / the open round's amuletPrice
    tapAmount = mine.effective_amount
    assert(Number(tapAmount) >= 10, `tapped ${tapAmount} CC for 10.0 USD`)
    return `${r.amulets.length} amulets, ${r.locked_amulets.length} locked; 10.0 USD tapped ${tapAmount} CC`
})

await check('MUST', `GET /v0/wallet/balance: up by the tapped amulet ${NOT_IN_CLIENT}`, async () => {
    const r = await balance(tokens.alice)
    assert(tapAmount, 'no tapped amulet listed')
    const d = Number(r.effective_unlocked_qty) - Number(before?.effective_unlocked_qty)
    assert(Math.abs(d - Number(tapAmount)) < 0.05, `unlocked ${before?.effective_unlocked_qty} -> ${r.effective_unlocked_qty}, tapped ${tapAmount}`)
    return `round ${r.round}, unlocked ${r.effective_unlocked_qty}`
})

// ---- direct transfer offers
const offerBody = async (trackingId, amount = '1.5') => ({
    receiver_party_id: bob,
    amount,
    description: `validator-client ${trackingId}`,
    expires_at: (await ledgerNowUs()) + 3600 * 1e6,
    tracking_id: trackingId,
})
async function createOffer(trackingId) {
    const r = await ok(tokens.alice, 'POST', '/v0/wallet/transfer-offers', await offerBody(trackingId))
    fields(r, 'CreateTransferOfferResponse', { offer_contract_id: 'string' })
    assert(isContractId(r.offer_contract_id), show(r, 200))
    return r.offer_contract_id
}
function offerStatus(r, what) {
    fields(r, what, { status: 'string' })
    assert(['created', 'accepted', 'completed', 'failed'].includes(r.status), `${what}: status ${show(r.status)}`)
    if (r.status === 'failed') {
        fields(r, what, { failure_kind: 'string' })
        assert(['expired', 'rejected', 'withdrawn'].includes(r.failure_kind), `${what}: failure_kind ${show(r.failure_kind)}`)
        if (r.failure_kind === 'withdrawn') fields(r, what, { withdrawn_reason: 'string' })
    } else fields(r, what, { transaction_id: 'string', contract_id: 'string' })
}
async function awaitStatus(trackingId, want, kind) {
    return poll(`${trackingId} ${want}`, async () => {
        const r = await ok(tokens.alice, 'POST', `/v0/wallet/transfer-offers/${encodeURIComponent(trackingId)}/status`)
        offerStatus(r, 'GetTransferOfferStatusResponse')
        return { done: r.status === want && (!kind || r.failure_kind === kind), value: r }
    })
}

const tAccept = `vc-${run}-accept`
let offerCid
await check('MUST', `alice POST /v0/wallet/transfer-offers {receiver bob, 1.5, expires in 1h, ${tAccept}} ${NOT_IN_CLIENT}`, async () => {
    offerCid = await createOffer(tAccept)
    const s = await awaitStatus(tAccept, 'created')
    return `status ${s.status}`
})

await check('MUST', `bob GET /v0/wallet/transfer-offers sees it ${NOT_IN_CLIENT}`, async () => {
    const r = await ok(tokens.bob, 'GET', '/v0/wallet/transfer-offers')
    fields(r, 'ListTransferOffersResponse', { offers: 'array' })
    r.offers.forEach((c, j) => checkSP('Contract', c, `/v0/wallet/transfer-offers offers[${j}]`))
    const o = r.offers.find((c) => c.contract_id === offerCid)
    assert(o, `offer ${offerCid?.slice(0, 16)}… not listed (${r.offers.length} offers)`)
    assert(o.template_id.endsWith(':Splice.Wallet.TransferOffer:TransferOffer'), o.template_id)
    const p = o.payload
    assert(p.sender === alice && p.receiver === bob && p.trackingId === tAccept, show(p, 300))
    assert(p.amount?.amount === '1.5' && p.amount?.unit === 'AmuletUnit', `amount ${show(p.amount)}`)
    return `${r.offers.length} offers`
})

await check('MUST', `bob POST /v0/wallet/transfer-offers/{contract_id}/accept ${NOT_IN_CLIENT}`, async () => {
    assert(offerCid, 'no offer')
    const r = await ok(tokens.bob, 'POST', `/v0/wallet/transfer-offers/${offerCid}/accept`)
    fields(r, 'AcceptTransferOfferResponse', { accepted_offer_contract_id: 'string' })
    assert(isContractId(r.accepted_offer_contract_id), show(r, 200))
})

await check('MUST', `alice POST /v0/wallet/transfer-offers/${tAccept}/status until "completed" ${NOT_IN_CLIENT}`, async () => {
    const t0 = Date.now()
    const s = await awaitStatus(tAccept, 'completed')
    return `completed after ${Date.now() - t0} ms, tx ${s.transaction_id.slice(0, 12)}…`
})

const tReject = `vc-${run}-reject`
await check('MUST', `reject: bob POST …/{contract_id}/reject → status failed/rejected ${NOT_IN_CLIENT}`, async () => {
    const cid = await createOffer(tReject)
    const r = await ok(tokens.bob, 'POST', `/v0/wallet/transfer-offers/${cid}/reject`)
    assert(r === undefined || (typeof r === 'object' && !Array.isArray(r)), `body ${show(r)}`)
    const s = await awaitStatus(tReject, 'failed', 'rejected')
    return show(s, 80)
})

const tWithdraw = `vc-${run}-withdraw`
await check('MUST', `withdraw: alice POST …/{contract_id}/withdraw → status failed/withdrawn ${NOT_IN_CLIENT}`, async () => {
    const cid = await createOffer(tWithdraw)
    const r = await ok(tokens.alice, 'POST', `/v0/wallet/transfer-offers/${cid}/withdraw`)
    assert(r === undefined || (typeof r === 'object' && !Array.isArray(r)), `body ${show(r)}`)
    const s = await awaitStatus(tWithdraw, 'failed', 'withdrawn')
    return show(s, 80)
})

await check('MUST', `GET /v0/wallet/accepted-transfer-offers (alice, bob) ${NOT_IN_CLIENT}`, async () => {
    const n = []
    for (const tok of [tokens.alice, tokens.bob]) {
        const r = await ok(tok, 'GET', '/v0/wallet/accepted-transfer-offers')
        fields(r, 'ListAcceptedTransferOffersResponse', { accepted_offers: 'array' })
        r.accepted_offers.forEach((c, j) => {
            checkSP('Contract', c, `/v0/wallet/accepted-transfer-offers accepted_offers[${j}]`)
            assert(c.template_id.endsWith(':Splice.Wallet.TransferOffer:AcceptedTransferOffer'), c.template_id)
        })
        n.push(r.accepted_offers.length)
    }
    return `${n[0]} / ${n[1]} pending (the completed one is gone)`
})

// ---- name service
const ansName = `vc${run}.unverified.cns`
let subCid
await check('MUST', `POST /v0/entry/create {name:"${ansName}", url, description} ${NOT_IN_CLIENT}`, async () => {
    const body = { name: ansName, url: 'https://x.example.com', description: 'd' }
    const r = await ok(tokens.alice, 'POST', '/v0/entry/create', body)
    fields(r, 'CreateAnsEntryResponse', { entryContextCid: 'string', subscriptionRequestCid: 'string', name: 'string', url: 'string', description: 'string' })
    assert(r.name === ansName && r.url === body.url && r.description === 'd', show(r, 300))
    subCid = r.subscriptionRequestCid
})

await check('MUST', `GET /v0/wallet/subscription-requests lists it ${NOT_IN_CLIENT}`, async () => {
    const r = await ok(tokens.alice, 'GET', '/v0/wallet/subscription-requests')
    fields(r, 'ListSubscriptionRequestsResponse', { subscription_requests: 'array' })
    r.subscription_requests.forEach((c, j) => checkSP('Contract', c, `/v0/wallet/subscription-requests subscription_requests[${j}]`))
    assert(r.subscription_requests.some((c) => c.contract_id === subCid), `${subCid?.slice(0, 16)}… not listed`)
    return `${r.subscription_requests.length} requests`
})

await check('MUST', `POST /v0/wallet/subscription-requests/{cid}/accept ${NOT_IN_CLIENT}`, async () => {
    assert(subCid, 'no subscription request')
    const r = await ok(tokens.alice, 'POST', `/v0/wallet/subscription-requests/${subCid}/accept`)
    fields(r, 'AcceptSubscriptionRequestResponse', { initial_payment_contract_id: 'string' })
    assert(isContractId(r.initial_payment_contract_id), show(r, 200))
})

await check('MUST', `GET /v0/entry/all lists it once collected (AMULETUNIT/USDUNIT, expiresAt ms, intervals µs) ${NOT_IN_CLIENT}`, async () => {
    const t0 = Date.now()
    const r = await poll(`${ansName} in /v0/entry/all`, async () => {
        const r = await ok(tokens.alice, 'GET', '/v0/entry/all')
        fields(r, 'ListAnsEntriesResponse', { entries: 'array' })
        return { done: r.entries.some((e) => e.name === ansName), value: r }
    })
    for (const [j, e] of r.entries.entries()) {
        const what = `entries[${j}]`
        fields(e, what, { contractId: 'string', name: 'string', amount: 'string', unit: 'string', expiresAt: 'string', paymentInterval: 'string', paymentDuration: 'string' })
        assert(DECIMAL.test(e.amount), `${what}.amount ${show(e.amount)} is not a BigDecimal string`)
        assert(['AMULETUNIT', 'USDUNIT'].includes(e.unit), `${what}.unit ${show(e.unit)}`)
        assert(/^\d{13}$/.test(e.expiresAt) && Number(e.expiresAt) > Date.now() - 864e5, `${what}.expiresAt ${show(e.expiresAt)} is not an epoch-ms string`)
        for (const f of ['paymentInterval', 'paymentDuration']) assert(/^\d+$/.test(e[f]) && Number(e[f]) >= 1e6, `${what}.${f} ${show(e[f])} is not a µs string`)
        const extra = Object.keys(e).filter((k) => !['contractId', 'name', 'amount', 'unit', 'expiresAt', 'paymentInterval', 'paymentDuration'].includes(k))
        assert(extra.length === 0, `${what}: fields Splice does not send: ${extra.join(', ')}`)
    }
    const e = r.entries.find((x) => x.name === ansName)
    return `after ${Date.now() - t0} ms: ${e.amount} ${e.unit}, expires ${new Date(Number(e.expiresAt)).toISOString()}, every ${Number(e.paymentInterval) / 864e8} d`
})

// ---- scan-proxy, through ScanProxyClient
let dso
await check('MUST', 'GET /v0/scan-proxy/dso-party-id', async () => {
    const r = await scanProxy.get('/v0/scan-proxy/dso-party-id')
    checkSP('GetDsoPartyIdResponse', r)
    assert(typeof r.dso_party_id === 'string' && r.dso_party_id.startsWith('DSO::'), show(r, 200))
    dso = r.dso_party_id
    return dso.slice(0, 24) + '…'
})

await check('MUST', 'GET /v0/scan-proxy/ans-entries?page_size=10', async () => {
    const r = await scanProxy.get('/v0/scan-proxy/ans-entries', { query: { page_size: '10' } })
    checkSP('ListEntriesResponse', r)
    assert(r.entries.length > 0 && r.entries.length <= 10, `${r.entries.length} entries`)
    return `${r.entries.length} entries`
})

await check('MUST', `GET /v0/scan-proxy/ans-entries/by-name/${ansName}`, async () => {
    const r = await scanProxy.get('/v0/scan-proxy/ans-entries/by-name/{name}', { path: { name: ansName } })
    checkSP('LookupEntryByNameResponse', r)
    assert(r.entry.name === ansName && r.entry.user === alice && r.entry.url === 'https://x.example.com', show(r, 300))
    return `expires_at ${r.entry.expires_at}`
})

await check('MUST', 'GET /v0/scan-proxy/ans-entries/by-party/{alice}', async () => {
    assert(alice, 'no alice party')
    const r = await scanProxy.get('/v0/scan-proxy/ans-entries/by-party/{party}', { path: { party: alice } })
    checkSP('LookupEntryByPartyResponse', r)
    assert(r.entry.user === alice, show(r, 300))
    return r.entry.name
})

// the ScanProxyClient helpers the wallet SDK builds transfers with, and the
// other GET paths of the client
await check('MUST', 'ScanProxyClient.getAmuletRules() / getAmuletSynchronizerId() / isDevNet() (GET /v0/scan-proxy/amulet-rules)', async () => {
    const c = await scanProxy.getAmuletRules()
    checkSP('Contract', c, 'getAmuletRules()')
    const sync = await scanProxy.getAmuletSynchronizerId()
    assert(typeof sync === 'string' && sync.includes('::'), `synchronizer ${show(sync)}`)
    return `synchronizer ${sync.slice(0, 24)}…, isDevNet ${await scanProxy.isDevNet()}`
})

await check('MUST', 'ScanProxyClient.getOpenMiningRounds() / getActiveOpenMiningRound() (GET /v0/scan-proxy/open-and-issuing-mining-rounds)', async () => {
    const rounds = await scanProxy.getOpenMiningRounds()
    rounds.forEach((c, j) => checkSP('Contract', c, `getOpenMiningRounds()[${j}]`))
    assert(rounds.length > 0, 'no rounds')
    const active = await scanProxy.getActiveOpenMiningRound()
    assert(active, 'no round is open now')
    return `${rounds.length} rounds, active ${active.payload.round?.number}`
})

await check('MUST', 'GET /v0/scan-proxy/dso', async () => {
    const r = await scanProxy.get('/v0/scan-proxy/dso')
    checkSP('GetDsoInfoResponse', r)
    assert(r.dso_party_id === dso, `dso_party_id ${r.dso_party_id}`)
})

// ---- errors: the clients reject with the ErrorResponse body; status via raw()
await check('MUST', 'no token: GET /v0/admin/users → 401 {error}', async () => {
    const anon = validatorClient(null)
    const e = await rejection(anon.get('/v0/admin/users'))
    errorBody(e)
    const r = await raw(anon, 'GET', '/v0/admin/users')
    assert(r.status === 401, `status ${r.status}`)
    return e.error
})

await check('MUST', `no token: GET /v0/wallet/balance → 401 {error} ${NOT_IN_CLIENT}`, async () => {
    return errorResponse(await call(null, 'GET', '/v0/wallet/balance'), 401)
})

await check('MUST', 'alice (not an operator): GET /v0/admin/users → 403 {error}', async () => {
    const c = validatorClient(tokens.alice)
    const e = await rejection(c.get('/v0/admin/users'))
    errorBody(e)
    const r = await raw(c, 'GET', '/v0/admin/users')
    assert(r.status === 403, `status ${r.status}`)
    return e.error
})

// a ledger user acting as its primary party but with no wallet of its own,
// made with the ledger client (LedgerClient.createUser/grantRights), not the
// validator
const walletless = `vc-${run}-nowallet`
await check('MUST', `a user without a wallet: GET /v0/wallet/balance → 404 "No wallet found for user '${walletless}' for operation 'getBalance'" ${NOT_IN_CLIENT}`, async () => {
    // the party of the user onboarded above: its wallet is that user's, not this one's
    const party = freshParty
    assert(party, 'no onboarded party')
    const ledger = new LedgerClient({ baseUrl: new URL(ROOT), logger, accessTokenProvider: provider(tokens.operator) })
    await ledger.init()
    await ledger.createUser(walletless, party)
    await ledger.grantRights(walletless, { actAs: [party] })
    const tok = token(walletless)
    const msg = errorResponse(await call(tok, 'GET', '/v0/wallet/balance'), 404, `No wallet found for user '${walletless}' for operation 'getBalance'`)
    errorResponse(await call(tok, 'POST', '/v0/wallet/tap', { amount: '1.0' }), 404, `No wallet found for user '${walletless}' for operation 'tap'`)
    return msg
})

await check('MUST', `duplicate tracking id: POST /v0/wallet/transfer-offers → 409 "Transfer offer with trackingId ${tAccept} already exists." ${NOT_IN_CLIENT}`, async () => {
    const r = await call(tokens.alice, 'POST', '/v0/wallet/transfer-offers', await offerBody(tAccept))
    return errorResponse(r, 409, `Transfer offer with trackingId ${tAccept} already exists.`)
})

// last: moves the shared ledger clock 2 h forward
const tExpired = `vc-${run}-expired`
// The accept races the wallet automation, which expires the offer as soon
// as ledger time has passed it: while the offer is still there the choice's
// precondition fails (409); once the automation has archived it the offer is
// gone (404), as a Splice validator answers for an archived contract.
await check('MUST', `expired offer: clock +2h (POST /api/sandnet/v0/clock/advance), bob accepts → 409, or 404 once expired {error} ${NOT_IN_CLIENT}`, async () => {
    const cid = await createOffer(tExpired)
    const c = await ok(tokens.operator, 'POST', '/clock/advance', { duration: '2h' }, ROOT + '/api/sandnet/v0')
    const r = await call(tokens.bob, 'POST', `/v0/wallet/transfer-offers/${cid}/accept`)
    const msg = errorResponse(r, r.status === 404 ? 404 : 409)
    return `clock ${c.now}; ${r.status} ${msg.slice(0, 100)}`
})

await check('MUST', `expired offer: status → failed/expired once the automation expires it ${NOT_IN_CLIENT}`, async () => {
    const s = await awaitStatus(tExpired, 'failed', 'expired')
    return show(s, 80)
})

// ---------------------------------------------------------------- report
report('responses vs core-splice-client generated-clients/validator-internal.d.ts (vi:), scan-proxy.d.ts (sp:)')
