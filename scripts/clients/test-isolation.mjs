// A dApp's test suite isolating its cases with sandnet's saves, as one
// written against Anvil isolates them with evm_snapshot/evm_revert: the
// suite saves the network once, and every case starts from a restore of
// that save, whatever the case before it did. Written with node:test and
// fetch only, as a user's own suite would be; run.sh runs it like the
// other scripts (node:test sets the exit status when a case fails).
//
// Environment (run.sh sets it): SANDNET_URL, ADMIN_TOKEN (the operator,
// participant_admin), ALICE_TOKEN, SANDNET_BIN and SANDNET_DATA_DIR (to
// mint bob's token).

import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { mintToken } from './lib.mjs'

const BASE = (process.env.SANDNET_URL ?? '').replace(/\/$/, '')
if (!BASE) {
    console.error('set SANDNET_URL (run.sh does)')
    process.exit(2)
}
const ADMIN = process.env.ADMIN_TOKEN
const ALICE = process.env.ALICE_TOKEN
const BOB = mintToken(process.env.SANDNET_BIN, process.env.SANDNET_DATA_DIR, 'bob')
const SAVE = 'isolation-suite'

async function call(method, path, token, body) {
    const res = await fetch(BASE + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
}
async function ok(method, path, token, body) {
    const r = await call(method, path, token, body)
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`)
    return r.body
}
const amuletIds = async (token) =>
    (await ok('GET', '/api/validator/v0/wallet/amulets', token)).amulets.map((a) => a.contract.contract.contract_id).sort()
const offers = async (token) => (await ok('GET', '/api/validator/v0/wallet/transfer-offers', token)).offers
const ledgerEnd = async (token) => (await ok('GET', '/v2/state/ledger-end', token)).offset

describe('a suite whose cases each start from the same network', () => {
    let saved, baseline
    before(async () => {
        await call('DELETE', `/api/sandnet/v0/saves/${SAVE}`, ADMIN) // a leftover of an interrupted run
        saved = await ok('POST', '/api/sandnet/v0/saves', ADMIN, { name: SAVE })
        baseline = { alice: await amuletIds(ALICE), bob: await amuletIds(BOB), offers: await offers(BOB) }
    })
    beforeEach(async () => {
        const restored = await ok('POST', `/api/sandnet/v0/saves/${SAVE}/restore`, ADMIN)
        assert.equal(restored.ledger_end, saved.ledger_end)
    })
    after(async () => {
        await call('DELETE', `/api/sandnet/v0/saves/${SAVE}`, ADMIN)
    })

    it('a case taps coin for alice', async () => {
        assert.deepEqual(await amuletIds(ALICE), baseline.alice)
        await ok('POST', '/api/validator/v0/wallet/tap', ALICE, { amount: '10.0' })
        assert.equal((await amuletIds(ALICE)).length, baseline.alice.length + 1)
    })

    it("the next case does not see that tap, and offers bob coin", async () => {
        assert.deepEqual(await amuletIds(ALICE), baseline.alice)
        const bob = (await ok('GET', '/api/validator/v0/wallet/user-status', BOB)).party_id
        const clock = await ok('GET', '/api/sandnet/v0/clock', ADMIN)
        const expiresAt = (Date.now() + 3600_000) * 1000 + clock.clock_offset_us
        await ok('POST', '/api/validator/v0/wallet/transfer-offers', ALICE, {
            receiver_party_id: bob, amount: '1.5', description: 'isolated', expires_at: expiresAt, tracking_id: `iso-${Date.now()}`,
        })
        assert.equal((await offers(BOB)).length, baseline.offers.length + 1)
    })

    it('the next one sees neither the offer nor a later ledger end', async () => {
        assert.deepEqual(await offers(BOB), baseline.offers)
        assert.deepEqual(await amuletIds(BOB), baseline.bob)
        assert.equal(await ledgerEnd(ALICE), saved.ledger_end)
    })

    it('a stream open across a restore ends with an error naming the save', async () => {
        const party = (await ok('GET', '/api/validator/v0/wallet/user-status', ALICE)).party_id
        const ws = new WebSocket(BASE.replace(/^http/, 'ws') + '/v2/updates', ['daml.ws.auth', `jwt.token.${ALICE}`])
        const messages = []
        const closed = new Promise((resolve) => ws.addEventListener('close', (e) => resolve(e)))
        ws.addEventListener('message', (e) => messages.push(String(e.data)))
        await new Promise((resolve, reject) => {
            ws.addEventListener('open', resolve)
            ws.addEventListener('error', reject)
        })
        ws.send(JSON.stringify({ beginExclusive: 0, filter: { filtersByParty: { [party]: {} } } }))
        await new Promise((resolve) => setTimeout(resolve, 200))
        await ok('POST', `/api/sandnet/v0/saves/${SAVE}/restore`, ADMIN)
        const e = await closed
        const said = e.reason + ' ' + messages.join(' ')
        assert.match(said, new RegExp(`restored from save "${SAVE}"`), `the stream ended with: ${said.slice(-300)}`)
    })
})
