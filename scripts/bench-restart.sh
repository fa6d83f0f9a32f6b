#!/usr/bin/env bash
# Measures restart-to-/readyz of sandnet on a large store: fills a data
# directory with CONTRACTS active contracts through the real engine
# (scripts/populate: seeded network, then transactions of 100 DevNet faucet
# taps each), or reuses one filled before, then starts sandnet on it RUNS
# times and reports the time to the first /readyz 200, sandnet's own
# startup figure, the CPU it burns in its first seconds (DSO automation
# scanning the store) and idle RSS.
#
#   scripts/bench-restart.sh [runs]                      (default 5 runs, 1,000,000 contracts)
#   CONTRACTS=100000 scripts/bench-restart.sh
#   BENCH_DATA_DIR=/big/disk/dir scripts/bench-restart.sh
#   DATABASE_URL=postgres://… scripts/bench-restart.sh   PostgreSQL (schema sandnet_ledger; it must hold
#                                                        only what this script put there)
#   PROFILE=1 scripts/bench-restart.sh                   also print scripts/populate --time-startup
#
# The data directory is kept for the next run (1M contracts take about
# 10 GB on SQLite and a few minutes to build): by default
# ${TMPDIR:-/tmp}/sandnet-bench-<CONTRACTS>; delete it when done. Nothing is
# left running: traps stop sandnet and the populator on any exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

runs="${1:-5}"
contracts="${CONTRACTS:-1000000}"
data="${BENCH_DATA_DIR:-${TMPDIR:-/tmp}/sandnet-bench-$contracts}"
idle="${IDLE_WAIT:-3}"
db_args=(--data-dir "$data")
if [ -n "${DATABASE_URL:-}" ]; then
  db_args+=(--database-url "$DATABASE_URL")
fi

build_sandnet
go build -o "$BENCH_TMP/populate" ./scripts/populate
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== populate: $contracts active contracts in ${DATABASE_URL:+PostgreSQL (}${DATABASE_URL:+schema sandnet_ledger)}${DATABASE_URL:-$data}"
run_child "$BENCH_TMP/populate" "${db_args[@]}" --contracts "$contracts" \
  --per-tx "${PER_TX:-100}" --submitters "${SUBMITTERS:-4}"
if [ -z "${DATABASE_URL:-}" ]; then
  echo "data directory: $(du -sh "$data" | cut -f1)"
fi

if [ -n "${PROFILE:-}" ]; then
  echo "== startup steps (scripts/populate --time-startup)"
  run_child "$BENCH_TMP/populate" "${db_args[@]}" --time-startup --automation-pass
fi

echo "== restart, $runs runs (idle figures after ${idle} s)"
ready=() startup=() rss=() cpu=() stops=()
for i in $(seq 1 "$runs"); do
  start_sandnet "$BENCH_TMP/restart.log" "${db_args[@]}"
  c0=$(cpu_ms)
  sleep "$idle"
  c1=$(cpu_ms)
  read -r r _ < <(rss_kb)
  stop_sandnet
  echo "run $i: restart ${READY_MS} ms to /readyz (sandnet: ${STARTUP_MS} ms), CPU ${c0} ms to ready + $((c1 - c0)) ms in the next ${idle} s," \
    "idle RSS $((r / 1024)) MiB, stop ${STOP_MS} ms"
  ready+=("$READY_MS") startup+=("$STARTUP_MS") rss+=("$((r / 1024))") cpu+=("$((c1 - c0))") stops+=("$STOP_MS")
done
echo "summary, $contracts contracts, $runs runs:"
summarize "restart to /readyz" ms "${ready[@]}"
summarize "restart (sandnet's log)" ms "${startup[@]}"
summarize "CPU in ${idle} s after ready" ms "${cpu[@]}"
summarize "idle RSS after restart" MiB "${rss[@]}"
summarize "stop (SIGTERM to exit)" ms "${stops[@]}"
