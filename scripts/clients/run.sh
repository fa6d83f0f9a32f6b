#!/usr/bin/env bash
# Builds sandnet, starts it on a port the system picks, with a throwaway data dir, runs the
# Canton Network TypeScript client checks against it (ledger-client.mjs: the
# ledger clients on the JSON Ledger API's reads; ledger-commands.mjs: the
# ledger client submitting commands, as a new user would: parties, a Ping,
# amulet taps and a merge, the results by update id, completions and
# Canton's errors; scan-client.mjs: Splice's ScanClient
# on /api/scan; wallet-sdk.mjs: the wallet SDK, @canton-network/wallet-sdk,
# as a wallet developer drives it; wallet-sdk-external.mjs: the SDK's
# external-party quickstart, a party whose key the script holds and a Ping
# it signs, sandnet's hashes recomputed by the SDK;
# wallet-sdk-token-standard.mjs: the SDK's token-standard flows between
# external parties it makes — offers accepted, rejected and withdrawn,
# a transfer pre-approval created, renewed and cancelled, self transfers,
# an exchange's deposits and withdrawal read back with its transaction
# parser, allocations made, withdrawn, executed and cancelled, the
# validator's external-party pre-approval setup and send, the wallet's
# token-standard transfers; test-isolation.mjs: a dApp's test suite
# (node:test) whose cases each start from a restore of one save;
# validator-client.mjs:
# Splice's ValidatorInternalClient and ScanProxyClient on /api/validator, last, as it
# advances the ledger clock), and always stops it. Exit status is non-zero
# when any fails; all always run.
#
#   bash scripts/clients/run.sh            # VERBOSE=1 for client warnings, stacks and the websocket log
#   SANDNET=path/to/sandnet bash scripts/clients/run.sh   # a prebuilt binary
#
# Needs Go, Node 22 (or 20, which it runs with --experimental-websocket) and npm
# (the npm registry for the first `npm ci`).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
pid=

cleanup() {
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

bin=${SANDNET:-}
if [[ -z "$bin" ]]; then
	bin="$work/sandnet"
	(cd "$root" && go build -o "$bin" ./cmd/sandnet)
fi

# One npm ci at a time (localnet.sh may be installing too).
(
	flock 9
	if [[ ! -d "$here/node_modules" ]] || ! (cd "$here" && npm ls --silent >/dev/null 2>&1); then
		(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
	fi
) 9>"$here/.npm-ci.lock"

data="$work/data"
# A secret given as text, as LocalNet's is, so that the wallet SDK can sign
# its own tokens with it (its self_signed auth); `sandnet token` reads it from
# the environment too.
SANDNET_AUTH_SECRET=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
export SANDNET_AUTH_SECRET
source "$root/scripts/start-lib.sh"
start_sandnet "$bin" "$work/sandnet.log" --data-dir "$data" || { pid=$STARTED_PID; exit 1; }
pid=$STARTED_PID

export SANDNET_URL=$STARTED_URL
ADMIN_TOKEN=$("$bin" token --user participant_admin --data-dir "$data")
ALICE_TOKEN=$("$bin" token --user alice --data-dir "$data")
export ADMIN_TOKEN ALICE_TOKEN
# validator-client.mjs mints its own tokens (for the users it creates too)
export SANDNET_BIN="$bin" SANDNET_DATA_DIR="$data"

# Node 22 has a global WebSocket, which the clients' event streams need;
# Node 20 has it only with --experimental-websocket.
node_flags=(--no-warnings)
if [[ $(node -e 'console.log(typeof WebSocket)') != function ]]; then
	node_flags+=(--experimental-websocket)
fi

# Each script prints its checks and a count; the summary below says which
# scripts failed (a MUST check or a schema error). A failed GAP check, a
# known gap, is listed as FAIL GAP by its script and fails nothing; so is
# a schema error its script names as a known gap (listed as "gap").
failed=()
scripts=(ledger-client.mjs ledger-commands.mjs scan-client.mjs wallet-sdk.mjs wallet-sdk-external.mjs wallet-sdk-token-standard.mjs test-isolation.mjs validator-client.mjs)
for script in "${scripts[@]}"; do
	echo "--- $script"
	(cd "$here" && node "${node_flags[@]}" "$script") || failed+=("$script")
done
echo "---"
if ((${#failed[@]} > 0)); then
	echo "--- sandnet log (last 40 lines)"; tail -n 40 "$work/sandnet.log"
	echo "FAILED: ${failed[*]} (of ${#scripts[@]} scripts; each one's count above says which checks)"
	exit 1
fi
echo "ok: the ${#scripts[@]} scripts passed (every MUST check, no schema error; FAIL GAP lines and gap findings above are known gaps)"
