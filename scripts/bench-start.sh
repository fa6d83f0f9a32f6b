#!/usr/bin/env bash
# Measures what a user feels when starting sandnet: cold start on an empty
# data directory to /readyz 200 (seeding included), restart on existing data,
# the binary's size, and resident memory when idle after start.
#
#   scripts/bench-start.sh [runs]          (default 5 runs)
#   DATA_DIR=/path scripts/bench-start.sh  restart timing on an existing data dir only
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
bin=$(mktemp -d)/sandnet
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin" ./cmd/sandnet
port=17575
url="http://127.0.0.1:$port"

# ms since epoch, from date's nanoseconds.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# start DIR: starts sandnet on DIR, waits for /readyz, prints the ms it took.
start() {
  local dir=$1 t0 t1
  t0=$(now_ms)
  "$bin" start --listen "127.0.0.1:$port" --data-dir "$dir" --log-level warn 2>>"$dir/stderr.log" &
  pid=$!
  until curl -fs -o /dev/null "$url/readyz"; do sleep 0.005; done
  t1=$(now_ms)
  echo $((t1 - t0))
}

stop() { kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; }

if [ -n "${DATA_DIR:-}" ]; then
  for i in $(seq 1 "$runs"); do
    ms=$(start "$DATA_DIR"); stop
    echo "restart on $DATA_DIR: ${ms} ms"
  done
  exit 0
fi

echo "binary size: $(stat -c %s "$bin") bytes ($(du -h "$bin" | cut -f1))"
for i in $(seq 1 "$runs"); do
  dir=$(mktemp -d)
  cold=$(start "$dir"); stop
  warm=$(start "$dir")
  sleep 2
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  stop
  echo "run $i: cold start ${cold} ms, restart ${warm} ms, idle RSS ${rss} kB"
  rm -rf "$dir"
done
