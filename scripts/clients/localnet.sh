#!/usr/bin/env bash
# Runs wallet-sdk-localnet.mjs, a script written for Splice's LocalNet (the
# wallet SDK with its own LocalNet defaults: localhost:2975,
# localhost:2000/api/validator, scan.localhost:4000), against
# `sandnet start --localnet`, and always stops it.
#
# LocalNet's ports are fixed, so that the run never meets a LocalNet (or
# another run) on this machine, it runs in a network namespace of its own
# (unshare -rn: its own 127.0.0.1, an unprivileged user namespace) with a
# mount namespace (-m) in which /etc/hosts also maps scan.localhost and
# wallet.localhost to 127.0.0.1, as LocalNet's docs ask. Where namespaces
# cannot be made, it runs on this machine's 127.0.0.1 when LocalNet's ports
# are free there and scan.localhost resolves, and otherwise exits with
# status 77 (skipped), saying why.
#
#   bash scripts/clients/localnet.sh            # VERBOSE=1 for the SDK's log
#   SANDNET=path/to/sandnet bash scripts/clients/localnet.sh
#
# Needs Go (unless SANDNET is given), Node 22 (or 20, run with
# --experimental-websocket) and npm (the npm registry for the first npm ci).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ports=(2000 2975 2903 3000 3975 3903 4000 4975 4903)

work= pid=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	[[ -z "$work" ]] || rm -rf "$work"
}

run() {
	work=$(mktemp -d)
	trap cleanup EXIT INT TERM
	source "$root/scripts/start-lib.sh"
	start_sandnet "$SANDNET" "$work/sandnet.log" --localnet --data-dir "$work/data" || { pid=$STARTED_PID; exit 1; }
	pid=$STARTED_PID
	local node_flags=(--no-warnings)
	if [[ $(node -e 'console.log(typeof WebSocket)') != function ]]; then
		node_flags+=(--experimental-websocket)
	fi
	if ! (cd "$here" && node "${node_flags[@]}" wallet-sdk-localnet.mjs); then
		echo "--- sandnet log (last 40 lines)"; tail -n 40 "$work/sandnet.log"
		exit 1
	fi
}

case "${1:-}" in
--in-namespace)
	# A new network namespace has its loopback interface down.
	ip link set lo up
	hosts=$(mktemp)
	printf '127.0.0.1 localhost scan.localhost wallet.localhost\n::1 localhost\n' >"$hosts"
	mount --bind "$hosts" /etc/hosts
	run
	exit
	;;
--here)
	run
	exit
	;;
esac

if [[ -z "${SANDNET:-}" ]]; then
	SANDNET=$(mktemp -d)/sandnet
	(cd "$root" && go build -o "$SANDNET" ./cmd/sandnet)
fi
export SANDNET
# One npm ci at a time (run.sh may be installing too).
(
	flock 9
	if [[ ! -d "$here/node_modules" ]] || ! (cd "$here" && npm ls --silent >/dev/null 2>&1); then
		(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
	fi
) 9>"$here/.npm-ci.lock"

# What the namespace needs, tried first: some containers allow the
# namespaces but not the mount or the interface change.
if command -v unshare >/dev/null && command -v ip >/dev/null &&
	unshare -rnm sh -c 'ip link set lo up && mount --bind /etc/hosts /etc/hosts' 2>/dev/null; then
	exec unshare -rnm bash "$0" --in-namespace
fi
echo "no network namespace here (unshare -rnm, ip): running on this machine's 127.0.0.1"
for p in "${ports[@]}"; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		echo "skipped: 127.0.0.1:$p is taken (a LocalNet running?), and LocalNet's ports must be free"
		exit 77
	fi
done
if ! getent hosts scan.localhost >/dev/null; then
	echo "skipped: scan.localhost does not resolve; add '127.0.0.1 scan.localhost' to /etc/hosts, as LocalNet's docs say"
	exit 77
fi
exec bash "$0" --here
