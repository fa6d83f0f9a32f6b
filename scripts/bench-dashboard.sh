#!/usr/bin/env bash
# Measures the dashboard on a large ledger: fills a data directory with
# UPDATES updates (scripts/populate with one DevNet tap per transaction:
# one update each), or reuses one filled before, starts sandnet on it,
# waits until it is idle (its Scans have ingested the history), then opens
# the dashboard in headless Chromium RUNS times (TestDashboardFirstRender)
# and reports the time from navigation to the first render (the clock, the
# network and the feed's last 50 updates drawn), with the page's requests.
#
#   scripts/bench-dashboard.sh [runs]                 (default 10 runs, 1,000,000 updates)
#   UPDATES=100000 scripts/bench-dashboard.sh
#   BENCH_DATA_DIR=/big/disk/dir scripts/bench-dashboard.sh
#
# It needs chromium (apt-get install -y chromium). The data directory is
# kept for the next run (1,000,000 updates take about 6 GB and an hour to
# build on a busy 2-CPU machine): by default
# ${TMPDIR:-/tmp}/sandnet-bench-updates-<UPDATES>; delete it when done.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

runs="${1:-10}"
updates="${UPDATES:-1000000}"
data="${BENCH_DATA_DIR:-${TMPDIR:-/tmp}/sandnet-bench-updates-$updates}"

build_sandnet
go build -o "$BENCH_TMP/populate" ./scripts/populate
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== populate: $updates updates of one tap each in $data"
run_child "$BENCH_TMP/populate" --data-dir "$data" --contracts "$updates" --per-tx 1 \
  --submitters "${SUBMITTERS:-4}"

log="$BENCH_TMP/sandnet.log"
READY_TIMEOUT=600 start_sandnet "$log" --data-dir "$data" --log-format json
echo "sandnet ready in ${READY_MS} ms; waiting until it is idle (its Scans catch up on the history)"
for _ in $(seq "${IDLE_TIMEOUT:-1800}"); do
  c0=$(cpu_ms)
  sleep 5
  c1=$(cpu_ms)
  # Idle: under 10 % of one CPU over 5 s.
  [ $((c1 - c0)) -lt 500 ] && break
done
end=$(curl -fs -H "Authorization: Bearer $("$SANDNET_BIN" token --data-dir "$data" --user participant_admin 2>/dev/null)" \
  "$SANDNET_URL/v2/state/ledger-end" | jq -r .offset)
echo "ledger end: $end"

link=$(grep -o '"msg":"open the dashboard: [^"]*' "$log" | tail -n 1 | sed 's/.*open the dashboard: //')
echo "== first render, $runs loads after a warm-up"
SANDNET_DASHBOARD_URL="$link" SANDNET_DASHBOARD_RUNS="$runs" \
  go test -count=1 -run 'TestDashboardFirstRender$' -v ./cmd/sandnet |
  grep -E 'first render|timing' | sed 's/^ *dashboard_e2e_test.go:[0-9]*: //'
