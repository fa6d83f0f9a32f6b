#!/usr/bin/env bash
# Measures saving and restoring the whole network (POST
# /api/sandnet/v0/saves, POST /api/sandnet/v0/saves/{name}/restore) as a
# client sees them: the time of each HTTP call, RUNS times, and the
# throughput in store bytes per second (the save's size_bytes over the
# call's time). Saves are each deleted once measured; restores re-use one
# save, as a test suite does.
#
#   scripts/bench-saves.sh [runs]                  a freshly seeded network (default 10 runs)
#   CONTRACTS=100000 scripts/bench-saves.sh 3      a store filled by scripts/populate first (kept in
#                                                  ${TMPDIR:-/tmp}/sandnet-bench-<CONTRACTS>, as
#                                                  scripts/bench-restart.sh keeps it)
#   DATABASE_URL=postgres://… scripts/bench-saves.sh   PostgreSQL (schemas of prefix sandnet_bench_saves,
#                                                  or sandnet_bench_<CONTRACTS> with CONTRACTS), dropped
#                                                  at the end except a populated store's
#
# The restore's parts come from sandnet's log line "network restored"
# (checked: the save verified and staged; closed: the network taken out
# of service; applied: the saved stores in place; the rest is opening the
# network again). Nothing is left running: traps stop sandnet on any exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

runs="${1:-10}"
contracts="${CONTRACTS:-}"
if [ -n "$contracts" ]; then
  data="${BENCH_DATA_DIR:-${TMPDIR:-/tmp}/sandnet-bench-$contracts}"
  prefix="${DB_SCHEMA:-sandnet_bench_$contracts}"
else
  data="$BENCH_TMP/data"
  prefix="${DB_SCHEMA:-sandnet_bench_saves}"
fi
db_args=(--data-dir "$data" --auth none)
pop_args=(--data-dir "$data")
if [ -n "${DATABASE_URL:-}" ]; then
  db_args+=(--database-url "$DATABASE_URL" --database-schema "$prefix")
  pop_args+=(--database-url "$DATABASE_URL" --schema "${prefix}_ledger")
fi

# drop_saves: removes what this script saved (and, for a fresh network on
# PostgreSQL, its schemas).
bench_on_exit() {
  if [ -n "${DATABASE_URL:-}" ]; then
    local like="${prefix}\\_save%"
    [ -n "$contracts" ] || like="${prefix}\\_%"
    psql "$DATABASE_URL" -qAtc "SELECT nspname FROM pg_namespace WHERE nspname LIKE '$like'" |
      while read -r s; do psql "$DATABASE_URL" -qc "DROP SCHEMA \"$s\" CASCADE" >/dev/null 2>&1; done
  else
    rm -rf "$data/saves"
  fi
}

build_sandnet
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$contracts" ]; then
  go build -o "$BENCH_TMP/populate" ./scripts/populate
  echo "== populate: $contracts active contracts"
  run_child "$BENCH_TMP/populate" "${pop_args[@]}" --contracts "$contracts" \
    --per-tx "${PER_TX:-100}" --submitters "${SUBMITTERS:-4}"
fi

log="$BENCH_TMP/sandnet.log"
start_sandnet "$log" "${db_args[@]}"
api="$SANDNET_URL/api/sandnet/v0"
# Let the network settle (a new network's automation catches up on the
# rounds due) so that the saves are of a quiet network.
sleep "${SETTLE:-3}"

# call METHOD PATH [BODY]: prints "HTTP_CODE SECONDS" and keeps the body
# in $BENCH_TMP/body.
call() {
  curl -s -o "$BENCH_TMP/body" -w '%{http_code} %{time_total}\n' -X "$1" "$api$2" \
    -H 'Content-Type: application/json' ${3:+-d "$3"}
}

saves=() restores=() save_mbs=() restore_mbs=()
size=0
ms() { awk -v t="$1" 'BEGIN{printf "%.1f", t*1000}'; }
mbs() { awk -v t="$1" -v s="$size" 'BEGIN{printf "%.0f", s/t/1e6}'; }
# Saves: RUNS of them, each deleted after it is measured (so that the disk
# holds one at a time).
for i in $(seq 1 "$runs"); do
  read -r code t < <(call POST /saves "{\"name\":\"bench-save-$i\"}")
  [ "$code" = 201 ] || { echo "save: $code $(cat "$BENCH_TMP/body")" >&2; exit 1; }
  size=$(sed 's/.*"size_bytes":\([0-9]*\).*/\1/' "$BENCH_TMP/body")
  saves+=("$(ms "$t")") save_mbs+=("$(mbs "$t")")
  read -r code _ < <(call DELETE "/saves/bench-save-$i")
  [ "$code" = 204 ] || { echo "delete: $code" >&2; exit 1; }
done
# Restores of one save, as a test suite restores before each case. On
# SQLite a restore moves the save's spare copy in (on PostgreSQL renames
# its spare schemas in) and a new one is made in the background: a case that runs a while finds it ready, which is
# waited for here (up to 2 minutes) unless NO_SPARE_WAIT is set.
read -r code _ < <(call POST /saves '{"name":"bench"}')
[ "$code" = 201 ] || { echo "save: $code" >&2; exit 1; }
spare_ready() {
  [ -n "${NO_SPARE_WAIT:-}" ] && return 0
  for _ in $(seq 1200); do
    if [ -n "${DATABASE_URL:-}" ]; then
      [ "$(psql "$DATABASE_URL" -qAtc "SELECT spare FROM ${prefix}_saves.saves WHERE name = 'bench'")" = t ] && return 0
    else
      [ -d "$data/saves/bench/.spare" ] && return 0
    fi
    sleep 0.1
  done
}
for i in $(seq 1 "$runs"); do
  spare_ready
  read -r code t < <(call POST /saves/bench/restore)
  [ "$code" = 200 ] || { echo "restore: $code $(cat "$BENCH_TMP/body")" >&2; exit 1; }
  restores+=("$(ms "$t")") restore_mbs+=("$(mbs "$t")")
  # The next save must not find the restored Scans catching up.
  until curl -fs -o /dev/null "$SANDNET_URL/readyz"; do sleep 0.01; done
done
both=()
for i in "${!saves[@]}"; do both+=("$(awk -v a="${saves[$i]}" -v b="${restores[$i]}" 'BEGIN{printf "%.1f", a+b}')"); done

echo "summary, store of $((size / 1024 / 1024)) MiB ($size bytes), $runs runs:"
summarize "save" ms "${saves[@]}"
summarize "restore" ms "${restores[@]}"
summarize "save + restore" ms "${both[@]}"
summarize "save throughput" MB/s "${save_mbs[@]}"
summarize "restore throughput" MB/s "${restore_mbs[@]}"
echo "restore parts (sandnet's log):"
grep -o 'msg="network restored".*' "$log" | sed 's/.*took=/  took=/' | tail -n "$runs"
stop_sandnet
