// What the wallet SDK scripts (wallet-sdk.mjs, wallet-sdk-external.mjs)
// share: the SDK's auth configurations, its quieted loggers, and the
// websockets its events namespace opens, with a collector of its streams.
//
// Importing it checks for a global WebSocket (Node 20: run with
// --experimental-websocket) and, on Node 20, polyfills Set.prototype.union
// and Object.groupBy: the SDK's ACS cache (core-acs-reader) calls the one,
// its token.utxos.merge the other, and Node has both from 22 on, so that
// what is checked is sandnet's answers, not the Node version.

import { CustomLogAdapter } from '@canton-network/wallet-sdk'
import { VERBOSE, show } from './lib.mjs'

if (typeof WebSocket === 'undefined') {
    console.error('no global WebSocket: run with node --experimental-websocket (Node 20)')
    process.exit(2)
}
if (!Set.prototype.union) {
    Set.prototype.union = function (other) {
        const s = new Set(this)
        for (const x of other) s.add(x)
        return s
    }
}
if (!Object.groupBy) {
    Object.groupBy = function (items, key) {
        const out = Object.create(null)
        let i = 0
        for (const x of items) (out[key(x, i++)] ??= []).push(x)
        return out
    }
}

// Every websocket the SDK opens: its events namespace joins the base URL
// and the path with a double slash (ws://host//v2/updates). A stream is
// ended by closing its socket: the SDK's iterators are async generators,
// whose return() waits for the message they are waiting for.
export const opened = []
globalThis.WebSocket = class extends WebSocket {
    constructor(url, protocols) {
        super(url, protocols)
        opened.push(this)
    }
}
export const closeFrom = (n) => opened.slice(n).forEach((ws) => ws.close())

// The SDK logs through the adapter it is given (silent unless VERBOSE); the
// ledger provider and websocket client it builds log through pino loggers of
// their own, silenced on each instance (quiet).
export const logAdapter = new CustomLogAdapter((level, ctx, msg) => VERBOSE && console.log(`  [sdk ${level}]`, msg ?? '', show(ctx, 200)))
export function quiet(sdk) {
    const client = sdk.ctx?.ledgerProvider?.client
    if (!VERBOSE && client?.logger) client.logger.level = 'silent'
    const ws = sdk.events?.websocketClient
    if (!VERBOSE && ws?.logger) ws.logger.level = 'silent'
    return sdk
}

// the SDK's auth configurations: tokens it signs itself with the server's
// secret (SANDNET_AUTH_SECRET), as against LocalNet, or a given one
export const selfSigned = (user, secret = process.env.SANDNET_AUTH_SECRET) => ({
    method: 'self_signed',
    issuer: 'unsafe-auth',
    credentials: { clientId: user, clientSecret: secret, audience: '', scope: '' },
})
export const staticToken = (token) => ({ method: 'static', token })

// the first max messages of an SDK stream, or what came within ms; the
// stream's sockets are closed then
export async function collect(iter, { max = Infinity, ms = 5000 } = {}) {
    const n = opened.length
    const out = []
    let timer
    const timeout = new Promise((r) => (timer = setTimeout(() => r('timeout'), ms)))
    const run = (async () => {
        for await (const m of iter) {
            out.push(m)
            if (out.length >= max) break
        }
        return 'done'
    })()
    const how = await Promise.race([run, timeout])
    clearTimeout(timer)
    closeFrom(n)
    await Promise.race([run.catch(() => {}), new Promise((r) => setTimeout(r, 2000))])
    return { out, how }
}
