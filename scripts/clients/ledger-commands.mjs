// Drives a running sandnet's command submission as a new user of the
// Canton Network's TypeScript ledger client (@canton-network/core-ledger-client)
// would: allocate two parties and users for them, create a Ping and respond
// to it, tap amulets (AmuletRules_DevNet_Tap, with the AmuletRules and open
// round read from Scan by Splice's ScanClient and disclosed, as a wallet
// does) and merge them (AmuletRules_Transfer to self), read the results by
// update id and the completion stream (the client's awaitCompletion), and
// get Canton's errors for a duplicate, a contention loss, a missing right
// and wrong arguments. Every answer is checked against the schemas the
// client was generated from (core-ledger-client-types' openapi-3.5.1.d.ts).
//
// Environment: SANDNET_URL, ADMIN_TOKEN (user participant_admin), and
// SANDNET_BIN and SANDNET_DATA_DIR (to mint tokens for the users it
// creates). run.sh sets them.
//
// The parties are new ones, not wallet users: the validator's wallet
// automation merges a wallet's amulets on its own, which would race the
// merge this script makes.
//
// Each check is MUST (the run fails when it fails) or GAP (a known gap:
// reported as FAIL GAP, it fails nothing); a schema error the script names
// as a known gap (knownSchemaGap) is listed as "gap" and fails nothing.

import { LedgerClient, awaitCompletion, isJsCantonError, promiseWithTimeout } from '@canton-network/core-ledger-client'
import { ScanClient } from '@canton-network/core-splice-client'
import { AuthTokenProvider } from '@canton-network/core-wallet-auth'
import { assert, check, logger, mintToken, noAuth, report, schemaChecker, show } from './lib.mjs'

const BASE = process.env.SANDNET_URL
const ADMIN_TOKEN = process.env.ADMIN_TOKEN
const BIN = process.env.SANDNET_BIN
const DATA_DIR = process.env.SANDNET_DATA_DIR
if (!BASE || !ADMIN_TOKEN || !BIN || !DATA_DIR) {
    console.error('set SANDNET_URL, ADMIN_TOKEN, SANDNET_BIN and SANDNET_DATA_DIR (run.sh does)')
    process.exit(2)
}
const ROOT = BASE.replace(/\/$/, '')

const AMULET = '#splice-amulet:Splice.Amulet:Amulet'
const PING = '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping'
const checkSchema = schemaChecker('@canton-network/core-ledger-client-types', 'openapi-3.5.1.d.ts')

const clientFor = (token) =>
    new LedgerClient({ baseUrl: new URL(BASE), logger, accessTokenProvider: AuthTokenProvider.fromToken(token, logger) })
const admin = clientFor(ADMIN_TOKEN)
const scan = new ScanClient(new URL(ROOT + '/api/scan'), logger, noAuth)

// A POST through the client, with the HTTP status (which the client's
// post drops) read by an openapi-fetch middleware: {status, data} or
// {status, error}.
async function post(client, path, body, query) {
    const r = {}
    const middleware = [{ onResponse: ({ response }) => void (r.status = response.status) }]
    try {
        r.data = await client.post(path, body, query && { query }, { middleware })
    } catch (error) {
        r.error = error ?? `HTTP ${r.status} without a body`
    }
    return r
}
// the answer of a call that must succeed, checked against schema
function ok(r, schema, what) {
    assert(r.error === undefined, `${what}: ${r.status} ${show(r.error, 400)}`)
    checkSchema(schema, r.data, what)
    return r.data
}
// the JsCantonError of a call that must fail with status and one of codes
function refused(r, status, codes, what) {
    assert(r.error !== undefined, `${what}: accepted, ${show(r.data, 200)}`)
    checkSchema('JsCantonError', r.error, what)
    assert(isJsCantonError(r.error), `${what}: not a JsCantonError: ${show(r.error, 300)}`)
    assert(r.status === status, `${what}: HTTP ${r.status}, want ${status}: ${show(r.error, 300)}`)
    if (codes) assert(codes.includes(r.error.code), `${what}: ${r.error.code}, want ${codes.join(' or ')}: ${r.error.cause}`)
    return r.error
}

let nextId = 0
const commandId = (what) => `${what}-${Date.now()}-${nextId++}`
// a JsCommands acting as party
const commands = (party, cmds, extra = {}) => ({ commands: cmds, commandId: commandId('cmd'), actAs: [party], ...extra })
const createPing = (initiator, responder, id = commandId('ping')) => ({
    CreateCommand: { templateId: PING, createArguments: { id, initiator, responder } },
})
const exercise = (templateId, contractId, choice, choiceArgument) => ({ ExerciseCommand: { templateId, contractId, choice, choiceArgument } })

// an event format showing party's events with their blobs
const eventFormat = (party) => ({
    filtersByParty: { [party]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] } },
    verbose: true,
})
const transactionFormat = (party, shape = 'TRANSACTION_SHAPE_ACS_DELTA') => ({ eventFormat: eventFormat(party), transactionShape: shape })

// the transaction of an update id, as party sees it
async function transactionById(client, party, updateId, shape) {
    const r = await post(client, '/v2/updates/transaction-by-id', { updateId, transactionFormat: transactionFormat(party, shape) })
    const tx = ok(r, 'JsGetTransactionResponse', 'transaction-by-id').transaction
    assert(tx.updateId === updateId, `transaction ${tx.updateId}, asked for ${updateId}`)
    return tx
}
// the contract ids of who's active Amulets (POST /v2/state/active-contracts)
async function activeAmulets(who) {
    const end = (await who.client.get('/v2/state/ledger-end')).offset
    const r = await post(who.client, '/v2/state/active-contracts', {
        activeAtOffset: end,
        eventFormat: {
            filtersByParty: { [who.party]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: AMULET, includeCreatedEventBlob: false } } } }] } },
            verbose: false,
        },
    })
    assert(r.error === undefined && Array.isArray(r.data), `active-contracts: ${r.status} ${show(r.error ?? r.data, 300)}`)
    r.data.forEach((x, j) => checkSchema('JsGetActiveContractsResponse', x, `active-contracts[${j}]`))
    return r.data.map((x) => x.contractEntry?.JsActiveContract?.createdEvent?.contractId)
}
const createdOf = (tx) => tx.events.filter((e) => 'CreatedEvent' in e).map((e) => e.CreatedEvent)
const archivedOf = (tx) => tx.events.filter((e) => 'ArchivedEvent' in e).map((e) => e.ArchivedEvent)
const exercisedOf = (tx) => tx.events.filter((e) => 'ExercisedEvent' in e).map((e) => e.ExercisedEvent)

// ---------------------------------------------------------------- parties and users
// A new party, allocated with POST /v2/parties, and a new user acting as
// it (the client's createUser and waitForPartyAndGrantUserRights), with a
// LedgerClient holding that user's token.
async function newTrader(hint) {
    const r = await post(admin, '/v2/parties', { partyIdHint: `${hint}-${Date.now()}`, identityProviderId: '' })
    const party = ok(r, 'AllocatePartyResponse', 'POST /v2/parties').partyDetails.party
    assert(party.startsWith(`${hint}-`) && party.includes('::1220'), `party ${party}`)
    const userId = `${hint}-user-${Date.now()}`
    checkSchema('User', await admin.createUser(userId, party))
    await admin.waitForPartyAndGrantUserRights(userId, party, 3, 100)
    const client = clientFor(mintToken(BIN, DATA_DIR, userId))
    return { party, userId, client }
}

let initiator, responder
await check('MUST', 'POST /v2/parties allocates two parties; createUser + waitForPartyAndGrantUserRights make their users', async () => {
    await admin.init()
    initiator = await newTrader('initiator')
    responder = await newTrader('responder')
    const rights = await admin.get('/v2/users/{user-id}/rights', { path: { 'user-id': initiator.userId } })
    checkSchema('ListUserRightsResponse', rights)
    assert(rights.rights.some((x) => x.kind?.CanActAs?.value?.party === initiator.party), show(rights, 300))
    return `${initiator.party.slice(0, 24)}…, ${responder.party.slice(0, 24)}…`
})
if (!initiator || !responder) report('ledger API answers vs core-ledger-client-types openapi-3.5.1.d.ts') // nothing else can run

const endBefore = (await admin.get('/v2/state/ledger-end')).offset

// ---------------------------------------------------------------- ping
let ping, pingCommand
await check('MUST', 'submit-and-wait: the initiator creates a Ping to the responder (updateId, completionOffset)', async () => {
    pingCommand = commands(initiator.party, [createPing(initiator.party, responder.party)])
    const r = ok(await post(initiator.client, '/v2/commands/submit-and-wait', pingCommand), 'SubmitAndWaitResponse', 'submit-and-wait')
    assert(typeof r.updateId === 'string' && r.updateId.startsWith('1220'), `updateId ${r.updateId}`)
    assert(Number.isInteger(r.completionOffset) && r.completionOffset > endBefore, `completionOffset ${r.completionOffset}`)
    ping = { ...r }
    return `update ${r.updateId.slice(0, 16)}…, offset ${r.completionOffset}`
})

await check('MUST', 'transaction-by-id and update-by-id read the Ping back (the responder sees it too)', async () => {
    const tx = await transactionById(initiator.client, initiator.party, ping.updateId)
    assert(tx.offset === ping.completionOffset && tx.commandId === pingCommand.commandId, `offset ${tx.offset}, commandId ${tx.commandId}`)
    const [c] = createdOf(tx)
    assert(c?.templateId.endsWith(':Canton.Internal.Ping:Ping') && c.createArgument?.responder === responder.party, show(tx.events, 300))
    assert(c.signatories.includes(initiator.party) && c.observers.includes(responder.party), show(c, 300))
    ping.contractId = c.contractId
    const u = ok(await post(responder.client, '/v2/updates/update-by-id', {
        updateId: ping.updateId,
        updateFormat: { includeTransactions: transactionFormat(responder.party) },
    }), 'JsGetUpdateResponse', 'update-by-id')
    const seen = u.update?.Transaction?.value
    assert(seen?.updateId === ping.updateId && createdOf(seen)[0]?.contractId === ping.contractId, show(u, 300))
    assert(seen.commandId === '', `the responder sees the initiator's command id ${seen.commandId}`)
    return `contract ${ping.contractId.slice(0, 16)}…`
})

await check('MUST', 'submit-and-wait: the responder exercises Respond; the Ping is archived (LEDGER_EFFECTS: a consuming Respond)', async () => {
    const r = ok(await post(responder.client, '/v2/commands/submit-and-wait',
        commands(responder.party, [exercise(PING, ping.contractId, 'Respond', {})])), 'SubmitAndWaitResponse', 'Respond')
    const tx = await transactionById(responder.client, responder.party, r.updateId, 'TRANSACTION_SHAPE_LEDGER_EFFECTS')
    const [ex] = exercisedOf(tx)
    assert(ex?.choice === 'Respond' && ex.consuming && ex.contractId === ping.contractId && ex.actingParties.includes(responder.party), show(tx.events, 300))
    const events = ok(await post(initiator.client, '/v2/events/events-by-contract-id', {
        contractId: ping.contractId,
        eventFormat: eventFormat(initiator.party),
    }), 'JsGetEventsByContractIdResponse', 'events-by-contract-id')
    assert(events.created?.createdEvent?.contractId === ping.contractId && events.archived?.archivedEvent?.contractId === ping.contractId, show(events, 300))
    return `update ${r.updateId.slice(0, 16)}…`
})

await check('MUST', 'submit-and-wait-for-transaction (LEDGER_EFFECTS) and the deprecated -tree: a Ping created, then aborted by its responder (AbortPing)', async () => {
    const created = ok(await post(initiator.client, '/v2/commands/submit-and-wait-for-transaction', {
        commands: commands(initiator.party, [createPing(initiator.party, responder.party)]),
        transactionFormat: transactionFormat(initiator.party, 'TRANSACTION_SHAPE_LEDGER_EFFECTS'),
    }), 'JsSubmitAndWaitForTransactionResponse', 'submit-and-wait-for-transaction').transaction
    const [c] = createdOf(created)
    assert(c?.templateId.endsWith(':Canton.Internal.Ping:Ping') && c.createdEventBlob, show(created.events, 300))
    const tree = ok(await post(responder.client, '/v2/commands/submit-and-wait-for-transaction-tree',
        commands(responder.party, [exercise(PING, c.contractId, 'AbortPing', { anyone: responder.party })])),
    'JsSubmitAndWaitForTransactionTreeResponse', 'submit-and-wait-for-transaction-tree').transactionTree
    const ex = Object.values(tree?.eventsById ?? {}).map((e) => e.ExercisedTreeEvent?.value).filter(Boolean)
    assert(ex.length === 1 && ex[0].choice === 'AbortPing' && ex[0].consuming && ex[0].contractId === c.contractId, show(tree, 300))
    return `offsets ${created.offset}, ${tree.offset}`
})

// ---------------------------------------------------------------- errors
await check('MUST', 'a duplicate (same commandId and actAs): 409 DUPLICATE_COMMAND, naming the earlier completion offset', async () => {
    const e = refused(await post(initiator.client, '/v2/commands/submit-and-wait', pingCommand), 409, ['DUPLICATE_COMMAND'], 'duplicate')
    assert(e.grpcCodeValue === 6 && e.errorCategory === 10, show(e, 300))
    assert(e.context?.completion_offset === String(ping.completionOffset), `completion_offset ${e.context?.completion_offset}, want ${ping.completionOffset}`)
    return e.cause
})

await check('MUST', 'deduplication periods as the client types them: a duplicate within DeduplicationDuration 60 s is refused; one with DeduplicationOffset at the first completion is accepted', async () => {
    const within = { ...pingCommand, deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 60, nanos: 0 } } } }
    refused(await post(initiator.client, '/v2/commands/submit-and-wait', within), 409, ['DUPLICATE_COMMAND'], 'within the duration')
    const after = { ...pingCommand, deduplicationPeriod: { DeduplicationOffset: { value: ping.completionOffset } } }
    const r = ok(await post(initiator.client, '/v2/commands/submit-and-wait', after), 'SubmitAndWaitResponse', 'after the offset')
    assert(r.completionOffset > ping.completionOffset, show(r, 200))
    return `accepted at ${r.completionOffset}`
})

await check('MUST', "a missing right (acting as another user's party): 403, grpc PERMISSION_DENIED", async () => {
    const e = refused(await post(initiator.client, '/v2/commands/submit-and-wait',
        commands(responder.party, [createPing(responder.party, initiator.party)])), 403, null, 'actAs without the right')
    assert(e.grpcCodeValue === 7, show(e, 300))
    return e.code.slice(0, 60)
})

await check('MUST', 'wrong arguments: an unexpected field is 400 INVALID_ARGUMENT, a missing one 400 COMMAND_PREPROCESSING_FAILED', async () => {
    const extra = createPing(initiator.party, responder.party)
    extra.CreateCommand.createArguments.color = 'blue'
    const e1 = refused(await post(initiator.client, '/v2/commands/submit-and-wait', commands(initiator.party, [extra])), 400, ['INVALID_ARGUMENT'], 'unexpected field')
    assert(e1.cause.includes('Unexpected fields') && e1.cause.includes('color'), e1.cause)
    const missing = createPing(initiator.party, responder.party)
    delete missing.CreateCommand.createArguments.id
    const e2 = refused(await post(initiator.client, '/v2/commands/submit-and-wait', commands(initiator.party, [missing])), 400, ['COMMAND_PREPROCESSING_FAILED'], 'missing field')
    assert(e2.cause.includes('id'), e2.cause)
    const unknown = exercise(PING, ping.contractId, 'Reply', {})
    const e3 = refused(await post(responder.client, '/v2/commands/submit-and-wait', commands(responder.party, [unknown])), 400, ['INVALID_ARGUMENT'], 'unknown choice')
    return `${e1.cause.slice(0, 70)}… / ${e2.cause.slice(0, 70)}… / ${e3.cause.slice(0, 50)}…`
})

// ---------------------------------------------------------------- tap and merge
// The DSO's contracts a DevNet tap and a transfer refer to, read from
// Scan as a wallet does, and disclosed to the ledger.
let rules, round, disclosed
await check('MUST', "ScanClient.getAmuletRules + getActiveOpenMiningRound: the contracts to disclose (DevNet rules)", async () => {
    rules = await scan.getAmuletRules()
    round = await scan.getActiveOpenMiningRound()
    assert(rules?.payload?.isDevNet === true, `isDevNet ${rules?.payload?.isDevNet}`)
    assert(round?.contract_id && round.created_event_blob, show(round, 200))
    const synchronizerId = await admin.getSynchronizerId()
    disclosed = [rules, round].map((c) => ({ templateId: c.template_id, contractId: c.contract_id, createdEventBlob: c.created_event_blob, synchronizerId }))
    return `round ${round.payload.round.number}`
})

const tapCommand = (party, amount) =>
    commands(party, [exercise(rules.template_id, rules.contract_id, 'AmuletRules_DevNet_Tap', { receiver: party, amount, openRound: round.contract_id })],
        { disclosedContracts: disclosed })

let taps = []
await check('MUST', 'submit-and-wait: three AmuletRules_DevNet_Tap exercises (AmuletRules and open round disclosed) create three Amulets', async () => {
    for (const amount of ['10.0', '20.0', '30.0']) {
        const r = ok(await post(initiator.client, '/v2/commands/submit-and-wait', tapCommand(initiator.party, amount)), 'SubmitAndWaitResponse', 'tap')
        const tx = await transactionById(initiator.client, initiator.party, r.updateId)
        const amulets = createdOf(tx).filter((c) => c.templateId.endsWith(':Splice.Amulet:Amulet'))
        assert(amulets.length === 1 && amulets[0].createArgument.owner === initiator.party, show(tx.events, 300))
        assert(Number(amulets[0].createArgument.amount.initialAmount) === Number(amount), show(amulets[0].createArgument, 200))
        taps.push(amulets[0].contractId)
    }
    return `${taps.length} amulets`
})

// AmuletRules_Transfer of inputs to their owner: no outputs, so the
// change, one amulet, is the merge (as the wallet's merge automation
// does, with the party as its own provider; the argument's shape is
// internal/validator/merge.go's, as a client writes it in Daml JSON).
const mergeCommand = (party, inputs) =>
    commands(party, [exercise(rules.template_id, rules.contract_id, 'AmuletRules_Transfer', {
        transfer: {
            sender: party,
            provider: party,
            inputs: inputs.map((cid) => ({ tag: 'InputAmulet', value: cid })),
            outputs: [],
            beneficiaries: null,
        },
        context: { openMiningRound: round.contract_id, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null },
        // Splice refuses a transfer that does not name the DSO it expects
        expectedDso: rules.payload.dso,
    })], { disclosedContracts: disclosed })

let merged
await check('MUST', 'submit-and-wait: AmuletRules_Transfer merges the three into one; transaction-by-id (LEDGER_EFFECTS) shows the inputs archived and the change', async () => {
    const r = ok(await post(initiator.client, '/v2/commands/submit-and-wait', mergeCommand(initiator.party, taps)), 'SubmitAndWaitResponse', 'merge')
    const tx = await transactionById(initiator.client, initiator.party, r.updateId, 'TRANSACTION_SHAPE_LEDGER_EFFECTS')
    const ex = exercisedOf(tx)
    const transfer = ex.find((e) => e.choice === 'AmuletRules_Transfer')
    assert(transfer && !transfer.consuming, show(ex.map((e) => e.choice), 200))
    const archived = ex.filter((e) => e.consuming && taps.includes(e.contractId)).map((e) => e.contractId)
    assert(archived.length === 3, `archived ${archived.length} of the taps: ${show(ex.map((e) => [e.choice, e.consuming]), 300)}`)
    const result = transfer.exerciseResult
    assert(Number(result?.summary?.inputAmuletAmount) === 60, show(result?.summary, 300))
    const change = createdOf(tx).find((c) => c.contractId === result.senderChangeAmulet)
    assert(change?.createArgument?.owner === initiator.party && Number(change.createArgument.amount.initialAmount) > 0, show(result, 300))
    merged = { ...r, contractId: change.contractId }
    return `one amulet of ${change.createArgument.amount.initialAmount}`
})

await check('MUST', 'update-by-id and update-by-offset (ACS_DELTA) of the merge: the three taps archived, the change created; the ACS holds only the change', async () => {
    const format = { includeTransactions: transactionFormat(initiator.party) }
    const byId = ok(await post(initiator.client, '/v2/updates/update-by-id', { updateId: merged.updateId, updateFormat: format }), 'JsGetUpdateResponse', 'update-by-id')
    const tx = byId.update?.Transaction?.value
    assert(tx?.offset === merged.completionOffset, `at ${tx?.offset}, completion offset ${merged.completionOffset}`)
    assert(archivedOf(tx).length === 3 && archivedOf(tx).every((a) => taps.includes(a.contractId)), show(tx.events, 300))
    assert(createdOf(tx).map((c) => c.contractId).join() === merged.contractId, show(createdOf(tx), 300))
    const byOffset = ok(await post(initiator.client, '/v2/updates/update-by-offset', { offset: merged.completionOffset, updateFormat: format }), 'JsGetUpdateResponse', 'update-by-offset')
    assert(byOffset.update?.Transaction?.value?.updateId === merged.updateId, show(byOffset, 200))
    const acs = await activeAmulets(initiator)
    assert(acs.join() === merged.contractId, `active amulets ${show(acs, 200)}`)
    return `offset ${tx.offset}`
})

// ---------------------------------------------------------------- contention
// Several submissions at once, so that some are interpreted before the
// first commits (and lose at the sequencer, with a completion) and others
// after it (and fail at interpretation, without one).
const RACERS = 8
const race = { winner: null, losers: [] }
await check('MUST', `contention: ${RACERS} concurrent merges consuming the same amulets: one commits, the others get LOCAL_VERDICT_LOCKED/INACTIVE_CONTRACTS or CONTRACT_NOT_FOUND, and change nothing`, async () => {
    // a second amulet, so that each merge has two inputs
    ok(await post(initiator.client, '/v2/commands/submit-and-wait', tapCommand(initiator.party, '5.0')), 'SubmitAndWaitResponse', 'tap')
    const inputs = await activeAmulets(initiator)
    assert(inputs.length === 2 && inputs.includes(merged.contractId), `${inputs.length} amulets`)
    const cmds = Array.from({ length: RACERS }, (_, i) => mergeCommand(initiator.party, i % 2 ? [...inputs].reverse() : inputs))
    // open a connection per racer first, so that they start together
    await Promise.all(cmds.map(() => initiator.client.get('/v2/state/ledger-end')))
    const rs = await Promise.all(cmds.map((c) => post(initiator.client, '/v2/commands/submit-and-wait', c)))
    const won = rs.filter((r) => r.error === undefined)
    assert(won.length === 1, `${won.length} committed; statuses ${rs.map((r) => r.status)}`)
    checkSchema('SubmitAndWaitResponse', won[0].data)
    race.winner = cmds[rs.indexOf(won[0])].commandId
    const statusOf = { LOCAL_VERDICT_LOCKED_CONTRACTS: 409, LOCAL_VERDICT_INACTIVE_CONTRACTS: 404, CONTRACT_NOT_FOUND: 404 }
    rs.forEach((r, i) => {
        if (r.error === undefined) return
        const e = refused(r, statusOf[r.error?.code] ?? 0, Object.keys(statusOf), `racer ${i}`)
        race.losers.push({ code: e.code, commandId: cmds[i].commandId })
    })
    // nothing of the losers applied: one amulet, the winner's change
    const after = await activeAmulets(initiator)
    const change = exercisedOf(await transactionById(initiator.client, initiator.party, won[0].data.updateId, 'TRANSACTION_SHAPE_LEDGER_EFFECTS'))
        .find((e) => e.choice === 'AmuletRules_Transfer')?.exerciseResult?.senderChangeAmulet
    assert(after.length === 1 && after[0] === change, `active amulets ${show(after, 200)}, the winner's change ${change}`)
    return `losers: ${race.losers.map((l) => l.code).join(', ')}`
})

// ---------------------------------------------------------------- completions
// The client's awaitCompletion reads POST /v2/commands/completions from an
// offset until the command's completion comes; it throws the completion's
// status when that is not OK. Bounded here: it retries forever.
const completion = (who, commandIdOrSubmissionId) =>
    promiseWithTimeout(awaitCompletion(who.client, endBefore, who.party, who.userId, commandIdOrSubmissionId), 10000, `no completion for ${commandIdOrSubmissionId} within 10 s`)

await check('MUST', 'async/submit, then awaitCompletion (POST /v2/commands/completions): the accepted completion, read back by transaction-by-id', async () => {
    const cmd = commands(initiator.party, [createPing(initiator.party, responder.party)], { submissionId: commandId('sub') })
    const r = await post(initiator.client, '/v2/commands/async/submit', cmd)
    assert(r.error === undefined && r.status === 200, `${r.status} ${show(r.error, 300)}`)
    const c = await completion(initiator, cmd.commandId)
    checkSchema('Completion1', c, 'completion')
    assert(c.commandId === cmd.commandId && c.submissionId === cmd.submissionId && c.actAs.includes(initiator.party), show(c, 300))
    assert(typeof c.updateId === 'string' && c.offset > endBefore, show(c, 300))
    const tx = await transactionById(initiator.client, initiator.party, c.updateId)
    assert(tx.commandId === cmd.commandId && createdOf(tx)[0]?.templateId.endsWith(':Canton.Internal.Ping:Ping'), show(tx, 300))
    return `offset ${c.offset}`
})

await check('MUST', "awaitCompletion of the submit-and-wait Ping: accepted at its completionOffset with its updateId", async () => {
    const c = await completion(initiator, pingCommand.commandId)
    checkSchema('Completion1', c, 'completion')
    assert(c.updateId === ping.updateId && c.offset === ping.completionOffset, show(c, 300))
})

// who's completions since the script began, read with POST
// /v2/commands/completions (bounded by its idle timeout)
async function completionsOf(who) {
    const r = await post(who.client, '/v2/commands/completions',
        { userId: who.userId, parties: [who.party], beginExclusive: endBefore },
        { limit: 1000, stream_idle_timeout_ms: 300 })
    assert(r.error === undefined && Array.isArray(r.data), `completions: ${r.status} ${show(r.error ?? r.data, 300)}`)
    r.data.forEach((x, j) => checkSchema('CompletionStreamResponse', x, `completions[${j}]`))
    return r.data.map((x) => x.completionResponse?.Completion?.value).filter(Boolean)
}

await check('MUST', "the Ping command's completions, in order: accepted, DUPLICATE_COMMAND twice (gRPC 6, its ErrorInfo naming the code), accepted outside the deduplication offset", async () => {
    const cs = (await completionsOf(initiator)).filter((c) => c.commandId === pingCommand.commandId)
    const got = cs.map((c) => (c.status?.code ?? 0) === 0 ? 'accepted' : c.status.code)
    assert(show(got) === show(['accepted', 6, 6, 'accepted']), `completions ${show(got)}`)
    assert(cs[0].updateId === ping.updateId && cs[0].offset === ping.completionOffset, show(cs[0], 300))
    const reason = cs[1].status.details?.find((d) => d.typeUrl.endsWith('google.rpc.ErrorInfo'))
    assert(reason && cs[1].status.message.startsWith('DUPLICATE_COMMAND'), show(cs[1].status, 300))
    return cs[1].status.message.slice(0, 80)
})

await check('MUST', "the race's completions (POST /v2/commands/completions): the winner's accepted, each LOCAL_VERDICT_… loser's rejected with its gRPC status, none for a loser refused at interpretation; awaitCompletion throws a loser's reason", async () => {
    const byCommand = new Map((await completionsOf(initiator)).map((c) => [c.commandId, c]))
    const won = byCommand.get(race.winner)
    assert(won && (won.status?.code ?? 0) === 0 && won.updateId, `the winner's completion ${show(won, 300)}`)
    const grpcOf = { LOCAL_VERDICT_LOCKED_CONTRACTS: 10, LOCAL_VERDICT_INACTIVE_CONTRACTS: 5 }
    for (const l of race.losers) {
        const c = byCommand.get(l.commandId)
        if (l.code === 'CONTRACT_NOT_FOUND') {
            assert(!c, `a completion for a command refused at interpretation: ${show(c, 300)}`)
            continue
        }
        assert(c && c.status?.code === grpcOf[l.code] && !c.updateId, `${l.code}'s completion ${show(c, 300)}`)
    }
    const sequenced = race.losers.filter((l) => l.code !== 'CONTRACT_NOT_FOUND')
    if (sequenced.length === 0) return 'no loser reached the sequencer this time: no rejected completion to read'
    // awaitCompletion of one loser of each code
    const threw = []
    for (const code of new Set(sequenced.map((l) => l.code))) {
        const l = sequenced.find((x) => x.code === code)
        const e = await completion(initiator, l.commandId).then(
            (c) => { throw new Error(`accepted: ${show(c, 200)}`) },
            (e) => e,
        )
        assert(e?.errorInfo?.reason === code, `awaitCompletion of a ${code} loser threw ${show(e, 600)}`)
        threw.push(code)
    }
    return `${sequenced.length} rejected completions; awaitCompletion threw ${threw.join(', ')}`
})

// ---------------------------------------------------------------- report
report('ledger API answers vs core-ledger-client-types openapi-3.5.1.d.ts')
