// Drives a running sandnet as a wallet developer would, with the Canton
// Network's wallet SDK (@canton-network/wallet-sdk: SDK.create, then its
// ledger, party, user, token, amulet and events namespaces), and records
// what each SDK call does. The SDK's own parsing is the main check; the raw
// ledger API answers it hands back (active contracts, websocket updates) are
// also checked against core-ledger-client-types' openapi-3.5.1.d.ts.
//
// Environment: SANDNET_URL (http://127.0.0.1:PORT), SANDNET_AUTH_SECRET (the
// HS256 secret the server was started with: the SDK signs its own tokens
// with it, its `self_signed` auth, as against LocalNet), ADMIN_TOKEN and
// ALICE_TOKEN (from `sandnet token`, for its `static` auth). run.sh sets them.
//
// Each check is MUST (the run fails when it fails) or GAP: a call needing an
// endpoint sandnet does not serve yet (each GAP names its endpoint),
// reported as FAIL GAP without failing the run; there are none now.
// A GAP check that starts passing says the gap is closed: make it MUST.
// The external-party flow (keys, topology, interactive submission) is
// wallet-sdk-external.mjs's; here, its two first calls as a user without
// admin rights.

import { SDK, LedgerProvider } from '@canton-network/wallet-sdk'
import { AuthTokenProvider } from '@canton-network/core-wallet-auth'
import { VERBOSE, assert, check, logger as silent, rejection, report, schemaChecker, show } from './lib.mjs'
import { closeFrom, collect, logAdapter, opened, quiet, selfSigned, staticToken } from './wallet-sdk-lib.mjs'

const BASE = process.env.SANDNET_URL
const SECRET = process.env.SANDNET_AUTH_SECRET
const ADMIN_TOKEN = process.env.ADMIN_TOKEN
const ALICE_TOKEN = process.env.ALICE_TOKEN
if (!BASE || !SECRET || !ADMIN_TOKEN || !ALICE_TOKEN) {
    console.error('set SANDNET_URL, SANDNET_AUTH_SECRET, ADMIN_TOKEN and ALICE_TOKEN (run.sh does)')
    process.exit(2)
}
const ROOT = BASE.replace(/\/$/, '')
// A registry URL is what the SDK puts /registry/… after: the Scan host's
// root, or the validator's scan-proxy (the SDK's default on LocalNet).
const REGISTRY = `${ROOT}/api/validator/v0/scan-proxy`
const AMULET = '#splice-amulet:Splice.Amulet:Amulet'
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding'
const checkSchema = schemaChecker('@canton-network/core-ledger-client-types', 'openapi-3.5.1.d.ts')

async function ledgerEndOf(sdk) {
    return await sdk.ledger.ledgerEnd()
}
async function tap(amount) {
    const r = await fetch(`${ROOT}/api/sandnet/v0/tap`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'alice', amount }),
    })
    assert(r.ok, `tap: ${r.status} ${await r.text()}`)
}
const holdingView = (ev) => ev?.interfaceViews?.find((v) => v.interfaceId.endsWith(':Splice.Api.Token.HoldingV1:Holding'))

let sdk, admin, alice, tokens, amulet, events

// ---------------------------------------------------------------- connect
await check('MUST', 'SDK.create, self_signed auth (HS256 with the server secret), user alice', async () => {
    // GET /v2/authenticated-user, GET /v2/state/connected-synchronizers
    sdk = quiet(await SDK.create({ auth: selfSigned('alice'), ledgerClientUrl: BASE, logAdapter }))
    assert(sdk.ctx.userId === 'alice', `user ${sdk.ctx.userId}`)
    assert(sdk.ctx.defaultSynchronizerId?.startsWith('global-domain::'), `synchronizer ${sdk.ctx.defaultSynchronizerId}`)
    return `synchronizer ${sdk.ctx.defaultSynchronizerId.slice(0, 30)}…`
})
if (!sdk) {
    report('ledger API answers vs core-ledger-client-types openapi-3.5.1.d.ts') // nothing else can run
}

await check('MUST', 'SDK.create, static auth (a `sandnet token` token), user participant_admin', async () => {
    admin = quiet(await SDK.create({ auth: staticToken(ADMIN_TOKEN), ledgerClientUrl: BASE, logAdapter }))
    assert(admin.ctx.userId === 'participant_admin', `user ${admin.ctx.userId}`)
})

await check('MUST', 'SDK.create with a token signed by another secret rejects (the 401 on /v2/version)', async () => {
    const bad = { ...selfSigned('alice'), credentials: { ...selfSigned('alice').credentials, clientSecret: 'not-the-secret-of-this-sandnet-at-all' } }
    // SDK.create's other form, with the ledger provider made here, to quiet its logger
    const provider = new AuthTokenProvider(bad, silent)
    const ledgerProvider = new LedgerProvider({ baseUrl: BASE, accessTokenProvider: provider })
    if (!VERBOSE) ledgerProvider.client.logger.level = 'silent'
    // The client's first call, GET /v2/version, answers 401 with a
    // JsCantonError; the client reads that as a version-less answer.
    const e = await rejection(SDK.create({ ledgerProvider, logAdapter }))
    assert(e instanceof Error, show(e, 200))
    const r = await fetch(`${ROOT}/v2/version`, { headers: { authorization: `Bearer ${await provider.getAccessToken()}` } })
    const body = await r.json()
    checkSchema('JsCantonError', body)
    assert(r.status === 401 && body.grpcCodeValue === 16, `${r.status} ${show(body, 200)}`)
    return e.message
})

// ---------------------------------------------------------------- ledger, parties, users
let end0
await check('MUST', 'ledger.ledgerEnd() (GET /v2/state/ledger-end)', async () => {
    end0 = await ledgerEndOf(sdk)
    assert(Number.isInteger(end0) && end0 > 0, `ledger end ${end0}`)
    return `offset ${end0}`
})

await check('MUST', "party.list() as alice: her parties, from her rights", async () => {
    const ps = await sdk.party.list()
    assert(ps.length === 1 && ps[0].startsWith('alice::'), show(ps, 200))
    alice = ps[0]
    return alice.slice(0, 20) + '…'
})

await check('MUST', 'party.list() as participant_admin (CanReadAsAnyParty: GET /v2/parties, local ones)', async () => {
    const ps = await admin.party.list()
    for (const p of ['alice::', 'bob::', 'validator::']) assert(ps.some((x) => x.startsWith(p)), `no ${p} in ${show(ps, 300)}`)
    return `${ps.length} parties`
})

await check('MUST', 'user.list() as participant_admin (GET /v2/users)', async () => {
    const r = await admin.user.list()
    checkSchema('ListUsersResponse', r)
    const ids = r.users.map((u) => u.id)
    for (const id of ['alice', 'bob', 'participant_admin']) assert(ids.includes(id), `no ${id} in ${ids}`)
    return `${ids.length} users`
})

await check('MUST', 'user.list() as alice rejects with PERMISSION_DENIED (grpc 7), as Canton does', async () => {
    const e = await rejection(sdk.user.list())
    checkSchema('JsCantonError', e)
    assert(e.grpcCodeValue === 7, show(e, 200))
})

await check('MUST', 'user.rights.list() as alice: CanActAs her party', async () => {
    const r = await sdk.user.rights.list()
    checkSchema('ListUserRightsResponse', r)
    assert(r.rights.some((x) => x.kind?.CanActAs?.value?.party === alice), show(r, 300))
    return `${r.rights.length} rights`
})

await check('MUST', 'user.create + user.rights.grant as participant_admin (readAs alice)', async () => {
    const userId = `wallet-sdk-${Date.now()}`
    const u = await admin.user.create({ userId, primaryParty: alice, userRights: { readAs: [alice] } })
    assert(u.id === userId && u.primaryParty === alice, show(u, 200))
    await admin.user.rights.grant({ userId, userRights: { readAs: [alice] } })
    const again = await admin.user.create({ userId, primaryParty: alice }) // exists: read back, not created
    assert(again.id === userId, show(again, 200))
    return userId
})

// ---------------------------------------------------------------- active contracts
await check('MUST', "ledger.acs.read Holding interface (POST /v2/state/active-contracts): alice's Amulets with Holding views", async () => {
    const cs = await sdk.ledger.acs.read({ parties: [alice], filterByParty: true, interfaceIds: [HOLDING] })
    assert(cs.length > 0, 'no holdings')
    for (const c of cs) {
        const v = holdingView(c)
        assert(v?.viewValue?.owner === alice && v.viewValue.instrumentId?.id === 'Amulet', show(c.interfaceViews, 300))
    }
    return `${cs.length} holdings`
})

await check('MUST', 'ledger.acs.readRaw Amulet template, continueUntilCompletion (legacy filter + verbose:false on POST /v2/updates)', async () => {
    const r = await sdk.ledger.acs.readRaw({ parties: [alice], filterByParty: true, templateIds: [AMULET], continueUntilCompletion: true })
    assert(Array.isArray(r) && r.length > 0, show(r, 200))
    r.forEach((x, j) => checkSchema('JsGetActiveContractsResponse', x, `readRaw[${j}]`))
    return `${r.length} Amulets`
})

let acsBefore
await check('MUST', 'ledger.acsReader.read Holding interface (ACS snapshot, cached)', async () => {
    const r = await sdk.ledger.acsReader.read({ parties: [alice], filterByParty: true, interfaceIds: [HOLDING] })
    r.forEach((x, j) => checkSchema('JsGetActiveContractsResponse', x, `acsReader[${j}]`))
    assert(r.length > 0, 'no holdings')
    acsBefore = r.length
    return `${r.length} holdings`
})

await check('MUST', 'ledger.acsReader.readJsContracts Amulet template', async () => {
    const r = await sdk.ledger.acsReader.readJsContracts({ parties: [alice], filterByParty: true, templateIds: [AMULET] })
    assert(r.length > 0 && r.every((c) => c.templateId.endsWith(':Splice.Amulet:Amulet') && c.synchronizerId), show(r, 200))
    return `${r.length} Amulets`
})

// ---------------------------------------------------------------- token standard
await check('MUST', 'extend({token}) with validatorUrl (GET /api/validator/v0/validator-user)', async () => {
    tokens = quiet(await sdk.extend({ token: { auth: selfSigned('alice'), registries: [REGISTRY], validatorUrl: `${ROOT}/api/validator` } }))
    assert(tokens.token, 'no token namespace')
})

await check('MUST', "token.utxos.list: alice's holdings (Holding interface, ACS)", async () => {
    const hs = await tokens.token.utxos.list({ partyId: alice })
    assert(hs.length > 0, 'no holdings')
    for (const h of hs) {
        assert(h.interfaceViewValue?.owner === alice && h.interfaceViewValue.instrumentId?.id === 'Amulet', show(h, 300))
        assert(Number(h.interfaceViewValue.amount) > 0, show(h.interfaceViewValue, 200))
    }
    return `${hs.length} holdings, ${hs.map((h) => h.interfaceViewValue.amount).join(', ')}`
})

for (const [name, call] of [
    ['token.transfer.pending (TransferInstruction interface)', () => tokens.token.transfer.pending(alice)],
    ['token.allocation.pending (Allocation interface)', () => tokens.token.allocation.pending(alice)],
    ['token.allocation.instruction.pending (AllocationInstruction interface)', () => tokens.token.allocation.instruction.pending(alice)],
    ['token.allocation.request.pending (AllocationRequest interface)', () => tokens.token.allocation.request.pending(alice)],
]) {
    await check('MUST', `${name}: none`, async () => {
        const r = await call()
        assert(Array.isArray(r) && r.length === 0, show(r, 200))
    })
}

// ---------------------------------------------------------------- events, and a tap
await check('MUST', 'extend({amulet, events}) (scan, validator, websocket URLs)', async () => {
    const ext = quiet(await tokens.extend({
        amulet: { auth: selfSigned('alice'), scanApiUrl: `${ROOT}/api/scan`, validatorUrl: `${ROOT}/api/validator`, registryUrl: REGISTRY },
        events: { auth: selfSigned('alice'), websocketURL: ROOT.replace(/^http/, 'ws') },
    }))
    amulet = ext.amulet
    events = ext.events
    assert(amulet && events, 'namespaces missing')
})

await check('MUST', 'events.updates Amulet template from 0 (websocket /v2/updates, double slash)', async () => {
    const n = opened.length
    const { out } = await collect(events.updates({ partyId: alice, templateIds: [AMULET], beginOffset: 0 }), { max: 200, ms: 1500 })
    const url = opened[n]?.url
    assert(url?.endsWith('//v2/updates'), `opened ${url}`)
    out.forEach((m, j) => checkSchema('JsGetUpdatesResponse', m, `ws[${j}]`))
    const creates = out.flatMap((m) => m.update?.Transaction?.value?.events ?? []).filter((e) => 'CreatedEvent' in e)
    assert(creates.some((e) => e.CreatedEvent.createArgument?.owner === alice), `no Amulet create in ${out.length} messages`)
    return `${out.length} messages, ${creates.length} creates, ${url.replace(/^ws:\/\/[^/]+/, '')}`
})

let tapStart, tapEnd
await check('MUST', 'events.updates Holding interface live: a tap arrives (admin API tap)', async () => {
    tapStart = await ledgerEndOf(sdk)
    const n = opened.length
    const iter = events.updates({ partyId: alice, interfaceIds: [HOLDING], beginOffset: tapStart })
    const first = iter.next() // opens the socket
    await new Promise((r) => setTimeout(r, 300))
    await tap('7.25')
    const got = await Promise.race([first, new Promise((r) => setTimeout(() => r('timeout'), 5000))])
    closeFrom(n)
    assert(got !== 'timeout', 'no update within 5 s of the tap')
    checkSchema('JsGetUpdatesResponse', got.value, 'ws live')
    const c = (got.value.update?.Transaction?.value?.events ?? []).map((e) => e.CreatedEvent).filter(Boolean)
    assert(c.length === 1 && holdingView(c[0])?.viewValue?.amount?.startsWith('7.25'), show(got.value, 300))
    tapEnd = await ledgerEndOf(sdk)
    return `offset ${c[0].offset}`
})

await check('MUST', "token.holdings over the tap's range (POST /v2/updates/flats, LEDGER_EFFECTS, token-standard interfaces, verbose:false)", async () => {
    const txs = await tokens.token.holdings({ partyId: alice, afterOffset: tapStart, beforeOffset: tapEnd })
    const creates = txs.transactions.flatMap((t) => t.events).flatMap((e) => e.unlockedHoldingsChange?.creates ?? [])
    assert(creates.some((h) => h.owner === alice && h.amount.startsWith('7.25')), show(txs, 400))
    return `${txs.transactions.length} transactions, next offset ${txs.nextOffset}`
})

await check('MUST', 'ledger.acsReader.read again: the cached ACS catches up with the tap (POST /v2/updates, updateFormat + verbose:false)', async () => {
    const r = await sdk.ledger.acsReader.read({ parties: [alice], filterByParty: true, interfaceIds: [HOLDING] })
    assert(r.length === acsBefore + 1, `${r.length} holdings, ${acsBefore} before the tap`)
    return `${acsBefore} -> ${r.length} holdings`
})

await check('MUST', 'token.holdings over the whole history (an archived Holding is looked up with POST /v2/events/events-by-contract-id)', async () => {
    const txs = await tokens.token.holdings({ partyId: alice })
    const creates = txs.transactions.flatMap((t) => t.events).flatMap((e) => e.unlockedHoldingsChange?.creates ?? [])
    assert(creates.some((h) => h.owner === alice && h.amount.startsWith('7.25')), `the tap is not in ${txs.transactions.length} transactions`)
    return `${txs.transactions.length} transactions`
})
await check('MUST', 'token.transactionsById of the tap (POST /v2/updates/transaction-by-id)', async () => {
    const txs = await tokens.token.holdings({ partyId: alice, afterOffset: tapStart, beforeOffset: tapEnd })
    const updateId = txs.transactions[0]?.updateId
    assert(updateId, 'no transaction in the tap range')
    const tx = await tokens.token.transactionsById({ updateId, partyId: alice })
    assert(tx.updateId === updateId, show(tx, 200))
})

// ---------------------------------------------------------------- an internal party
// The SDK's "internal party" flow, unchanged: a party the participant
// holds the keys of is allocated for the SDK's user, a command is
// submitted as it (the SDK docs' smoke test: a Ping), and read back.
const PING = '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping'
let internalParty, pingSubmit, pingBegin
await check('MUST', 'party.internal.allocate as participant_admin (GET /v2/parties/participant-id and /v2/parties/{party}, then POST /v2/parties with userId): the user may act as it', async () => {
    const hint = `wallet-sdk-${Date.now()}`
    internalParty = await admin.party.internal.allocate({ partyHint: hint })
    assert(typeof internalParty === 'string' && internalParty.startsWith(`${hint}::1220`), show(internalParty, 200))
    const rights = await admin.user.rights.list()
    assert(rights.rights.some((x) => x.kind?.CanActAs?.value?.party === internalParty), `no CanActAs ${internalParty} in ${show(rights, 300)}`)
    assert((await admin.party.list()).includes(internalParty), 'not among the local parties')
    const again = await admin.party.internal.allocate({ partyHint: hint }) // exists: found, not allocated again
    assert(again === internalParty, `again: ${again}`)
    return internalParty.slice(0, 30) + '…'
})

await check('MUST', 'ledger.internal.submit of utils.ping.create as the internal party (POST /v2/commands/submit-and-wait)', async () => {
    const commands = admin.utils.ping.create([{ initiator: internalParty, responder: internalParty }])
    pingBegin = await ledgerEndOf(admin)
    pingSubmit = await admin.ledger.internal.submit({ commands, actAs: [internalParty] })
    assert(typeof pingSubmit.updateId === 'string' && Number.isInteger(pingSubmit.completionOffset), show(pingSubmit, 200))
    return `update ${pingSubmit.updateId.slice(0, 16)}…, offset ${pingSubmit.completionOffset}`
})

await check('MUST', 'the Ping read back: ledger.acsReader.readJsContracts (Ping template) and ledger.acs.readRaw', async () => {
    const cs = await admin.ledger.acsReader.readJsContracts({ parties: [internalParty], filterByParty: true, templateIds: [PING] })
    assert(cs.length === 1 && cs[0].templateId.endsWith(':Canton.Internal.Ping:Ping') && cs[0].createArgument?.initiator === internalParty, show(cs, 300))
    assert(cs[0].offset === pingSubmit.completionOffset, `created at ${cs[0].offset}, completion offset ${pingSubmit.completionOffset}`)
    // a Ping to oneself: the initiator signs, and observers never name a signatory
    assert(show(cs[0].signatories) === show([internalParty]) && cs[0].observers?.length === 0, `signatories ${show(cs[0].signatories)}, observers ${show(cs[0].observers)}`)
    const raw = await admin.ledger.acs.readRaw({ parties: [internalParty], filterByParty: true, templateIds: [PING] })
    raw.forEach((x, j) => checkSchema('JsGetActiveContractsResponse', x, `readRaw[${j}]`))
    assert(raw.length === 1, `${raw.length} contracts`)
    return `contract ${cs[0].contractId.slice(0, 16)}…`
})

await check('MUST', "events.completions as participant_admin (websocket /v2/commands/completions): the internal party's Ping, accepted, with its update id", async () => {
    assert(pingSubmit, 'no Ping was submitted')
    const ext = quiet(await admin.extend({ events: { auth: staticToken(ADMIN_TOKEN), websocketURL: ROOT.replace(/^http/, 'ws') } }))
    const { out } = await collect(ext.events.completions({ parties: [internalParty], beginOffset: pingBegin }), { max: 1, ms: 3000 })
    out.forEach((m, j) => checkSchema('CompletionStreamResponse', m, `completions[${j}]`))
    const c = out[0]?.completionResponse?.Completion?.value
    assert(c?.updateId === pingSubmit.updateId && c.offset === pingSubmit.completionOffset, `messages: ${show(out, 300)}`)
    assert(!c.status || c.status.code === 0, show(c.status, 200))
    return `offset ${c.offset}`
})

await check('MUST', 'ledger.internal.submit of an unknown choice rejects with a JsCantonError (400 INVALID_ARGUMENT)', async () => {
    const [c] = await admin.ledger.acsReader.readJsContracts({ parties: [internalParty], filterByParty: true, templateIds: [PING] })
    const e = await rejection(admin.ledger.internal.submit({
        commands: [{ ExerciseCommand: { templateId: PING, contractId: c.contractId, choice: 'Pong', choiceArgument: {} } }],
        actAs: [internalParty],
    }))
    checkSchema('JsCantonError', e)
    assert(e.code === 'INVALID_ARGUMENT' && e.grpcCodeValue === 3, show(e, 300))
    return e.cause.slice(0, 80)
})

// ---------------------------------------------------------------- more of the SDK
// (once known gaps, each now served)
await check('MUST', 'ledger.dar.check of a built-in package (GET /v2/packages)', async () => {
    const ok = await sdk.ledger.dar.check('dbeda50efee6c5e53959638ef5422116723a9a6137fcdd4d2d82544291726a88')
    return String(ok)
})
await check('MUST', 'events.completions (websocket /v2/commands/completions)', async () => {
    // the seeding's taps for alice were her user's commands: their
    // completions come first
    const { out, how } = await collect(events.completions({ parties: [alice], beginOffset: 0 }), { max: 1, ms: 5000 })
    assert(how !== 'timeout' && out.length === 1, `no completion (${how})`)
    return show(out[0], 120)
})
await check('MUST', 'amulet.tap builds the DevNet tap with the registry (the instruments, then POST /registry/transfer-instruction/v1/transfer-factory for its disclosed contracts)', async () => {
    const cmd = await amulet.tap(alice, '1')
    const text = JSON.stringify(cmd)
    assert(text.includes('AmuletRules_DevNet_Tap'), `no AmuletRules_DevNet_Tap in ${show(cmd, 200)}`)
    assert(text.includes('createdEventBlob'), `no disclosed contract in ${show(cmd, 200)}`)
    return show(cmd, 100)
})
await check('MUST', "amulet.traffic.status (Scan GET /v0/domains/{domain}/members/PAR::{participant}/traffic-status, the participant from GET /v2/parties/participant-id): no extra traffic bought or used (sandnet's synchronizer has no traffic control)", async () => {
    const r = await amulet.traffic.status()
    const t = r?.traffic_status
    assert(t && t.actual.total_consumed === 0 && t.actual.total_limit === 0 && t.target.total_purchased === 0, show(r, 300))
    const other = await amulet.traffic.status({ memberId: 'MED::mediator::1220ab' })
    assert(other?.traffic_status?.target?.total_purchased === 0, show(other, 300))
    return show(r, 120)
})
await check('MUST', 'amulet.featuredApp.rights(alice) (GET /api/validator/v0/scan-proxy/featured-apps/{party}): none, an empty answer; Scan\'s GET /v0/featured-apps/{party} the same', async () => {
    const none = await amulet.featuredApp.rights({ partyId: alice, maxRetries: 1, delayMs: 0 })
    assert(none === undefined, show(none, 300))
    const scan = await (await fetch(`${ROOT}/api/scan/v0/featured-apps/${encodeURIComponent(alice)}`)).json()
    assert(scan.featured_app_right == null, show(scan, 300))
})
// The SDK's grant looks the right up first, 20 times a second apart (its
// fixed retries), before it self-grants: this check takes 20 s.
await check('MUST', 'amulet.featuredApp.grant({validatorParty: alice}) (AmuletRules_DevNet_FeatureApp, submitted as alice), then rights(alice): her FeaturedAppRight, the one Scan\'s lookup answers', async () => {
    const r = await amulet.featuredApp.grant({ validatorParty: alice, maxRetries: 10, delayMs: 250 })
    assert(r?.contract_id && r.template_id.endsWith(':Splice.Amulet:FeaturedAppRight') && r.payload.provider === alice && r.created_event_blob, show(r, 300))
    const again = await amulet.featuredApp.rights({ partyId: alice, maxRetries: 1, delayMs: 0 })
    assert(again?.contract_id === r.contract_id, show(again, 300))
    const scan = await (await fetch(`${ROOT}/api/scan/v0/featured-apps/${encodeURIComponent(alice)}`)).json()
    assert(scan.featured_app_right?.contract_id === r.contract_id, show(scan, 300))
    return `${r.contract_id.slice(0, 16)}…`
})
await check('MUST', 'amulet.preapproval.fetchQuick(alice): none (GET .../scan-proxy/transfer-preapprovals/by-party is not served; its 404 reads as none)', async () => {
    const r = await amulet.preapproval.fetchQuick(alice)
    assert(r == null, show(r, 200))
})
await check('MUST', 'extend({asset}) (the registry at the Scan host and through the scan-proxy: GET /registry/metadata/v1/instruments and info): Amulet, admin the DSO', async () => {
    const dso = (await (await fetch(`${ROOT}/api/scan/v0/dso-party-id`)).json()).dso_party_id
    const ext = await sdk.extend({ asset: { auth: selfSigned('alice'), registries: [ROOT, REGISTRY] } })
    const list = ext.asset.list
    assert(list.length === 2, show(list, 300))
    for (const a of list) {
        assert(a.id === 'Amulet' && a.admin === dso && a.symbol === 'AMT' && a.displayName === 'Amulet', show(a, 300))
    }
    const viaProxy = await ext.asset.find('Amulet', list[1].registryUrl)
    assert(viaProxy.registryUrl.href === list[1].registryUrl.href, show(viaProxy, 300))
    return `${list.length} assets: ${list.map((a) => `${a.symbol} at ${a.registryUrl.href}`).join(', ')}`
})
// ---------------------------------------------------------------- external signing, as alice
// wallet-sdk-external.mjs runs the flow as a participant admin; alice, a
// user without admin rights and with an internal party, gets as far as
// Canton lets her.
await check('MUST', 'party.external.create as alice: generate-topology answers (any user), allocate refuses with PERMISSION_DENIED (grpc 7: it needs ParticipantAdmin), and no party is made', async () => {
    const keys = sdk.keys.generate()
    const prepared = sdk.party.external.create(keys.publicKey, { partyHint: `wallet-sdk-ext-${Date.now()}` })
    const topo = await prepared.topology()
    assert(topo.partyId.endsWith(`::${await sdk.keys.fingerprint(keys.publicKey)}`), show(topo, 200))
    const e = await rejection(prepared.sign(keys.privateKey).execute())
    checkSchema('JsCantonError', e)
    assert(e.grpcCodeValue === 7, show(e, 300))
    assert(!(await admin.party.list()).includes(topo.partyId), `${topo.partyId} was allocated`)
    return e.cause.slice(0, 60)
})
await check('MUST', "ledger.prepare of a Ping as alice (POST /v2/interactive-submission/prepare): the SDK's V2 hash of it is preparedTransactionHash", async () => {
    const ping = sdk.utils.ping.create([{ initiator: alice, responder: alice }])
    const prepared = sdk.ledger.prepare({ partyId: alice, commands: ping })
    const r = await prepared.preparedPromise
    checkSchema('JsPrepareSubmissionResponse', r)
    assert(r.hashingSchemeVersion === 'HASHING_SCHEME_VERSION_V2', show(r, 200))
    const hash = (await sdk.utils.hash.preparedTransaction(r.preparedTransaction)).toBase64()
    assert(hash === r.preparedTransactionHash, `SDK hash ${hash}, sandnet's ${r.preparedTransactionHash}`)
    return `hash ${hash.slice(0, 16)}…`
})
await check('MUST', 'ledger.prepare then sign and execute as alice, an internal party: executeAndWait refuses with FAILED_TO_EXECUTE_TRANSACTION (no party signing keys)', async () => {
    const keys = sdk.keys.generate()
    const ping = sdk.utils.ping.create([{ initiator: alice, responder: alice }])
    const e = await rejection(sdk.ledger.prepare({ partyId: alice, commands: ping }).sign(keys.privateKey).execute({ partyId: alice }))
    checkSchema('JsCantonError', e)
    assert(e.code === 'FAILED_TO_EXECUTE_TRANSACTION' && e.grpcCodeValue === 3, show(e, 300))
    assert(e.cause.includes(`Could not find party signing keys for ${alice}`), e.cause)
    return e.cause.slice(0, 100)
})

// ---------------------------------------------------------------- report
report('ledger API answers vs core-ledger-client-types openapi-3.5.1.d.ts')
