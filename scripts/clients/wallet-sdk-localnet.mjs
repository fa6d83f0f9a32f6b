// Drives `sandnet start --localnet` as a script written for Splice's
// LocalNet does, with the wallet SDK's own LocalNet configuration
// (@canton-network/wallet-sdk 1.4.0's localNetStaticConfig: the ledger API
// at localhost:2975, the validator at localhost:2000/api/validator, its
// scan-proxy as the registry, Scan at scan.localhost:4000/api/scan, the
// user ledger-api-user) and LocalNet's auth (the SDK signs its own HS256
// tokens with LocalNet's secret "unsafe" and audience): no URL, token or
// secret of sandnet's. It creates the SDK, connects, creates two external
// parties, taps for one, transfers to the other through the token
// standard (an offer the receiver accepts) and reads both holdings.
//
// It needs 127.0.0.1's LocalNet ports and scan.localhost resolving to
// 127.0.0.1, as LocalNet does: TestLocalNetWalletSDK runs it in a network
// namespace of its own with such a hosts file; by hand, start
// `sandnet start --localnet` and run `node wallet-sdk-localnet.mjs` (with
// `127.0.0.1 scan.localhost` in /etc/hosts, as LocalNet's docs say).

import { SDK, localNetStaticConfig as LOCALNET } from '@canton-network/wallet-sdk'
import { AuthTokenProvider } from '@canton-network/core-wallet-auth'
import Decimal from 'decimal.js'
import { assert, check, logger as silent, report, show } from './lib.mjs'
import { logAdapter, quiet } from './wallet-sdk-lib.mjs'

// LocalNet's auth, as its docs configure the SDK: self-signed tokens for
// ledger-api-user, with LocalNet's well-known secret and audience.
const auth = {
    method: 'self_signed',
    issuer: 'unsafe-auth',
    credentials: { clientId: LOCALNET.LOCALNET_USER_ID, clientSecret: 'unsafe', audience: 'https://canton.network.global', scope: '' },
}

let sdk, token, amulet
await check('MUST', `SDK.create at ${LOCALNET.LOCALNET_APP_USER_LEDGER_URL} as ${LOCALNET.LOCALNET_USER_ID}, extended with the LocalNet validator, registry and Scan`, async () => {
    // GET /v2/authenticated-user, GET /v2/state/connected-synchronizers
    sdk = quiet(await SDK.create({ auth, ledgerClientUrl: LOCALNET.LOCALNET_APP_USER_LEDGER_URL, logAdapter }))
    assert(sdk.ctx.userId === LOCALNET.LOCALNET_USER_ID, `user ${sdk.ctx.userId}`)
    assert(sdk.ctx.defaultSynchronizerId, 'no synchronizer')
    const ext = quiet(await sdk.extend({
        token: { auth, registries: [LOCALNET.LOCALNET_REGISTRY_API_URL], validatorUrl: LOCALNET.LOCALNET_APP_VALIDATOR_URL },
        amulet: { auth, scanApiUrl: LOCALNET.LOCALNET_SCAN_API_URL, validatorUrl: LOCALNET.LOCALNET_APP_VALIDATOR_URL, registryUrl: LOCALNET.LOCALNET_REGISTRY_API_URL },
    }))
    token = ext.token
    amulet = ext.amulet
    assert(token && amulet, 'namespaces missing')
    return `synchronizer ${sdk.ctx.defaultSynchronizerId.slice(0, 30)}…`
})
if (!token) report('the wallet SDK against --localnet')

await check('MUST', "the validator operator's party (validator-user through localhost:2000) is LocalNet's app_user_<hint>", async () => {
    const r = await fetch(new URL(`${LOCALNET.LOCALNET_APP_VALIDATOR_URL.href}/v0/validator-user`), { headers: { authorization: `Bearer ${await new AuthTokenProvider(auth, silent).getAccessToken()}` } })
    const body = await r.json()
    assert(r.ok && body.party_id.startsWith('app_user_localnet-localparty-1::'), `${r.status} ${show(body, 200)}`)
    return body.party_id.slice(0, 40) + '…'
})

async function newParty(hint) {
    const keys = sdk.keys.generate()
    const p = await sdk.party.external.create(keys.publicKey, { partyHint: `${hint}-${Date.now()}` }).sign(keys.privateKey).execute()
    return { id: p.partyId, keys }
}
async function submit(who, [commands, disclosedContracts]) {
    return await sdk.ledger.prepare({ partyId: who.id, commands, disclosedContracts }).sign(who.keys.privateKey).execute({ partyId: who.id })
}
async function balance(who) {
    const hs = await token.utxos.list({ partyId: who.id })
    return hs.reduce((a, h) => a.plus(h.interfaceViewValue.amount), new Decimal(0))
}

let alice, bob
await check('MUST', 'two external parties (keys.generate, party.external.create … sign … execute)', async () => {
    alice = await newParty('localnet-alice')
    bob = await newParty('localnet-bob')
    return [alice, bob].map((p) => p.id.slice(0, 30) + '…').join(', ')
})
if (!bob) report('the wallet SDK against --localnet')

await check('MUST', 'amulet.tap (through scan.localhost:4000 and the scan-proxy) signed by alice: her holdings', async () => {
    await submit(alice, await amulet.tap(alice.id, '1000'))
    const a = await balance(alice)
    assert(a.eq(1000), `alice ${a}`)
    return `alice ${a}`
})

await check('MUST', 'token.transfer.create alice → bob (the registry through the scan-proxy), signed; bob accepts; both holdings', async () => {
    const registryUrl = LOCALNET.LOCALNET_REGISTRY_API_URL
    await submit(alice, await token.transfer.create({ sender: alice.id, recipient: bob.id, amount: '25', instrumentId: 'Amulet', registryUrl, memo: 'localnet' }))
    const pending = await token.transfer.pending(bob.id)
    assert(pending.length === 1, show(pending, 300))
    await submit(bob, await token.transfer.accept({ transferInstructionCid: pending[0].contractId, registryUrl }))
    const [a, b] = [await balance(alice), await balance(bob)]
    assert(b.eq(25) && a.eq(975), `alice ${a}, bob ${b}`)
    const hs = await token.utxos.list({ partyId: bob.id })
    assert(hs.every((h) => h.interfaceViewValue.owner === bob.id && h.interfaceViewValue.instrumentId.id === 'Amulet'), show(hs, 300))
    return `alice ${a}, bob ${b}`
})

report('the wallet SDK against --localnet')
