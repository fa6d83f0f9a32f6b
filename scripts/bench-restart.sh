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
#   DATABASE_URL=postgres://… scripts/bench-restart.sh   PostgreSQL, in schema <DB_SCHEMA>_ledger (default
#                                                        prefix sandnet_bench_<CONTRACTS>), kept for reuse
#   PROFILE=1 scripts/bench-restart.sh                   also print scripts/populate --time-startup
#   COLD_CACHE=1 scripts/bench-restart.sh                SQLite: evict the data directory's files (only
#                                                        those) from the OS page cache before each start
#   NO_STATS=1 IDLE_WAIT=30 scripts/bench-restart.sh     SQLite: delete the planner statistics before each
#                                                        start, as a crash (no clean close) leaves the store
#
# The data directory is kept for the next run (1M contracts take about
# 10 GB on SQLite and 5 minutes to build; 4 GB and 6.5 minutes on
# PostgreSQL): by default ${TMPDIR:-/tmp}/sandnet-bench-<CONTRACTS>; delete
# it when done (PostgreSQL: DROP SCHEMA sandnet_bench_<CONTRACTS>_ledger
# CASCADE). Nothing is left running: traps stop sandnet and the populator
# on any exit.
#
# The store is measured as a clean shutdown leaves it: closing the SQLite
# store (also at the end of the populate step) computes the planner
# statistics; NO_STATS=1 measures the store a crash leaves instead.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

runs="${1:-5}"
contracts="${CONTRACTS:-1000000}"
data="${BENCH_DATA_DIR:-${TMPDIR:-/tmp}/sandnet-bench-$contracts}"
idle="${IDLE_WAIT:-3}"
db_args=(--data-dir "$data")
pop_args=("${db_args[@]}")
where=$data
if [ -n "${DATABASE_URL:-}" ]; then
  prefix="${DB_SCHEMA:-sandnet_bench_$contracts}"
  db_args+=(--database-url "$DATABASE_URL" --database-schema "$prefix")
  pop_args+=(--database-url "$DATABASE_URL" --schema "${prefix}_ledger")
  where="PostgreSQL schema ${prefix}_ledger"
fi

build_sandnet
go build -o "$BENCH_TMP/populate" ./scripts/populate
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== populate: $contracts active contracts in $where"
run_child "$BENCH_TMP/populate" "${pop_args[@]}" --contracts "$contracts" \
  --per-tx "${PER_TX:-100}" --submitters "${SUBMITTERS:-4}"
if [ -z "${DATABASE_URL:-}" ]; then
  echo "data directory: $(du -sh "$data" | cut -f1)"
fi

if [ -n "${PROFILE:-}" ]; then
  echo "== startup steps (scripts/populate --time-startup)"
  run_child "$BENCH_TMP/populate" "${pop_args[@]}" --time-startup --automation-pass
fi

echo "== restart, $runs runs (idle figures after ${idle} s)"
# evict_data: drops the SQLite files from the page cache (fadvise
# DONTNEED through dd's nocache flag), as after a reboot, without touching
# anything else on a shared machine.
evict_data() {
  local f
  for f in "$data"/ledger.db*; do
    [ -f "$f" ] || continue
    sync "$f"
    dd if="$f" iflag=nocache count=0 status=none
  done
}

cold=""
if [ -n "${COLD_CACHE:-}" ] && [ -z "${DATABASE_URL:-}" ]; then
  cold=" (cold page cache)"
fi
nostats=""
if [ -n "${NO_STATS:-}" ] && [ -z "${DATABASE_URL:-}" ]; then
  nostats=" (no planner statistics)"
fi
ready=() startup=() rss=() cpu=() stops=()
for i in $(seq 1 "$runs"); do
  [ -z "$nostats" ] || "$BENCH_TMP/populate" --data-dir "$data" --drop-planner-stats
  [ -z "$cold" ] || evict_data
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
echo "summary, $contracts contracts, $runs runs$cold$nostats:"
summarize "restart to /readyz" ms "${ready[@]}"
summarize "restart (sandnet's log)" ms "${startup[@]}"
summarize "CPU in ${idle} s after ready" ms "${cpu[@]}"
summarize "idle RSS after restart" MiB "${rss[@]}"
summarize "stop (SIGTERM to exit)" ms "${stops[@]}"
