#!/usr/bin/env bash
# Measures what a user feels when starting sandnet on SQLite: cold start on
# an empty data directory to /readyz 200 (seeding included), restart on the
# data it left, the binary's size, and resident memory when idle after each.
#
#   scripts/bench-start.sh [runs]            (default 5 runs)
#   DATA_DIR=/path scripts/bench-start.sh    restart timing on an existing data dir only
#   IDLE_WAIT=5 scripts/bench-start.sh       seconds to wait before reading idle RSS (default 3)
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

cold=() cold_startup=() cold_rss=() cold_hwm=() warm=() warm_startup=() warm_rss=()
for i in $(seq 1 "$runs"); do
  dir="$BENCH_TMP/data-$i"
  log="$BENCH_TMP/run-$i.log"
  start_sandnet "$log" --data-dir "$dir"
  c=$READY_MS cs=$STARTUP_MS
  sleep "$idle"
  read -r cr ch < <(rss_kb)
  stop_sandnet
  start_sandnet "$log" --data-dir "$dir"
  w=$READY_MS ws=$STARTUP_MS
  sleep "$idle"
  read -r wr _ < <(rss_kb)
  stop_sandnet
  echo "run $i: cold start ${c} ms to /readyz (sandnet: ${cs} ms), idle RSS $((cr / 1024)) MiB (peak $((ch / 1024)) MiB);" \
    "restart ${w} ms (sandnet: ${ws} ms), idle RSS $((wr / 1024)) MiB"
  cold+=("$c") cold_startup+=("$cs") cold_rss+=("$((cr / 1024))") cold_hwm+=("$((ch / 1024))")
  warm+=("$w") warm_startup+=("$ws") warm_rss+=("$((wr / 1024))")
  rm -rf "$dir"
done
echo "summary, $runs runs:"
summarize "cold start to /readyz" ms "${cold[@]}"
summarize "cold start (sandnet's log)" ms "${cold_startup[@]}"
summarize "restart to /readyz" ms "${warm[@]}"
summarize "restart (sandnet's log)" ms "${warm_startup[@]}"
summarize "idle RSS after cold start" MiB "${cold_rss[@]}"
summarize "peak RSS during cold start" MiB "${cold_hwm[@]}"
summarize "idle RSS after restart" MiB "${warm_rss[@]}"
