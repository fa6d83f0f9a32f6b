#!/usr/bin/env bash
# Builds sandnet, starts it on a free port with a throwaway data dir, runs the
# Canton Network TypeScript client checks against it (ledger-client.mjs: the
# ledger clients on the JSON Ledger API; scan-client.mjs: Splice's ScanClient
# on /api/scan; validator-client.mjs: Splice's ValidatorInternalClient and
# ScanProxyClient on /api/validator, last, as it advances the ledger clock),
# and always stops it. Exit status is non-zero when any fails; all always run.
#
#   bash scripts/clients/run.sh            # VERBOSE=1 for client warnings and stacks
#
# Needs Go, Node >= 20 and npm (the npm registry for the first `npm ci`).
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

(cd "$root" && go build -o "$work/sandnet" ./cmd/sandnet)

if [[ ! -d "$here/node_modules" ]] || ! (cd "$here" && npm ls --silent >/dev/null 2>&1); then
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data="$work/data"
mkdir -p "$data"
"$work/sandnet" start --listen "127.0.0.1:$port" --data-dir "$data" >"$work/sandnet.log" 2>&1 </dev/null &
pid=$!

for _ in $(seq 100); do
	if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then break; fi
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "sandnet exited:" >&2; cat "$work/sandnet.log" >&2; exit 1
	fi
	sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null || { echo "sandnet not ready" >&2; cat "$work/sandnet.log" >&2; exit 1; }

export SANDNET_URL="http://127.0.0.1:$port"
ADMIN_TOKEN=$("$work/sandnet" token --user participant_admin --data-dir "$data")
ALICE_TOKEN=$("$work/sandnet" token --user alice --data-dir "$data")
export ADMIN_TOKEN ALICE_TOKEN
# validator-client.mjs mints its own tokens (for the users it creates too)
export SANDNET_BIN="$work/sandnet" SANDNET_DATA_DIR="$data"

status=0
echo "--- ledger-client.mjs"
(cd "$here" && node --no-warnings --experimental-websocket ledger-client.mjs) || status=$?
echo "--- scan-client.mjs"
(cd "$here" && node --no-warnings scan-client.mjs) || status=$?
echo "--- validator-client.mjs"
(cd "$here" && node --no-warnings validator-client.mjs) || status=$?
if [[ $status -ne 0 ]]; then
	echo "--- sandnet log (last 40 lines)"; tail -n 40 "$work/sandnet.log"
fi
exit $status
