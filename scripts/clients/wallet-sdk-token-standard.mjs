// Drives a running sandnet through the wallet SDK's token-standard flows
// (@canton-network/wallet-sdk 1.4.0) with external parties the SDK makes and
// signs for (sdk.keys.generate, party.external.create, ledger.prepare → sign
// → execute), each funded with the SDK's amulet.tap:
//
// - two-step transfers to a party without a transfer pre-approval: the
//   registry answers transferKind "offer", the receiver lists its pending
//   instructions (token.transfer.pending) and accepts one
//   (choice-contexts/accept, TransferInstruction_Accept), rejects another;
//   the sender withdraws a third, and lets a fourth expire (the DSO's
//   automation hands the amount back); balances (token.utxos.list) after
//   each, and what the SDK's transaction parser makes of them;
// - a pre-approval: the SDK's TransferPreapprovalProposal signed by the
//   receiver, accepted by the validator's automation, read through the
//   scan-proxy (amulet.preapproval.fetchStatus), then a transfer that is
//   "direct"; renewed (amulet.preapproval.renew, as the provider) and
//   cancelled (amulet.preapproval.command.cancel, signed by the receiver);
// - self transfers: token.utxos.merge and a split, both "self";
// - the exchange flows of the token standard's integration guide: a
//   one-step deposit and withdrawal read back with the SDK's transaction
//   parser (token.holdings over the range: TransferIn / TransferOut labels,
//   the reason the sender gave) and the SDK's update stream, and a
//   multi-step deposit accepted;
// - every party's whole history parsed by the SDK, adding up to its
//   holdings; the README's wallet-SDK example run as written;
// - allocations (token.allocation.*): one made by alice for a trade bob
//   settles, listed pending and withdrawn, and self allocations executed
//   and cancelled;
// - the validator's external-party API: bob's pre-approval set up
//   (setup-proposal, prepare-accept, signed, submit-accept) and a send
//   from him (prepare-send, signed, submit-send) that the validator's
//   automation completes, followed on Scan's transfer-command status;
// - the wallet's token-standard transfers, listed as the sender's user.
//
// The registry's transferKind is not handed back by the SDK (it keeps only
// the choice context): the script records the transfer-factory answers the
// SDK fetches, through a wrapper of the global fetch it calls.
//
// Environment: SANDNET_URL, SANDNET_AUTH_SECRET (the SDK signs its own
// tokens with it, its `self_signed` auth) and ADMIN_TOKEN (a `sandnet
// token` for participant_admin: the script reads sandnet's ledger clock
// with it, to set an expiry the ledger will see pass), ALICE_TOKEN (alice's,
// for a wallet endpoint). The SDK's user is
// participant_admin, sandnet's validator operator user (LocalNet's
// ledger-api-user): allocating external parties needs ParticipantAdmin, and
// the SDK renews a pre-approval as the provider. run.sh sets them.
// Each check is MUST (a GAP would name an endpoint sandnet does not serve
// yet; there are none now).

import { SDK, signTransactionHash } from '@canton-network/wallet-sdk'
import Decimal from 'decimal.js'
import { execFile } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { assert, check, rejection, report, schemaChecker, show } from './lib.mjs'
import { collect, logAdapter, quiet, selfSigned } from './wallet-sdk-lib.mjs'

const BASE = process.env.SANDNET_URL
if (!BASE || !process.env.SANDNET_AUTH_SECRET || !process.env.ADMIN_TOKEN || !process.env.ALICE_TOKEN) {
    console.error('set SANDNET_URL, SANDNET_AUTH_SECRET, ADMIN_TOKEN and ALICE_TOKEN (run.sh does)')
    process.exit(2)
}
const ROOT = BASE.replace(/\/$/, '')
const VALIDATOR = `${ROOT}/api/validator`
// the registry as the SDK reaches it on LocalNet: through the validator's scan-proxy
const REGISTRY = new URL(`${VALIDATOR}/v0/scan-proxy`)
const REASON = 'splice.lfdecentralizedtrust.org/reason'
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding'
const TRANSFER_INSTRUCTION = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction'

// The registry answers the SDK fetched (its openapi-fetch clients call the
// global fetch with a Request) are checked against the token standard's
// own types (core-token-standard's transfer-instruction-v1), and the
// transfer-factory ones kept, newest last, for their transferKind; the
// ledger's answers to executeAndWait against core-ledger-client-types.
const checkRegistry = schemaChecker('@canton-network/core-token-standard', 'splice-api-token-transfer-instruction-v1/transfer-instruction-v1.d.ts', 'ti')
const checkLedger = schemaChecker('@canton-network/core-ledger-client-types', 'openapi-3.5.1.d.ts', 'ledger')
const checkAllocationFactory = schemaChecker('@canton-network/core-token-standard', 'splice-api-token-allocation-instruction-v1/allocation-instruction-v1.d.ts', 'ai')
const checkAllocation = schemaChecker('@canton-network/core-token-standard', 'splice-api-token-allocation-v1/allocation-v1.d.ts', 'alloc')
let allocationAnswers = 0
const factoryAnswers = []
let contextAnswers = 0
const realFetch = globalThis.fetch
globalThis.fetch = async (input, init) => {
    const res = await realFetch(input, init)
    const url = new URL(typeof input === 'string' ? input : (input?.url ?? String(input))).pathname
    if (!res.ok) return res
    if (url.endsWith('/registry/transfer-instruction/v1/transfer-factory')) {
        const body = await res.clone().json()
        checkRegistry('TransferFactoryWithChoiceContext', body, 'transfer-factory')
        factoryAnswers.push(body)
    } else if (/\/registry\/transfer-instruction\/v1\/[^/]+\/choice-contexts\/(accept|reject|withdraw)$/.test(url)) {
        checkRegistry('ChoiceContext', await res.clone().json(), url.replace(/.*\/v1\/[^/]+/, 'v1/{id}'))
        contextAnswers++
    } else if (url.endsWith('/registry/allocation-instruction/v1/allocation-factory')) {
        checkAllocationFactory('FactoryWithChoiceContext', await res.clone().json(), 'allocation-factory')
        allocationAnswers++
    } else if (/\/registry\/allocations\/v1\/[^/]+\/choice-contexts\/(execute-transfer|withdraw|cancel)$/.test(url)) {
        checkAllocation('ChoiceContext', await res.clone().json(), url.replace(/.*\/v1\/[^/]+/, 'allocations/{id}'))
        allocationAnswers++
    } else if (url.endsWith('/v2/interactive-submission/executeAndWait')) {
        checkLedger('ExecuteSubmissionAndWaitResponse', await res.clone().json(), 'executeAndWait')
    }
    return res
}
const lastKind = () => factoryAnswers.at(-1)?.transferKind

let sdk, token, amulet
// ---------------------------------------------------------------- connect
await check('MUST', 'SDK.create as participant_admin, extend({token, amulet}) with the scan-proxy as registry and the validator URL', async () => {
    sdk = quiet(await SDK.create({ auth: selfSigned('participant_admin'), ledgerClientUrl: BASE, logAdapter }))
    const ext = quiet(await sdk.extend({
        token: { auth: selfSigned('participant_admin'), registries: [REGISTRY], validatorUrl: VALIDATOR },
        amulet: { auth: selfSigned('participant_admin'), scanApiUrl: `${ROOT}/api/scan`, validatorUrl: VALIDATOR, registryUrl: REGISTRY },
    }))
    token = ext.token
    amulet = ext.amulet
    assert(token && amulet, 'namespaces missing')
})
if (!token) report('the wallet SDK token-standard flows')

// ---------------------------------------------------------------- helpers
// an external party: a key pair the script holds, the party allocated by
// the SDK (generate-topology, signed, allocate)
async function newParty(hint) {
    const keys = sdk.keys.generate()
    const p = await sdk.party.external.create(keys.publicKey, { partyHint: `${hint}-${Date.now()}` }).sign(keys.privateKey).execute()
    return { id: p.partyId, keys, name: hint }
}
// a PreparedCommand ([command(s), disclosed contracts]) prepared as who,
// signed with its key and executed (executeAndWait)
async function submit(who, [commands, disclosedContracts]) {
    return await sdk.ledger.prepare({ partyId: who.id, commands, disclosedContracts }).sign(who.keys.privateKey).execute({ partyId: who.id })
}
// who's unlocked Amulet balance, from the SDK's Holding list
async function balance(who) {
    const hs = await token.utxos.list({ partyId: who.id })
    for (const h of hs) assert(h.interfaceViewValue.owner === who.id && h.interfaceViewValue.instrumentId.id === 'Amulet', show(h, 300))
    return hs.reduce((a, h) => a.plus(h.interfaceViewValue.amount), new Decimal(0))
}
const transfer = (from, to, amount, memo, inputUtxos, meta) =>
    token.transfer.create({ sender: from.id, recipient: to.id, amount, instrumentId: 'Amulet', registryUrl: REGISTRY, memo, inputUtxos, meta })
// a metadata entry of the wallet's own, besides the SDK's reason
const INVOICE = 'example.com/invoice'
// the pending instruction from → to with memo, as to lists them
async function pendingFor(to, memo) {
    const all = await token.transfer.pending(to.id)
    return all.filter((c) => c.interfaceViewValue?.transfer?.meta?.values?.[REASON] === memo)
}
// the SDK's parsed transactions of who between two offsets
async function parsed(who, afterOffset, beforeOffset) {
    return (await token.holdings({ partyId: who.id, afterOffset, beforeOffset })).transactions
}
const labels = (txs) => txs.flatMap((t) => t.events.map((e) => e.label))
// Amounts are compared exactly: splice-amulet 0.1.22 charges no transfer
// fee (CIP-78), and a holding's view keeps its initial amount.

// ---------------------------------------------------------------- parties, taps
let alice, bob, treasury
await check('MUST', 'three external parties (keys.generate, party.external.create … sign … execute): a sender, a receiver without pre-approval, an exchange treasury', async () => {
    alice = await newParty('ts-alice')
    bob = await newParty('ts-bob')
    treasury = await newParty('ts-treasury')
    return [alice, bob, treasury].map((p) => p.id.slice(0, 24) + '…').join(', ')
})
if (!alice) report('the wallet SDK token-standard flows')

await check('MUST', 'amulet.tap(party, amount) signed by each party (AmuletRules_DevNet_Tap, the registry\'s disclosed contracts): their balances (token.utxos.list)', async () => {
    await submit(alice, await amulet.tap(alice.id, '1000'))
    await submit(bob, await amulet.tap(bob.id, '100'))
    await submit(treasury, await amulet.tap(treasury.id, '500'))
    const [a, b, t] = [await balance(alice), await balance(bob), await balance(treasury)]
    assert(a.eq(1000) && b.eq(100) && t.eq(500), `${a} ${b} ${t}`)
    return `${a}, ${b}, ${t}`
})

// ---------------------------------------------------------------- two-step transfers
let offerCid, twoStepStart, twoStepEnd
await check('MUST', 'token.transfer.create alice → bob (no pre-approval), signed and executed: transferKind "offer"; the amount is locked, bob\'s balance unchanged', async () => {
    twoStepStart = await sdk.ledger.ledgerEnd()
    const before = await balance(alice)
    await submit(alice, await transfer(alice, bob, '20', 'offer-accept', undefined, { values: { [INVOICE]: 'INV-7' } }))
    assert(lastKind() === 'offer', `transferKind ${lastKind()}`)
    const after = await balance(alice)
    assert(before.minus(after).gte(20), `alice ${before} → ${after}`)
    assert((await balance(bob)).eq(100), 'bob changed')
    const locked = (await token.utxos.list({ partyId: alice.id, includeLocked: true })).filter((h) => h.interfaceViewValue.lock)
    assert(locked.length === 1 && new Decimal(locked[0].interfaceViewValue.amount).eq(20), show(locked, 400))
    return `alice ${before} → ${after}, 20 locked`
})

await check('MUST', "token.transfer.pending(bob): the instruction, its view (sender, receiver, amount, reason and the wallet's own metadata, status Pending)", async () => {
    const p = await pendingFor(bob, 'offer-accept')
    assert(p.length === 1, show(await token.transfer.pending(bob.id), 400))
    const v = p[0].interfaceViewValue
    assert(v.transfer.sender === alice.id && v.transfer.receiver === bob.id && new Decimal(v.transfer.amount).eq(20), show(v, 400))
    assert(v.status?.tag === 'TransferPendingReceiverAcceptance', show(v.status, 200))
    assert(v.transfer.meta.values[INVOICE] === 'INV-7', show(v.transfer.meta, 200))
    offerCid = p[0].contractId
    // the sender sees it too
    assert((await pendingFor(alice, 'offer-accept')).length === 1, 'not pending for alice')
    return `${offerCid.slice(0, 16)}…`
})

await check('MUST', 'the same instruction rejected by alice, the sender (TransferInstruction_Reject is the receiver\'s): refused with a JsCantonError (DAML_AUTHORIZATION_ERROR), still pending', async () => {
    assert(offerCid, 'no instruction')
    const e = await rejection(submit(alice, await token.transfer.reject({ transferInstructionCid: offerCid, registryUrl: REGISTRY })))
    checkLedger('JsCantonError', e, 'reject by the sender')
    assert(e.code === 'DAML_AUTHORIZATION_ERROR' && e.grpcCodeValue === 3, show(e, 400))
    assert((await pendingFor(bob, 'offer-accept')).length === 1, 'no longer pending')
    return e.cause?.slice(0, 100)
})

let acceptUpdate
await check('MUST', 'token.transfer.accept (choice-contexts/accept, TransferInstruction_Accept) signed by bob: bob +20, nothing pending', async () => {
    assert(offerCid, 'no instruction')
    acceptUpdate = (await submit(bob, await token.transfer.accept({ transferInstructionCid: offerCid, registryUrl: REGISTRY }))).updateId
    const b = await balance(bob)
    assert(b.eq(120), `bob ${b}`)
    assert((await pendingFor(bob, 'offer-accept')).length === 0, 'still pending')
    const locked = (await token.utxos.list({ partyId: alice.id, includeLocked: true })).filter((h) => h.interfaceViewValue.lock)
    assert(locked.length === 0, `alice still has locked holdings ${show(locked, 300)}`)
    return `bob ${b}`
})

await check('MUST', 'an offer alice → bob rejected by bob (choice-contexts/reject, TransferInstruction_Reject): alice gets the 15 back, bob unchanged', async () => {
    const a0 = await balance(alice)
    await submit(alice, await transfer(alice, bob, '15', 'offer-reject'))
    assert(lastKind() === 'offer', `transferKind ${lastKind()}`)
    const [p] = await pendingFor(bob, 'offer-reject')
    assert(p, 'not pending')
    await submit(bob, await token.transfer.reject({ transferInstructionCid: p.contractId, registryUrl: REGISTRY }))
    assert((await pendingFor(bob, 'offer-reject')).length === 0, 'still pending')
    const [a, b] = [await balance(alice), await balance(bob)]
    assert(b.eq(120) && a.eq(a0), `alice ${a0} → ${a}, bob ${b}`)
    return `alice ${a0} → ${a}, bob ${b}`
})

await check('MUST', 'an offer alice → bob withdrawn by alice (choice-contexts/withdraw, TransferInstruction_Withdraw): alice gets the 12 back, bob unchanged', async () => {
    const a0 = await balance(alice)
    await submit(alice, await transfer(alice, bob, '12', 'offer-withdraw'))
    assert(lastKind() === 'offer', `transferKind ${lastKind()}`)
    const [p] = await pendingFor(alice, 'offer-withdraw')
    assert(p, 'not pending')
    await submit(alice, await token.transfer.withdraw({ transferInstructionCid: p.contractId, registryUrl: REGISTRY }))
    assert((await pendingFor(bob, 'offer-withdraw')).length === 0, 'still pending')
    const [a, b] = [await balance(alice), await balance(bob)]
    assert(b.eq(120) && a.eq(a0), `alice ${a0} → ${a}, bob ${b}`)
    twoStepEnd = await sdk.ledger.ledgerEnd()
    return `alice ${a0} → ${a}, bob ${b}`
})

// What the SDK's parser makes of the six transactions (three offers, an
// accept, a reject, a withdrawal): it reads each instruction's create back
// with events-by-contract-id, and its status from the choice's result tag.
const summary = (txs) => txs.flatMap((t) => t.events).map((e) => ({
    type: e.label.type,
    choice: e.label.tokenStandardChoice?.name ?? null,
    reason: e.label.reason,
    status: e.transferInstruction?.status?.current?.tag ?? null,
    correlation: e.transferInstruction?.multiStepCorrelationId ?? null,
    locked: e.lockedHoldingsChangeSummaries.map((x) => x.amountChange).join(),
    unlocked: e.unlockedHoldingsChangeSummaries.map((x) => x.amountChange).join(),
}))
await check('MUST', "the two-step transfers parsed by the SDK for alice (token.holdings over their range): offers Pending (the amount locked), the accept a TransferOut Completed, the reject and the withdrawal Failed (unlocked back)", async () => {
    const got = summary(await parsed(alice, twoStepStart, twoStepEnd))
    const want = [
        ['MergeSplit', 'TransferFactory_Transfer', 'offer-accept', 'Pending'],
        ['TransferOut', 'TransferInstruction_Accept', 'offer-accept', 'Completed'],
        ['MergeSplit', 'TransferFactory_Transfer', 'offer-reject', 'Pending'],
        ['MergeSplit', 'TransferInstruction_Reject', null, 'Failed'],
        ['MergeSplit', 'TransferFactory_Transfer', 'offer-withdraw', 'Pending'],
        ['MergeSplit', 'TransferInstruction_Withdraw', null, 'Failed'],
    ]
    assert(show(got.map((g) => [g.type, g.choice, g.reason, g.status]), 2000) === show(want, 2000), show(got, 2000))
    // an offer locks the amount out of alice's unlocked holdings; the accept
    // spends the lock; a reject or withdrawal hands it back unlocked (their
    // results carry no meta, so no reason, as Splice's)
    const amounts = got.map((g) => [g.locked, g.unlocked])
    assert(show(amounts) === show([['20', '-20'], ['-20', ''], ['15', '-15'], ['-15', '15'], ['12', '-12'], ['-12', '12']]), show(amounts))
    // an offer and what settles it share the instruction as correlation id
    assert(got[0].correlation === offerCid && got[1].correlation === offerCid, show(got.map((g) => g.correlation), 400))
    return got.map((g) => `${g.type}/${g.status}`).join(', ')
})

await check('MUST', "the two-step transfers parsed by the SDK for bob: one event, the accept, a TransferIn from alice, Completed, with the wallet's metadata (the parser leaves out what changes none of his holdings: the offers, his reject)", async () => {
    const txs = await parsed(bob, twoStepStart, twoStepEnd)
    const got = summary(txs)
    const ins = got.filter((g) => g.type === 'TransferIn')
    assert(got.length === 1 && ins.length === 1 && ins[0].choice === 'TransferInstruction_Accept' && ins[0].reason === 'offer-accept' && ins[0].status === 'Completed', show(got, 1500))
    const inLabel = labels(txs).find((l) => l.type === 'TransferIn')
    // the instruction's metadata, but for the keys the parser reads itself
    assert(inLabel.sender === alice.id && inLabel.meta?.values?.[INVOICE] === 'INV-7', show(inLabel, 600))
    return got.map((g) => `${g.type}/${g.choice}/${g.status}`).join(', ')
})

await check('MUST', 'token.transactionsById of the accept (POST /v2/updates/transaction-by-id) for bob and for alice: TransferIn and TransferOut, Completed', async () => {
    assert(acceptUpdate, 'no accept')
    const forBob = await token.transactionsById({ updateId: acceptUpdate, partyId: bob.id })
    const forAlice = await token.transactionsById({ updateId: acceptUpdate, partyId: alice.id })
    const b = summary([forBob]), a = summary([forAlice])
    assert(forBob.updateId === acceptUpdate && b.length === 1 && b[0].type === 'TransferIn' && b[0].status === 'Completed', show(b, 400))
    assert(a.length === 1 && a[0].type === 'TransferOut' && a[0].status === 'Completed' && a[0].reason === 'offer-accept', show(a, 400))
})

// ---------------------------------------------------------------- an offer that expires
// The ledger's time (sandnet's clock: the wall clock unless advanced), so
// that an expiry is set relative to what the ledger checks it against.
async function ledgerNow() {
    const r = await realFetch(`${ROOT}/api/sandnet/v0/clock`, { headers: { authorization: `Bearer ${process.env.ADMIN_TOKEN}` } })
    const body = await r.text()
    assert(r.ok, `GET /api/sandnet/v0/clock: ${r.status} ${body}`)
    return new Date(JSON.parse(body).now)
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
let expiring, expiryStart, expiryEnd
await check('MUST', "an offer alice → bob with executeBefore 3 s ahead (expirationDate): once it has passed, the DSO's automation expires it (AmuletRules_Amulet_ExpireTransferInstructions): gone from pending, alice's 7 back, bob's accept then gets the registry's 404", async () => {
    const a0 = await balance(alice)
    expiryStart = await sdk.ledger.ledgerEnd()
    const executeBefore = new Date((await ledgerNow()).getTime() + 3000)
    await submit(alice, await token.transfer.create({ sender: alice.id, recipient: bob.id, amount: '7', instrumentId: 'Amulet', registryUrl: REGISTRY, memo: 'offer-expire', expirationDate: executeBefore }))
    ;[expiring] = await pendingFor(bob, 'offer-expire')
    assert(expiring && new Date(expiring.interfaceViewValue.transfer.executeBefore).getTime() === executeBefore.getTime(), show(expiring, 300))
    assert((await balance(alice)).eq(a0.minus(7)), 'not locked')
    while ((await ledgerNow()) <= executeBefore) await sleep(250)
    const t0 = Date.now()
    while ((await pendingFor(bob, 'offer-expire')).length > 0) {
        assert(Date.now() - t0 < 30000, 'still pending 30 s after its executeBefore')
        await sleep(250)
    }
    expiryEnd = await sdk.ledger.ledgerEnd()
    const a = await balance(alice)
    assert(a.eq(a0), `alice ${a0} → ${a}`)
    const e = await rejection(token.transfer.accept({ transferInstructionCid: expiring.contractId, registryUrl: REGISTRY }))
    assert(show(e, 1000).includes(`AmuletTransferInstruction '${expiring.contractId}' not found.`), show(e, 300))
    return `expired ${Date.now() - t0} ms after its executeBefore; alice ${a}`
})

await check('MUST', "the expiry parsed by the SDK for alice (token.holdings over its range): the offer, then TransferInstruction_Update, Failed, the 7 unlocked back to her", async () => {
    const got = summary(await parsed(alice, expiryStart, expiryEnd))
    // the DSO expires it with the instruction's TransferInstruction_Update
    // (no extra actors), whose result is Failed, as Splice's trigger does
    assert(got.length === 2 && got[0].reason === 'offer-expire' && got[0].locked === '7' && got[1].locked === '-7' && got[1].unlocked === '7', show(got, 1500))
    assert(got[1].choice === 'TransferInstruction_Update' && got[1].status === 'Failed' && got[1].correlation === expiring.contractId, show(got[1], 500))
    return got.map((g) => `${g.type}/${g.choice}/${g.status}`).join(', ')
})

// ---------------------------------------------------------------- pre-approvals
let preapproval
await check('MUST', "amulet.preapproval.command.create (TransferPreapprovalProposal, provider the validator party) signed by the treasury; the validator accepts it; fetchStatus (scan-proxy by-party) finds it", async () => {
    const vparty = (await (await fetch(`${VALIDATOR}/v0/validator-user`)).json()).party_id
    const cmd = await amulet.preapproval.command.create({ parties: { receiver: treasury.id } })
    assert(cmd.CreateCommand.createArguments.provider === vparty, show(cmd, 300))
    await submit(treasury, [cmd, []])
    preapproval = await amulet.preapproval.fetchStatus(treasury.id, { intervalMs: 250, timeoutMs: 30000 })
    assert(preapproval?.contractId && preapproval.expiresAt > new Date(), show(preapproval, 300))
    return `${preapproval.contractId.slice(0, 16)}…, expires ${preapproval.expiresAt.toISOString()}`
})

let depositStart, depositEnd
await check('MUST', 'one-step deposit alice → treasury (pre-approved): transferKind "direct", the treasury +50 at once, nothing pending', async () => {
    depositStart = await sdk.ledger.ledgerEnd()
    await submit(alice, await transfer(alice, treasury, '50', 'deposit-account-7'))
    depositEnd = await sdk.ledger.ledgerEnd()
    assert(lastKind() === 'direct', `transferKind ${lastKind()}`)
    const t = await balance(treasury)
    assert(t.eq(550), `treasury ${t}`)
    assert((await token.transfer.pending(treasury.id)).length === 0, 'pending')
    return `treasury ${t}`
})

await check('MUST', "the deposit parsed by the SDK for the treasury (token.holdings over its range): one TransferIn from alice, 50, reason deposit-account-7", async () => {
    const txs = await parsed(treasury, depositStart, depositEnd)
    const ls = labels(txs)
    const ins = ls.filter((l) => l.type === 'TransferIn')
    assert(txs.length === 1 && ins.length === 1, show(ls, 600))
    assert(ins[0].sender === alice.id && ins[0].reason === 'deposit-account-7', show(ins[0], 600))
    const ev = txs[0].events.find((e) => e.label.type === 'TransferIn')
    const got = ev.unlockedHoldingsChange.creates.filter((h) => h.owner === treasury.id).reduce((a, h) => a.plus(h.amount), new Decimal(0))
    assert(got.eq(50), show(ev.unlockedHoldingsChange, 400))
    assert(txs[0].updateId && txs[0].recordTime && txs[0].synchronizerId, show(txs[0], 200))
    return `update ${txs[0].updateId.slice(0, 16)}…, choice ${ins[0].tokenStandardChoice?.name}`
})

await check('MUST', "the deposit parsed by the SDK for alice: a TransferOut to the treasury, 50, the same reason", async () => {
    const ls = labels(await parsed(alice, depositStart, depositEnd))
    const outs = ls.filter((l) => l.type === 'TransferOut')
    assert(outs.length === 1 && outs[0].reason === 'deposit-account-7', show(ls, 600))
    assert(show(outs[0].receiverAmounts.map((r) => [r.receiver, new Decimal(r.amount).toString()])) === show([[treasury.id, '50']]), show(outs[0].receiverAmounts, 300))
})

await check('MUST', "the exchange's ingestion of the deposit (events.updates, websocket /v2/updates, the Holding interface as the treasury): the deposit's transaction first, a Holding of 50 created for the treasury, with its view", async () => {
    const ext = quiet(await sdk.extend({ events: { auth: selfSigned('participant_admin'), websocketURL: ROOT.replace(/^http/, 'ws') } }))
    const { out } = await collect(ext.events.updates({ partyId: treasury.id, interfaceIds: [HOLDING], beginOffset: depositStart }), { max: 1, ms: 5000 })
    out.forEach((m, j) => checkLedger('JsGetUpdatesResponse', m, `ws[${j}]`))
    const tx = out.map((m) => m.update?.Transaction?.value).find(Boolean)
    assert(tx && tx.offset > depositStart && tx.offset <= depositEnd, show(out, 400))
    const views = tx.events.map((e) => e.CreatedEvent?.interfaceViews?.find((v) => v.interfaceId.endsWith(':Splice.Api.Token.HoldingV1:Holding'))?.viewValue).filter(Boolean)
    assert(views.length === 1 && views[0].owner === treasury.id && new Decimal(views[0].amount).eq(50), show(tx.events, 600))
    return `offset ${tx.offset}, update ${tx.updateId.slice(0, 16)}…`
})

await check('MUST', "amulet.preapproval.renew (TransferPreapproval_Renew, submitted by the SDK as the provider), then fetchStatus with the old id: a new contract, a later expiry", async () => {
    assert(preapproval, 'no pre-approval')
    const expiresAt = new Date(preapproval.expiresAt.getTime() + 10 * 24 * 3600e3)
    const r = await amulet.preapproval.renew({ parties: { receiver: treasury.id }, expiresAt })
    assert(r?.updateId, show(r, 200))
    const renewed = await amulet.preapproval.fetchStatus(treasury.id, { oldCid: preapproval.contractId, intervalMs: 250, timeoutMs: 30000 })
    assert(renewed.contractId !== preapproval.contractId && renewed.expiresAt.getTime() === expiresAt.getTime(), show(renewed, 300))
    preapproval = renewed
    return `expires ${renewed.expiresAt.toISOString()}`
})

let withdrawStart, withdrawEnd
await check('MUST', 'one-step withdrawal treasury → alice (alice pre-approved first, as a customer must be): transferKind "direct", alice +30', async () => {
    await submit(alice, [await amulet.preapproval.command.create({ parties: { receiver: alice.id } }), []])
    await amulet.preapproval.fetchStatus(alice.id, { intervalMs: 250, timeoutMs: 30000 })
    const a0 = await balance(alice)
    withdrawStart = await sdk.ledger.ledgerEnd()
    await submit(treasury, await transfer(treasury, alice, '30', 'withdrawal-42'))
    withdrawEnd = await sdk.ledger.ledgerEnd()
    assert(lastKind() === 'direct', `transferKind ${lastKind()}`)
    const a = await balance(alice)
    assert(a.minus(a0).eq(30), `alice ${a0} → ${a}`)
    return `alice ${a0} → ${a}`
})

await check('MUST', 'the withdrawal parsed by the SDK: the treasury\'s TransferOut (to alice, 30, reason withdrawal-42), alice\'s TransferIn (from the treasury, same reason)', async () => {
    const out = labels(await parsed(treasury, withdrawStart, withdrawEnd)).filter((l) => l.type === 'TransferOut')
    assert(out.length === 1 && out[0].reason === 'withdrawal-42' && out[0].receiverAmounts[0]?.receiver === alice.id, show(out, 600))
    const ins = labels(await parsed(alice, withdrawStart, withdrawEnd)).filter((l) => l.type === 'TransferIn')
    assert(ins.length === 1 && ins[0].reason === 'withdrawal-42' && ins[0].sender === treasury.id, show(ins, 600))
})

await check('MUST', 'amulet.preapproval.command.cancel (TransferPreapproval_Cancel) signed by the treasury; fetchStatus(cancelled): gone', async () => {
    const [cmd, dc] = await amulet.preapproval.command.cancel({ parties: { receiver: treasury.id } })
    assert(cmd, 'no cancel command')
    await submit(treasury, [cmd, dc])
    const r = await amulet.preapproval.fetchStatus(treasury.id, { cancelled: true, intervalMs: 250, timeoutMs: 30000 })
    assert(r === null, show(r, 200))
    assert((await amulet.preapproval.fetchQuick(treasury.id)) == null, 'still found')
})

// ---------------------------------------------------------------- multi-step deposit
let multiStart, multiEnd
await check('MUST', 'multi-step deposit alice → treasury (no pre-approval now): "offer"; the treasury sees the instruction arrive on its update stream (events.updates, TransferInstruction interface), reads amount and reason from the pending view and accepts; its parsed TransferIn', async () => {
    const offerStart = await sdk.ledger.ledgerEnd()
    await submit(alice, await transfer(alice, treasury, '40', 'deposit-account-8'))
    assert(lastKind() === 'offer', `transferKind ${lastKind()}`)
    // what an exchange's ingestion sees: the instruction's create, with its view
    const ext = quiet(await sdk.extend({ events: { auth: selfSigned('participant_admin'), websocketURL: ROOT.replace(/^http/, 'ws') } }))
    const { out } = await collect(ext.events.updates({ partyId: treasury.id, interfaceIds: [TRANSFER_INSTRUCTION], beginOffset: offerStart }), { max: 1, ms: 5000 })
    out.forEach((m, j) => checkLedger('JsGetUpdatesResponse', m, `ws[${j}]`))
    const tx = out.map((m) => m.update?.Transaction?.value).find(Boolean)
    const arrived = tx?.events.map((e) => e.CreatedEvent?.interfaceViews?.find((x) => x.interfaceId.endsWith(':Splice.Api.Token.TransferInstructionV1:TransferInstruction'))?.viewValue).filter(Boolean) ?? []
    assert(arrived.length === 1 && arrived[0].transfer.receiver === treasury.id && arrived[0].transfer.meta.values[REASON] === 'deposit-account-8', show(out, 600))
    const all = await token.transfer.pending(treasury.id)
    const mine = all.filter((c) => c.interfaceViewValue.transfer.receiver === treasury.id)
    assert(mine.length === 1, show(all, 400))
    const v = mine[0].interfaceViewValue.transfer
    assert(new Decimal(v.amount).eq(40) && v.meta.values[REASON] === 'deposit-account-8' && v.instrumentId.id === 'Amulet', show(v, 400))
    const t0 = await balance(treasury)
    multiStart = await sdk.ledger.ledgerEnd()
    await submit(treasury, await token.transfer.accept({ transferInstructionCid: mine[0].contractId, registryUrl: REGISTRY }))
    multiEnd = await sdk.ledger.ledgerEnd()
    const t = await balance(treasury)
    assert(t.minus(t0).eq(40), `treasury ${t0} → ${t}`)
    const ins = labels(await parsed(treasury, multiStart, multiEnd)).filter((l) => l.type === 'TransferIn')
    assert(ins.length === 1 && ins[0].sender === alice.id && ins[0].reason === 'deposit-account-8', show(labels(await parsed(treasury, multiStart, multiEnd)), 600))
    return `treasury ${t0} → ${t}, choice ${ins[0].tokenStandardChoice?.name}`
})

// ---------------------------------------------------------------- self transfers
await check('MUST', 'a split (token.transfer.create alice → alice, 5, one input): transferKind "self", balance unchanged, one more holding', async () => {
    const hs = await token.utxos.list({ partyId: alice.id })
    const a0 = await balance(alice)
    const big = hs.reduce((m, h) => (new Decimal(h.interfaceViewValue.amount).gt(m.interfaceViewValue.amount) ? h : m))
    await submit(alice, await transfer(alice, alice, '5', 'split', [big.contractId]))
    assert(lastKind() === 'self', `transferKind ${lastKind()}`)
    const after = await token.utxos.list({ partyId: alice.id })
    const a = await balance(alice)
    assert(after.length === hs.length + 1 && a.eq(a0), `${hs.length} → ${after.length} holdings, ${a0} → ${a}`)
    return `${hs.length} → ${after.length} holdings`
})

await check('MUST', 'token.utxos.merge(alice) (a self transfer of all her holdings): transferKind "self", one holding, the same balance; the SDK parses it as a MergeSplit', async () => {
    const hs = await token.utxos.list({ partyId: alice.id })
    const a0 = await balance(alice)
    const [cmds, dc] = await token.utxos.merge({ partyId: alice.id })
    assert(cmds.length === 1, `${cmds.length} commands`)
    assert(lastKind() === 'self', `transferKind ${lastKind()}`)
    const start = await sdk.ledger.ledgerEnd()
    await submit(alice, [cmds[0], dc])
    const end = await sdk.ledger.ledgerEnd()
    const after = await token.utxos.list({ partyId: alice.id })
    const a = await balance(alice)
    assert(after.length === 1 && a.eq(a0), `${hs.length} → ${after.length} holdings, ${a0} → ${a}`)
    const ls = labels(await parsed(alice, start, end))
    assert(ls.length === 1 && ls[0].type === 'MergeSplit' && ls[0].reason === 'merge-utxos', show(ls, 600))
    return `${hs.length} → 1 holdings, ${a}`
})

// ---------------------------------------------------------------- whole histories
// Everything each party saw (taps, offers, settlements, the pre-approval's
// create, renewal and cancellation, the merge) parsed by the SDK from the
// start: nothing it cannot classify, and the unlocked and locked changes add
// up to the party's holdings now.
for (const who of ['alice', 'bob', 'treasury']) {
    await check('MUST', `token.holdings(${who}) over the whole history: every transaction parsed, the changes sum to the holdings now`, async () => {
        const p = { alice, bob, treasury }[who]
        const txs = (await token.holdings({ partyId: p.id })).transactions
        const evs = txs.flatMap((t) => t.events)
        const raw = evs.filter((e) => e.label.type === 'Archive' || e.label.type === 'Create')
        // the parser leaves out an amountChange of 0
        const sum = (k) => evs.flatMap((e) => e[k]).reduce((a, x) => a.plus(x.amountChange ?? 0), new Decimal(0))
        const hs = await token.utxos.list({ partyId: p.id, includeLocked: true })
        const unlocked = hs.filter((h) => !h.interfaceViewValue.lock).reduce((a, h) => a.plus(h.interfaceViewValue.amount), new Decimal(0))
        const locked = hs.filter((h) => h.interfaceViewValue.lock).reduce((a, h) => a.plus(h.interfaceViewValue.amount), new Decimal(0))
        assert(sum('unlockedHoldingsChangeSummaries').eq(unlocked) && sum('lockedHoldingsChangeSummaries').eq(locked),
            `parsed ${sum('unlockedHoldingsChangeSummaries')} unlocked, ${sum('lockedHoldingsChangeSummaries')} locked; holdings ${unlocked}, ${locked}`)
        const kinds = [...new Set(evs.map((e) => e.label.type))].join(', ')
        return `${txs.length} transactions (${kinds}${raw.length ? `; ${raw.length} raw` : ''}), ${unlocked} unlocked`
    })
}

await check('MUST', 'the registry answers the SDK fetched: transfer factories and choice contexts, against the token standard\'s types', async () => {
    assert(factoryAnswers.length >= 10 && contextAnswers >= 5, `${factoryAnswers.length} factories, ${contextAnswers} contexts`)
    return `${factoryAnswers.length} factories (${[...new Set(factoryAnswers.map((f) => f.transferKind))].join(', ')}), ${contextAnswers} contexts`
})

// ---------------------------------------------------------------- the README's example
// The README's wallet-SDK example (its ```js block) is run as written, from
// this directory (where the SDK is installed), so that it keeps working.
await check('MUST', "the README's wallet-SDK token-standard example, run as written: bob's holdings are the 20 he accepted", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => b.includes('@canton-network/wallet-sdk'))
    assert(blocks.length === 1, `${blocks.length} wallet-SDK js blocks in the README`)
    const file = new URL('./.readme-example.tmp.mjs', import.meta.url)
    writeFileSync(file, blocks[0])
    try {
        const { stdout } = await promisify(execFile)(process.execPath, [...process.execArgv, file.pathname], { env: process.env, timeout: 60000 })
        // its line among the SDK's own log lines, which its logger writes
        // asynchronously (some may come after it)
        assert(stdout.split('\n').includes("[ '20.0000000000' ]"), stdout.slice(-600))
    } finally {
        rmSync(file, { force: true })
    }
})

// ---------------------------------------------------------------- allocations
// The SDK's allocation flows (token.allocation.*) through the registry's
// allocation-factory and allocation choice contexts: an allocation for a
// trade settled by an executor, made by an external sender, listed pending
// and withdrawn. Executing or cancelling one needs the executor, the sender
// and the receiver (the token standard's allocationControllers) in one
// submission; the SDK's prepare takes one party, so an external party can
// execute only an allocation in which it is all three: a self allocation,
// executed below.
let asset
function allocationSpec(sender, receiver, executor, amount, ref) {
    const now = Date.now()
    return {
        settlement: {
            executor: executor.id,
            settlementRef: { id: ref, cid: null },
            requestedAt: new Date(now - 60e3).toISOString(),
            allocateBefore: new Date(now + 3600e3).toISOString(),
            settleBefore: new Date(now + 7200e3).toISOString(),
            meta: { values: {} },
        },
        transferLegId: 'leg-0',
        transferLeg: { sender: sender.id, receiver: receiver.id, amount, instrumentId: { admin: asset.admin, id: asset.id }, meta: { values: {} } },
    }
}
const allocationsOf = async (who, ref) => (await token.allocation.pending(who.id)).filter((c) => c.interfaceViewValue.allocation.settlement.settlementRef.id === ref)
const lockedOf = async (who) => (await token.utxos.list({ partyId: who.id, includeLocked: true })).filter((h) => h.interfaceViewValue.lock)

let allocation
await check('MUST', 'token.allocation.instruction.create (POST /registry/allocation-instruction/v1/allocation-factory, AllocationFactory_Allocate) alice → bob, executor bob, signed by alice: her allocation pending (token.allocation.pending), for bob, the executor, too; the 3 locked', async () => {
    asset = await (await sdk.extend({ asset: { auth: selfSigned('participant_admin'), registries: [REGISTRY] } })).asset.find('Amulet', REGISTRY)
    const a0 = await balance(alice)
    const allocStart = await sdk.ledger.ledgerEnd()
    const ref = `trade-${Date.now()}`
    await submit(alice, await token.allocation.instruction.create({ allocationSpecification: allocationSpec(alice, bob, bob, '3', ref), asset }))
    const p = await allocationsOf(alice, ref)
    assert(p.length === 1, show(await token.allocation.pending(alice.id), 400))
    const v = p[0].interfaceViewValue.allocation
    assert(v.transferLeg.sender === alice.id && v.transferLeg.receiver === bob.id && new Decimal(v.transferLeg.amount).eq(3) && v.settlement.executor === bob.id, show(v, 400))
    // the executor observes it (AmuletAllocation's observer), to settle it
    assert((await allocationsOf(bob, ref)).some((c) => c.contractId === p[0].contractId), 'not visible to bob, the executor')
    const a = await balance(alice)
    assert(a0.minus(a).eq(3), `alice ${a0} → ${a}`)
    const locked = await lockedOf(alice)
    assert(locked.length === 1 && new Decimal(locked[0].interfaceViewValue.amount).eq(3), show(locked, 400))
    allocation = { cid: p[0].contractId, ref, a0, start: allocStart }
    return `${allocation.cid.slice(0, 16)}…, alice ${a0} → ${a}`
})

await check('MUST', "token.allocation.withdraw (the registry's choice-contexts/withdraw, Allocation_Withdraw) signed by alice, the sender: no longer pending, her 3 unlocked back, nothing locked; the SDK's parser reads the allocation as a MergeSplit and the withdrawal as an Unlock", async () => {
    assert(allocation, 'no allocation')
    const ctx = await token.allocation.context.withdraw({ allocationCid: allocation.cid, registryUrl: REGISTRY })
    assert(ctx.disclosedContracts.length > 0, show(ctx, 300))
    await submit(alice, await token.allocation.withdraw({ allocationCid: allocation.cid, asset }))
    assert((await allocationsOf(alice, allocation.ref)).length === 0, 'still pending')
    const a = await balance(alice)
    assert(a.eq(allocation.a0), `alice ${allocation.a0} → ${a}`)
    assert((await lockedOf(alice)).length === 0, show(await lockedOf(alice), 300))
    const end = await sdk.ledger.ledgerEnd()
    // the SDK's parser (by the results' tx-kind): the allocation a
    // MergeSplit locking the 3, the withdrawal an Unlock handing it back
    const got = summary(await parsed(alice, allocation.start, end))
    const want = [['MergeSplit', null, '3', '-3'], ['Unlock', 'holders released lock', '-3', '3']]
    assert(show(got.map((g) => [g.type, g.reason, g.locked, g.unlocked])) === show(want), show(got, 1000))
    return `alice ${a}; parsed ${got.map((g) => g.type).join(', ')}`
})

await check('MUST', 'a self allocation (alice sender, receiver and executor) created, then token.allocation.execute (choice-contexts/execute-transfer, Allocation_ExecuteTransfer) signed by alice: settled, her balance whole, nothing locked or pending; parsed by the SDK as a MergeSplit out of the lock', async () => {
    const a0 = await balance(alice)
    const ref = `self-trade-${Date.now()}`
    await submit(alice, await token.allocation.instruction.create({ allocationSpecification: allocationSpec(alice, alice, alice, '4', ref), asset }))
    const [p] = await allocationsOf(alice, ref)
    assert(p, 'not pending')
    assert((await balance(alice)).eq(a0.minus(4)), 'not locked')
    const xs = await sdk.ledger.ledgerEnd()
    await submit(alice, await token.allocation.execute({ allocationCid: p.contractId, asset }))
    // a self transfer out of the lock, which the SDK's parser reads as a
    // MergeSplit: the 4 leave the lock and come back unlocked
    const got = summary(await parsed(alice, xs, await sdk.ledger.ledgerEnd()))
    assert(got.length === 1 && got[0].type === 'MergeSplit' && got[0].locked === '-4' && got[0].unlocked === '4', show(got, 1000))
    assert((await allocationsOf(alice, ref)).length === 0, 'still pending')
    const a = await balance(alice)
    assert(a.eq(a0) && (await lockedOf(alice)).length === 0, `alice ${a0} → ${a}`)
    return `alice ${a0} → ${a}`
})

await check('MUST', "another self allocation cancelled (token.allocation.cancel: choice-contexts/cancel, Allocation_Cancel) signed by alice: gone, the 2 unlocked back; the registry's allocation answers were the token standard's types", async () => {
    const a0 = await balance(alice)
    const ref = `cancelled-trade-${Date.now()}`
    await submit(alice, await token.allocation.instruction.create({ allocationSpecification: allocationSpec(alice, alice, alice, '2', ref), asset }))
    const [p] = await allocationsOf(alice, ref)
    assert(p && (await balance(alice)).eq(a0.minus(2)), 'not allocated')
    await submit(alice, await token.allocation.cancel({ allocationCid: p.contractId, asset }))
    assert((await allocationsOf(alice, ref)).length === 0, 'still pending')
    const a = await balance(alice)
    assert(a.eq(a0) && (await lockedOf(alice)).length === 0, `alice ${a0} → ${a}`)
    // three factories; the withdraw context twice (context.withdraw, then
    // withdraw), execute-transfer and cancel once each
    assert(allocationAnswers === 7, `${allocationAnswers} allocation registry answers`)
    return `alice ${a0} → ${a}, ${allocationAnswers} registry answers`
})

// ---------------------------------------------------------------- the validator's external-party API
// The validator's own external-party flows (Splice's
// /v0/admin/external-party/…, which exchanges use besides the SDK; the
// SDK 1.4.0 calls none of them): the validator prepares, the party signs
// the hash with the SDK's signing utils, the validator submits.
const asUser = (token) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })
async function answers(method, path, token, body, base = VALIDATOR) {
    const r = await realFetch(`${base}${path}`, { method, headers: asUser(token), body: body && JSON.stringify(body) })
    const text = await r.text()
    assert(r.status === 200, `${method} ${path}: ${r.status} ${text.slice(0, 300)}`)
    return JSON.parse(text)
}
// a prepared transaction signed by who: the submission the submit
// endpoints take (hex signature and public key, as Splice's API has them)
function signed(who, prepared) {
    assert(/^[0-9a-f]{64}$/.test(prepared.tx_hash) && prepared.transaction, show(prepared, 300))
    const sig = signTransactionHash(Buffer.from(prepared.tx_hash, 'hex').toString('base64'), who.keys.privateKey)
    return {
        submission: {
            party_id: who.id, transaction: prepared.transaction,
            signed_tx_hash: Buffer.from(sig, 'base64').toString('hex'),
            public_key: Buffer.from(who.keys.publicKey, 'base64').toString('hex'),
        },
    }
}

let bobPreapproval
await check('MUST', "the validator's pre-approval setup for bob: setup-proposal (the operator's ExternalPartySetupProposal), prepare-accept, the tx_hash signed with bob's key (signTransactionHash), submit-accept: his TransferPreapproval, which the scan-proxy's by-party finds (amulet.preapproval.fetchStatus)", async () => {
    const admin = process.env.ADMIN_TOKEN
    const { contract_id } = await answers('POST', '/v0/admin/external-party/setup-proposal', admin, { user_party_id: bob.id })
    assert(contract_id, 'no proposal')
    const listed = await answers('GET', '/v0/admin/external-party/setup-proposal', admin)
    assert(listed.contracts.some((c) => c.contract.contract_id === contract_id), show(listed, 300))
    const prepared = await answers('POST', '/v0/admin/external-party/setup-proposal/prepare-accept', admin, { contract_id, user_party_id: bob.id })
    const r = await answers('POST', '/v0/admin/external-party/setup-proposal/submit-accept', admin, signed(bob, prepared))
    assert(r.transfer_preapproval_contract_id && r.update_id, show(r, 300))
    bobPreapproval = await amulet.preapproval.fetchStatus(bob.id, { intervalMs: 250, timeoutMs: 30000 })
    assert(bobPreapproval?.contractId === r.transfer_preapproval_contract_id, show(bobPreapproval, 300))
    const after = await answers('GET', '/v0/admin/external-party/setup-proposal', admin)
    assert(!after.contracts.some((c) => c.contract.contract_id === contract_id), 'the proposal is still listed')
    return `${r.transfer_preapproval_contract_id.slice(0, 16)}…, expires ${bobPreapproval.expiresAt.toISOString()}`
})

// The validator's automation sends the commands of the parties it set up
// (a ValidatorRight from the setup proposal, as Splice's
// TransferCommandSendTrigger): bob, now; the receiver needs a pre-approval
// (alice's, from the withdrawal above).
await check('MUST', "the validator's prepare-send bob → alice (a TransferCommand, nonce from the scan-proxy's transfer-command-counter), signed by bob, submit-send; Scan's transfer-command/status polled until sent; alice +6, bob's counter's next nonce one more, his balance (GET …/external-party/balance) down 6", async () => {
    assert(bobPreapproval, 'bob was not set up')
    const admin = process.env.ADMIN_TOKEN
    const counter = async () => {
        const r = await realFetch(`${VALIDATOR}/v0/scan-proxy/transfer-command-counter/${encodeURIComponent(bob.id)}`)
        const text = await r.text()
        if (r.status === 404) return 0
        assert(r.ok, `${r.status} ${text}`)
        return Number(JSON.parse(text).transfer_command_counter.contract.payload.nextNonce)
    }
    const nonce = await counter()
    const [r0, s0] = [await balance(alice), await balance(bob)]
    const prepared = await answers('POST', '/v0/admin/external-party/transfer-preapproval/prepare-send', admin,
        { sender_party_id: bob.id, receiver_party_id: alice.id, amount: 6, expires_at: new Date(Date.now() + 3600e3).toISOString(), nonce, description: 'external send' })
    assert(prepared.transfer_command_contract_id_prefix, show(prepared, 300))
    const sent = await answers('POST', '/v0/admin/external-party/transfer-preapproval/submit-send', admin, signed(bob, prepared))
    assert(sent.update_id, show(sent, 200))
    const t1 = Date.now()
    let status
    for (;;) {
        const r = await realFetch(`${ROOT}/api/scan/v0/transfer-command/status?sender=${encodeURIComponent(bob.id)}&nonce=${nonce}`)
        if (r.ok) {
            const cmds = Object.values((await r.json()).transfer_commands_by_contract_id)
            assert(cmds.length === 1, show(cmds, 400))
            status = cmds[0].status
            if (status.status !== 'created') break
        }
        assert(Date.now() - t1 < 30000, `not sent 30 s after submit-send: ${show(status, 200)}`)
        await sleep(250)
    }
    assert(status.status === 'sent', show(status, 300))
    const [r, sb] = [await balance(alice), await balance(bob)]
    assert(r.minus(r0).eq(6) && s0.minus(sb).eq(6), `alice ${r0} → ${r}, bob ${s0} → ${sb}`)
    assert((await counter()) === nonce + 1, `next nonce ${await counter()}, was ${nonce}`)
    const bal = await answers('GET', `/v0/admin/external-party/balance?party_id=${encodeURIComponent(bob.id)}`, admin)
    assert(new Decimal(bal.total_unlocked_coin).eq(sb), show(bal, 300))
    return `sent in ${Date.now() - t1} ms; alice ${r0} → ${r}, bob ${s0} → ${sb}, nonce ${nonce} → ${nonce + 1}`
})

// ---------------------------------------------------------------- the wallet's token-standard API
await check('MUST', "the wallet's token-standard transfer as alice's user (POST /api/validator/v0/wallet/token-standard/transfers) to the treasury (no pre-approval now): pending; GET …/transfers lists it, the treasury's token.transfer.pending too; withdrawn (…/{cid}/withdraw), gone from both", async () => {
    const alice = process.env.ALICE_TOKEN
    const trackingId = `wallet-ts-${Date.now()}`
    const r = await answers('POST', '/v0/wallet/token-standard/transfers', alice,
        { receiver_party_id: treasury.id, amount: '2.5', description: 'wallet transfer', expires_at: (Date.now() + 3600e3) * 1000, tracking_id: trackingId })
    const cid = r.output?.transfer_instruction_cid
    assert(cid, show(r, 300))
    const listed = await answers('GET', '/v0/wallet/token-standard/transfers', alice)
    const mine = listed.transfers.filter((c) => c.contract_id === cid)
    assert(mine.length === 1, show(listed, 400))
    const t = mine[0].payload.transfer
    assert(t.receiver === treasury.id && new Decimal(t.amount).eq(2.5) && t.meta.values[REASON] === 'wallet transfer', show(t, 400))
    assert((await token.transfer.pending(treasury.id)).some((c) => c.contractId === cid), 'not pending for the treasury')
    await answers('POST', `/v0/wallet/token-standard/transfers/${encodeURIComponent(cid)}/withdraw`, alice, {})
    const after = await answers('GET', '/v0/wallet/token-standard/transfers', alice)
    assert(!after.transfers.some((c) => c.contract_id === cid), show(after, 300))
    assert(!(await token.transfer.pending(treasury.id)).some((c) => c.contractId === cid), 'still pending for the treasury')
    return `${listed.transfers.length} listed, ${cid.slice(0, 16)}…`
})

report('the wallet SDK token-standard flows')
