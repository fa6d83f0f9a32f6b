// Drives a running sandnet through the wallet SDK's external-party quickstart
// (@canton-network/wallet-sdk 1.4.0), unchanged but for the URL and the
// token: a key pair made by the SDK, a party whose key only the script holds
// (generate-topology, signed by the SDK, allocate, the SDK's wait for the
// party and its grant of actAs), a Ping prepared as that party, signed by the
// SDK and executed (executeAndWait), and the Ping read back through the
// SDK's ACS reader and update stream.
//
// What a wallet checks before it signs is checked too, with the SDK's own
// code: the topology transactions are decoded with its protobuf bindings
// (core-ledger-proto) and their multi-hash recomputed (utils.hash.
// topologyTransaction); the prepared transaction is decoded (the SDK's
// PreparedTransaction.decode) and its V2 hash recomputed with both of the
// SDK's implementations (utils.hash.preparedTransaction, and
// core-tx-visualizer's hashPreparedTransaction): each must equal sandnet's.
// A signature by another key must be refused and change nothing.
//
// Environment: SANDNET_URL and SANDNET_AUTH_SECRET (the SDK signs its own
// tokens with it, its `self_signed` auth, as in the quickstart against
// LocalNet). The SDK's user is participant_admin: allocating an external
// party and granting rights need ParticipantAdmin, as LocalNet's
// ledger-api-user has. run.sh sets them. Every check is MUST.

import { SDK } from '@canton-network/wallet-sdk'
import { SigningPublicKey, TopologyTransaction } from '@canton-network/core-ledger-proto'
import { hashPreparedTransaction, validateAuthorizedPartyIds } from '@canton-network/core-tx-visualizer'
import { assert, check, rejection, report, schemaChecker, show } from './lib.mjs'
import { collect, logAdapter, quiet, selfSigned } from './wallet-sdk-lib.mjs'

const BASE = process.env.SANDNET_URL
if (!BASE || !process.env.SANDNET_AUTH_SECRET) {
    console.error('set SANDNET_URL and SANDNET_AUTH_SECRET (run.sh does)')
    process.exit(2)
}
const ROOT = BASE.replace(/\/$/, '')
const PING = '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping'
const checkSchema = schemaChecker('@canton-network/core-ledger-client-types', 'openapi-3.5.1.d.ts')
const b64 = (bytes) => Buffer.from(bytes).toString('base64')
const unb64 = (s) => new Uint8Array(Buffer.from(s, 'base64'))
// a Ping's create argument, as the SDK's decoded record fields
const fieldsOf = (create) => Object.fromEntries(create.argument.sum.record.fields.map((f) => [f.label, f.value.sum[f.value.sum.oneofKind]]))

// The protobuf fields of bytes, by number, as lists of values (varints as
// numbers, length-delimited fields as bytes): for the little the SDK's
// bindings do not read (below).
function protoFields(bytes) {
    let i = 0
    const varint = () => {
        let v = 0, shift = 0, b
        do {
            assert(i < bytes.length, 'truncated varint')
            b = bytes[i++]
            v += (b & 0x7f) * 2 ** shift
            shift += 7
        } while (b & 0x80)
        return v
    }
    const fields = new Map()
    while (i < bytes.length) {
        const tag = varint()
        let v
        if ((tag & 7) === 0) v = varint()
        else if ((tag & 7) === 2) {
            const n = varint()
            assert(i + n <= bytes.length, 'truncated field')
            v = bytes.subarray(i, i + n)
            i += n
        } else throw new Error(`wire type ${tag & 7} of field ${tag >> 3}`)
        fields.set(tag >> 3, [...(fields.get(tag >> 3) ?? []), v])
    }
    return fields
}
// Canton hands out a topology transaction in its versioned envelope,
// UntypedVersionedMessage{1 data bytes, 2 version int32}, which the SDK's
// bindings do not export: its data is taken here, and decoded by the SDK's
// TopologyTransaction.
function unversioned(bytes) {
    const f = protoFields(bytes)
    assert(f.get(1)?.length === 1 && show(f.get(2)) === '[30]', `envelope fields ${show([...f.keys()])}, version ${show(f.get(2))}`)
    return f.get(1)[0]
}
// The SDK's bindings (core-ledger-proto 1.7.0) have no PartyToParticipant
// party_signing_keys (field 6, SigningKeysWithThreshold{1 keys, 2
// threshold}), which 3.5 puts the party's key in: protobuf-ts keeps it
// among the message's unknown fields (without its tag, with its length);
// its keys are decoded by the SDK's SigningPublicKey.
function partySigningKeys(ptp) {
    const unknown = (ptp[Symbol.for('protobuf-ts/unknown')] ?? []).filter((u) => u.no === 6 && u.wireType === 2)
    assert(unknown.length === 1, `${unknown.length} party_signing_keys fields`)
    const f = protoFields(new Uint8Array([0x32, ...unknown[0].data])).get(6)[0]
    const inner = protoFields(f)
    return { keys: (inner.get(1) ?? []).map((k) => SigningPublicKey.fromBinary(k)), threshold: inner.get(2)?.[0] ?? 0 }
}

let sdk, keys, fingerprint, prepared, topo, party, participantUid

// ---------------------------------------------------------------- connect, keys
await check('MUST', 'SDK.create, self_signed auth, user participant_admin (the quickstart, with its URL and token)', async () => {
    sdk = quiet(await SDK.create({ auth: selfSigned('participant_admin'), ledgerClientUrl: BASE, logAdapter }))
    assert(sdk.ctx.userId === 'participant_admin', `user ${sdk.ctx.userId}`)
    assert(sdk.ctx.defaultSynchronizerId?.startsWith('global-domain::'), `synchronizer ${sdk.ctx.defaultSynchronizerId}`)
    // the participant's id, as the SDK asks other hosts for theirs
    const r = await sdk.ctx.ledgerProvider.request({ method: 'ledgerApi', params: { resource: '/v2/parties/participant-id', requestMethod: 'get' } })
    participantUid = r.participantId.replace(/^PAR::/, '')
    return `synchronizer ${sdk.ctx.defaultSynchronizerId.slice(0, 30)}…`
})
if (!sdk) report('ledger API answers vs core-ledger-client-types openapi-3.5.1.d.ts') // nothing else can run

await check('MUST', 'keys.generate(): an Ed25519 key pair (32-byte public key, 64-byte secret key), keys.fingerprint of it', async () => {
    keys = sdk.keys.generate()
    assert(unb64(keys.publicKey).length === 32 && unb64(keys.privateKey).length === 64, show(keys, 200))
    fingerprint = await sdk.keys.fingerprint(keys.publicKey)
    assert(/^1220[0-9a-f]{64}$/.test(fingerprint), fingerprint)
    return fingerprint.slice(0, 20) + '…'
})

// ---------------------------------------------------------------- the party
const hint = `wallet-sdk-ext-${Date.now()}`
await check('MUST', 'party.external.create(publicKey, {partyHint}).topology() (POST /v2/parties/external/generate-topology): party hint::fingerprint', async () => {
    prepared = sdk.party.external.create(keys.publicKey, { partyHint: hint })
    topo = await prepared.topology()
    checkSchema('GenerateExternalPartyTopologyResponse', topo)
    assert(topo.partyId === `${hint}::${fingerprint}` && topo.publicKeyFingerprint === fingerprint, show(topo, 300))
    assert(topo.topologyTransactions.length >= 1 && unb64(topo.multiHash).length === 34, show(topo, 300))
    return `${topo.topologyTransactions.length} transaction(s)`
})

await check('MUST', "the topology decoded with the SDK's bindings (core-ledger-proto TopologyTransaction): a PartyToParticipant hosting the party here, with the key", async () => {
    const txs = topo.topologyTransactions.map((t) => TopologyTransaction.fromBinary(unversioned(unb64(t))))
    const ptps = txs.map((t) => t.mapping?.mapping).filter((m) => m?.oneofKind === 'partyToParticipant').map((m) => m.partyToParticipant)
    assert(ptps.length === 1, `${ptps.length} PartyToParticipant mappings in ${show(txs, 300)}`)
    const [ptp] = ptps
    for (const t of txs) assert(t.operation === 1 && t.serial === 1, `operation ${t.operation}, serial ${t.serial}`)
    assert(ptp.party === topo.partyId && ptp.threshold === 1, show(ptp, 300))
    // the one host, this participant, confirming (CONFIRMATION = 2)
    assert(ptp.participants.length === 1 && ptp.participants[0].permission === 2, show(ptp.participants, 300))
    assert(ptp.participants[0].participantUid === participantUid, `${ptp.participants[0].participantUid}, not ${participantUid}`)
    // 3.5: the party's signing key is in the PartyToParticipant: the raw key
    // as an SPKI (DER_X509_SUBJECT_PUBLIC_KEY_INFO 4), EC_CURVE25519 (1),
    // for NAMESPACE (1), PROOF_OF_OWNERSHIP (5) and PROTOCOL (4)
    const sk = partySigningKeys(ptp)
    assert(sk.threshold === 1 && sk.keys.length === 1, show(sk, 300))
    const [key] = sk.keys
    const spki = b64(new Uint8Array([...Buffer.from('302a300506032b6570032100', 'hex'), ...unb64(keys.publicKey)]))
    assert(key.format === 4 && b64(key.publicKey) === spki && key.keySpec === 1, show(key, 300))
    assert(show([...key.usage].sort()) === show([1, 4, 5]), `usage ${show(key.usage)}`)
    return `host ${ptp.participants[0].participantUid.slice(0, 24)}…`
})

await check('MUST', "utils.hash.topologyTransaction (the SDK's multi-hash) of the generated transactions is the multiHash sandnet handed out", async () => {
    const h = await sdk.utils.hash.topologyTransaction(topo.topologyTransactions)
    assert(h === topo.multiHash, `SDK ${h}, sandnet ${topo.multiHash}`)
    return h.slice(0, 16) + '…'
})

await check('MUST', ".sign(privateKey).execute() (POST /v2/parties/external/allocate, then the SDK's wait, GET /v2/parties/{party}, and its grant of CanActAs)", async () => {
    const t0 = Date.now()
    const p = await prepared.sign(keys.privateKey).execute()
    assert(p.partyId === topo.partyId, show(p, 200))
    party = p.partyId
    const rights = await sdk.user.rights.list()
    assert(rights.rights.some((x) => x.kind?.CanActAs?.value?.party === party), `no CanActAs ${party} in ${show(rights, 300)}`)
    assert((await sdk.party.list()).includes(party), 'not among the parties')
    return `${party.slice(0, 40)}… in ${Date.now() - t0} ms`
})

await check('MUST', '.sign(privateKey).execute() again: the SDK finds the party (GET /v2/parties/{party}) and allocates nothing', async () => {
    const p = await prepared.sign(keys.privateKey).execute()
    assert(p.partyId === party, show(p, 200))
})

// ---------------------------------------------------------------- a Ping, prepared, checked, signed, executed
let pingPrepared, response, decoded, createNode, pingId, begin
await check('MUST', 'ledger.prepare({partyId, commands: utils.ping.create}) (POST /v2/interactive-submission/prepare)', async () => {
    assert(party, 'no party')
    pingId = `wallet-sdk-ext-ping-${Date.now()}`
    begin = await sdk.ledger.ledgerEnd()
    pingPrepared = sdk.ledger.prepare({ partyId: party, commands: sdk.utils.ping.create([{ id: pingId, initiator: party, responder: party }]) })
    response = await pingPrepared.preparedPromise
    checkSchema('JsPrepareSubmissionResponse', response)
    assert(response.hashingSchemeVersion === 'HASHING_SCHEME_VERSION_V2', response.hashingSchemeVersion)
    assert(unb64(response.preparedTransactionHash).length === 32, response.preparedTransactionHash)
    return `hash ${response.preparedTransactionHash.slice(0, 16)}…`
})

await check('MUST', "the prepared transaction decoded by the SDK (PreparedTransaction.decode): one root, a create of the Ping as the party, its metadata the party's", async () => {
    decoded = await pingPrepared.decode()
    const { transaction: tx, metadata: md } = decoded
    assert(tx.version === '2.1' && tx.roots.length === 1 && tx.nodes.length === 1, show({ version: tx.version, roots: tx.roots, nodes: tx.nodes.length }, 200))
    const node = tx.nodes[0]
    assert(node.nodeId === tx.roots[0] && node.versionedNode.oneofKind === 'v1', show(node, 200))
    const nt = node.versionedNode.v1.nodeType
    assert(nt.oneofKind === 'create', nt.oneofKind)
    createNode = nt.create
    const t = createNode.templateId
    assert(createNode.packageName === 'canton-builtin-admin-workflow-ping' && t.moduleName === 'Canton.Internal.Ping' && t.entityName === 'Ping', show(t, 200))
    assert(show(fieldsOf(createNode), 1000) === show({ id: pingId, initiator: party, responder: party }, 1000), show(fieldsOf(createNode), 300))
    assert(show(createNode.signatories) === show([party]) && show(createNode.stakeholders) === show([party]), show(createNode, 300))
    // a contract the transaction creates has an unsuffixed V1 id
    assert(/^00[0-9a-f]{64}$/.test(createNode.contractId), createNode.contractId)
    assert(tx.nodeSeeds.length === 1 && tx.nodeSeeds[0].nodeId === Number(node.nodeId) && tx.nodeSeeds[0].seed.length === 32, show(tx.nodeSeeds, 200))
    assert(show(md.submitterInfo?.actAs) === show([party]), show(md.submitterInfo, 200))
    assert(md.synchronizerId === sdk.ctx.defaultSynchronizerId && md.mediatorGroup === 0 && md.inputContracts.length === 0, show(md, 300))
    // what a wallet shows before signing: every party in it may be acted for
    const auth = validateAuthorizedPartyIds(decoded, [party])
    assert(Object.values(auth).every((a) => a.isAuthorized), show(auth, 300))
    return `contract ${createNode.contractId.slice(0, 16)}…, prepared at ${md.preparationTime} µs`
})

await check('MUST', "utils.hash.preparedTransaction (the SDK's V2 hash) of the prepared transaction is preparedTransactionHash", async () => {
    const h = (await sdk.utils.hash.preparedTransaction(response.preparedTransaction)).toBase64()
    assert(h === response.preparedTransactionHash, `SDK ${h}, sandnet ${response.preparedTransactionHash}`)
})

await check('MUST', "core-tx-visualizer's hashPreparedTransaction (the SDK's other V2 hash) of the decoded transaction is preparedTransactionHash", async () => {
    const h = await hashPreparedTransaction(decoded, 'base64')
    assert(h === response.preparedTransactionHash, `visualizer ${h}, sandnet ${response.preparedTransactionHash}`)
})

const pingsOf = async () => await sdk.ledger.acsReader.readJsContracts({ parties: [party], filterByParty: true, templateIds: [PING] })
// the party's whole ACS (no template filter)
const acsOf = async () => (await sdk.ledger.acs.readRaw({ parties: [party], filterByParty: true })).filter((x) => x.contractEntry?.JsActiveContract)

await check('MUST', 'the same prepared transaction signed with another key (sign(other.privateKey).execute): FAILED_TO_EXECUTE_TRANSACTION (400, grpc 3), and the party\'s ACS is unchanged', async () => {
    const before = await acsOf()
    const other = sdk.keys.generate()
    const e = await rejection(pingPrepared.sign(other.privateKey).execute({ partyId: party }))
    checkSchema('JsCantonError', e)
    assert(e.code === 'FAILED_TO_EXECUTE_TRANSACTION' && e.grpcCodeValue === 3, show(e, 300))
    const hashHex = Buffer.from(unb64(response.preparedTransactionHash)).toString('hex')
    assert(e.cause.includes('Received 0 valid signatures from distinct keys (1 invalid), but expected at least 1 valid for') && e.cause.includes(hashHex), e.cause)
    const after = await acsOf()
    assert(before.length === 0 && after.length === 0, `ACS ${before.length} -> ${after.length} contracts`)
    return e.cause.slice(0, 90) + '…'
})

let executed
await check('MUST', 'sign(privateKey).execute({partyId}) (POST /v2/interactive-submission/executeAndWait): the update id and completion offset', async () => {
    executed = await pingPrepared.sign(keys.privateKey).execute({ partyId: party })
    checkSchema('ExecuteSubmissionAndWaitResponse', executed)
    assert(/^1220[0-9a-f]{64}$/.test(executed.updateId) && executed.completionOffset > begin, show(executed, 200))
    return `update ${executed.updateId.slice(0, 16)}…, offset ${executed.completionOffset}`
})

await check('MUST', "the Ping in the party's active contracts (ledger.acsReader.readJsContracts): the prepared contract, created at the completion offset", async () => {
    assert(executed, 'not executed')
    const cs = await pingsOf()
    assert(cs.length === 1, `${cs.length} Pings`)
    const [c] = cs
    // the committed id is the prepared one with its suffix
    assert(c.contractId.startsWith(createNode.contractId) && c.contractId.length > createNode.contractId.length, `${c.contractId} from ${createNode.contractId}`)
    assert(c.offset === executed.completionOffset && c.createArgument?.id === pingId && c.createArgument.initiator === party, show(c, 300))
    assert(show(c.signatories) === show([party]), show(c.signatories))
    const all = await acsOf()
    all.forEach((x, j) => checkSchema('JsGetActiveContractsResponse', x, `acs[${j}]`))
    assert(all.length === 1, `${all.length} contracts in the party's ACS`)
    return `contract ${c.contractId.slice(0, 16)}…`
})

await check('MUST', "the Ping in the party's updates (events.updates, websocket /v2/updates): one transaction since the prepare, the executed one, its externalTransactionHash the prepared hash", async () => {
    assert(executed, 'not executed')
    const ext = quiet(await sdk.extend({ events: { auth: selfSigned('participant_admin'), websocketURL: ROOT.replace(/^http/, 'ws') } }))
    const { out } = await collect(ext.events.updates({ partyId: party, templateIds: [PING], beginOffset: begin }), { max: 10, ms: 1500 })
    out.forEach((m, j) => checkSchema('JsGetUpdatesResponse', m, `ws[${j}]`))
    const txs = out.map((m) => m.update?.Transaction?.value).filter(Boolean)
    assert(txs.length === 1, `${txs.length} transactions in ${show(out, 300)}`)
    const [tx] = txs
    assert(tx.updateId === executed.updateId && tx.offset === executed.completionOffset, show(tx, 300))
    assert(tx.externalTransactionHash === response.preparedTransactionHash, `externalTransactionHash ${tx.externalTransactionHash}`)
    const created = tx.events.map((e) => e.CreatedEvent).filter(Boolean)
    assert(created.length === 1 && created[0].createArgument?.id === pingId, show(tx.events, 300))
    return `offset ${tx.offset}`
})

await check('MUST', 'the same signed transaction executed again (the SDK dedups over the maximum period, deduplicationPeriod Empty): DUPLICATE_COMMAND (ALREADY_EXISTS, grpc 6), no second Ping', async () => {
    assert(executed, 'not executed')
    const e = await rejection(pingPrepared.sign(keys.privateKey).execute({ partyId: party }))
    checkSchema('JsCantonError', e)
    assert(e.code === 'DUPLICATE_COMMAND' && e.grpcCodeValue === 6, show(e, 300))
    assert((await pingsOf()).length === 1, 'a second Ping')
    return e.cause.slice(0, 80)
})

report('ledger API answers vs core-ledger-client-types openapi-3.5.1.d.ts')
