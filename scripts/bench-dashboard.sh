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
#   IDLE_TIMEOUT=60 scripts/bench-dashboard.sh        wait at most 60 s (default 1800) for sandnet to be idle:
#                                                     a restart's Scans ingest the history in the background
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
READY_TIMEOUT=600 start_sandnet "$log" --data-dir "$data"
idle_timeout="${IDLE_TIMEOUT:-1800}"
echo "sandnet ready in ${READY_MS} ms; waiting up to ${idle_timeout} s until it is idle (its Scans catch up on the history)"
for _ in $(seq $((idle_timeout / 5))); do
  c0=$(cpu_ms)
  sleep 5
  c1=$(cpu_ms)
  # Idle: under 10 % of one CPU over 5 s.
  [ $((c1 - c0)) -lt 500 ] && break
done

token=$("$SANDNET_BIN" token --data-dir "$data" --user participant_admin 2>/dev/null)
acs_of() { # the page's read of a template's active contracts, any party
  printf '{"maxPageSize":200,"eventFormat":{"filtersForAnyParty":{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"%s","includeCreatedEventBlob":false}}}}]},"verbose":false}}' "$1"
}
wildcard='{"filtersForAnyParty":{"cumulative":[{"identifierFilter":{"WildcardFilter":{"value":{"includeCreatedEventBlob":false}}}}]},"verbose":false}'
# time_read NAME METHOD PATH [BODY]: the server time of one of the page's
# reads (curl's total over loopback), REPS times (default 5).
time_read() {
  local name=$1 method=$2 path=$3 body=${4:-} times=()
  for _ in $(seq "${REPS:-5}"); do
    if [ -n "$body" ]; then
      times+=("$(curl -fs --max-time 900 -o /dev/null -w '%{time_total}' -X "$method" -H "Authorization: Bearer $token" \
        -H 'Content-Type: application/json' -d "$body" "$SANDNET_URL$path" | awk '{printf "%.1f", $1 * 1000}')")
    else
      times+=("$(curl -fs --max-time 900 -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $token" "$SANDNET_URL$path" |
        awk '{printf "%.1f", $1 * 1000}')")
    fi
  done
  summarize "$name" ms "${times[@]}"
}
echo "== the page's reads, server time over loopback"
time_read "clock (first render)" GET /api/sandnet/v0/clock
time_read "network (first render)" GET /api/sandnet/v0/network
time_read "last 50 updates (first render)" POST /v2/updates/get-updates-page \
  '{"maxPageSize":50,"descendingOrder":true,"updateFormat":{"includeTransactions":{"eventFormat":'"$wildcard"',"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA"}}}'
# The Scan of a restarted network has no snapshot until its ingestion
# reaches a boundary: take one now, of what it has ingested.
t0=$(now_ns)
curl -fs --max-time 900 -X POST -H "Authorization: Bearer $token" "$SANDNET_URL/api/sandnet/v0/scan/snapshots" | jq -c .
echo "  (the snapshot took $((($(now_ns) - t0) / 1000000)) ms)"
at=$(curl -fs "$SANDNET_URL/api/scan/v0/state/acs/snapshot-timestamp?migration_id=0&before=2100-01-01T00:00:00Z" | jq -r .record_time)
time_read "transfer instructions (Scan)" POST /api/scan/v2/state/acs \
  '{"migration_id":0,"record_time":"'"$at"'","page_size":200,"templates":["splice-amulet:Splice.AmuletTransferInstruction:AmuletTransferInstruction"]}'
alice=$(curl -fs -H "Authorization: Bearer $token" "$SANDNET_URL/api/sandnet/v0/network" |
  jq -r '[.users[] | select(.user_id == "alice")][0].party_id')
time_read "alice's holdings summary (Scan)" POST /api/scan/v0/holdings/summary \
  '{"migration_id":0,"record_time":"'"$at"'","owner_party_ids":["'"$alice"'"]}'
time_read "name entries (Scan)" GET '/api/scan/v0/ans-entries?page_size=200'
# What the page reads only on a short ledger or when asked: the ledger
# API's active contracts, which it computes by replaying the history.
REPS=1 time_read "transfer offers (ledger ACS)" POST /v2/state/active-contracts-page "$(acs_of '#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer')"
party=$(curl -fs -H "Authorization: Bearer $token" "$SANDNET_URL/api/sandnet/v0/network" |
  jq -r '[.users[] | select(.user_id == "load-01")][0].party_id')
if [ -n "$party" ] && [ "$party" != null ]; then
  REPS=1 time_read "a wallet's amulets (ledger ACS, 1,000)" POST /v2/state/active-contracts-page \
    '{"maxPageSize":1000,"eventFormat":{"filtersByParty":{"'"$party"'":{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"#splice-amulet:Splice.Amulet:Amulet","includeCreatedEventBlob":false}}}}]}},"verbose":false}}'
fi

link=$(grep -o 'open the dashboard: [^"]*' "$log" | tail -n 1 | sed 's/open the dashboard: //')
echo "ledger end: $(curl -fs -H "Authorization: Bearer $token" "$SANDNET_URL/v2/state/ledger-end" | jq -r .offset)"
echo "== first render, $runs loads after a warm-up"
SANDNET_DASHBOARD_URL="$link" SANDNET_DASHBOARD_RUNS="$runs" \
  go test -count=1 -run 'TestDashboardFirstRender$' -v ./cmd/sandnet |
  grep -E 'first render|timing' | sed 's/^ *dashboard_e2e_test.go:[0-9]*: //'
