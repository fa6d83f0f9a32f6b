#!/usr/bin/env bash
# Measures what a user feels when starting sandnet (SQLite by default): cold start on
# an empty data directory to /readyz 200 (seeding included), restart on the
# data it left, the binary's size, and resident memory when idle after each.
#
#   scripts/bench-start.sh [runs]            (default 5 runs)
#   DATA_DIR=/path scripts/bench-start.sh    restart timing on an existing data dir only
#   IDLE_WAIT=5 scripts/bench-start.sh       seconds to wait before reading idle RSS (default 3)
#   CONFIG=file.yaml scripts/bench-start.sh  start every run with --config file.yaml (a network file)
#   DATABASE_URL=postgres://… scripts/bench-start.sh
#                                            the same on PostgreSQL: each run in fresh schemas
#                                            (--database-schema sandnet_bench_start_<pid>_<run>),
#                                            dropped afterwards (needs psql)
#
# "ready" is measured from launching the binary to the first /readyz 200
# (polled every 5 ms with curl, so it includes process start and up to one
# poll interval); "startup" is what sandnet logs itself, from main to ready.
# The binary is built as released: CGO_ENABLED=0 go build -trimpath
# -ldflags '-s -w'. Nothing is left running: traps stop sandnet on any exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

runs="${1:-5}"
idle="${IDLE_WAIT:-3}"
build_sandnet
size=$(stat -c %s "$SANDNET_BIN")
echo "binary: $size bytes ($(awk -v s="$size" 'BEGIN {printf "%.1f MiB", s / 1048576}')), $(go version | cut -d' ' -f3), CGO_ENABLED=0 -trimpath -ldflags '-s -w'"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -n "${DATA_DIR:-}" ]; then
  ready=() startup=() rss=()
  for i in $(seq 1 "$runs"); do
    start_sandnet "$BENCH_TMP/restart.log" --data-dir "$DATA_DIR"
    sleep "$idle"
    read -r r _ < <(rss_kb)
    stop_sandnet
    echo "run $i: restart ${READY_MS} ms to /readyz (sandnet: ${STARTUP_MS} ms), idle RSS $((r / 1024)) MiB, stop ${STOP_MS} ms"
    ready+=("$READY_MS") startup+=("$STARTUP_MS") rss+=("$((r / 1024))")
  done
  echo "restart on $DATA_DIR, $runs runs:"
  summarize "restart to /readyz" ms "${ready[@]}"
  summarize "restart (sandnet's log)" ms "${startup[@]}"
  summarize "idle RSS after restart" MiB "${rss[@]}"
  exit 0
fi

# pg_args RUN: the PostgreSQL flags of a run, nothing on SQLite.
pg_args=()
pg_prefix() { echo "sandnet_bench_start_$$_$1"; }
drop_schemas() {
  local prefix=$1 list
  list=$(psql "$DATABASE_URL" -qAt -c "SELECT string_agg(quote_ident(nspname), ', ') FROM pg_namespace WHERE nspname LIKE '${prefix}\_%'")
  [ -z "$list" ] || psql "$DATABASE_URL" -q -c "SET client_min_messages = warning; DROP SCHEMA $list CASCADE" >/dev/null
}
if [ -n "${DATABASE_URL:-}" ]; then
  command -v psql >/dev/null || { echo "bench: DATABASE_URL needs psql to drop the benchmark schemas" >&2; exit 1; }
  bench_on_exit() { drop_schemas "sandnet_bench_start_$$"; }
  echo "store: PostgreSQL ($(psql "$DATABASE_URL" -qAt -c 'SHOW server_version'))"
else
  echo "store: SQLite"
fi

config_args=()
if [ -n "${CONFIG:-}" ]; then
  config_args=(--config "$(realpath "$CONFIG")")
  echo "network file: $CONFIG"
fi

cold=() cold_startup=() cold_rss=() cold_hwm=() warm=() warm_startup=() warm_rss=()
for i in $(seq 1 "$runs"); do
  dir="$BENCH_TMP/data-$i"
  log="$BENCH_TMP/run-$i.log"
  if [ -n "${DATABASE_URL:-}" ]; then
    pg_args=(--database-url "$DATABASE_URL" --database-schema "$(pg_prefix "$i")")
  fi
  start_sandnet "$log" --data-dir "$dir" "${pg_args[@]}" "${config_args[@]}"
  c=$READY_MS cs=$STARTUP_MS
  sleep "$idle"
  read -r cr ch < <(rss_kb)
  stop_sandnet
  start_sandnet "$log" --data-dir "$dir" "${pg_args[@]}" "${config_args[@]}"
  w=$READY_MS ws=$STARTUP_MS
  sleep "$idle"
  read -r wr _ < <(rss_kb)
  stop_sandnet
  echo "run $i: cold start ${c} ms to /readyz (sandnet: ${cs} ms), idle RSS $((cr / 1024)) MiB (peak $((ch / 1024)) MiB);" \
    "restart ${w} ms (sandnet: ${ws} ms), idle RSS $((wr / 1024)) MiB"
  cold+=("$c") cold_startup+=("$cs") cold_rss+=("$((cr / 1024))") cold_hwm+=("$((ch / 1024))")
  warm+=("$w") warm_startup+=("$ws") warm_rss+=("$((wr / 1024))")
  rm -rf "$dir"
  if [ -n "${DATABASE_URL:-}" ]; then drop_schemas "$(pg_prefix "$i")"; fi
done
echo "summary, $runs runs:"
summarize "cold start to /readyz" ms "${cold[@]}"
summarize "cold start (sandnet's log)" ms "${cold_startup[@]}"
summarize "restart to /readyz" ms "${warm[@]}"
summarize "restart (sandnet's log)" ms "${warm_startup[@]}"
summarize "idle RSS after cold start" MiB "${cold_rss[@]}"
summarize "peak RSS during cold start" MiB "${cold_hwm[@]}"
summarize "idle RSS after restart" MiB "${warm_rss[@]}"
