#!/usr/bin/env bash
# A network's life as a new user would script it, with curl only: four SVs,
# transfers, a reassignment, a hosting change, a hard migration, more
# transfers, and a fifth SV whose Scan backfills its history from the four
# others; it ends by checking that the fifth Scan's /v2/updates, import
# updates and ACS snapshot are the same, byte for byte, as SV 1's.
#
#   bash scripts/scenario.sh             # TRANSFERS=20 for more transfers
#   SANDNET=path/to/sandnet bash scripts/scenario.sh   # a prebuilt binary
#
# Builds sandnet (unless SANDNET is set), starts it on a port the system picks, with a
# throwaway data dir and always stops it. Exit status 0 when every step
# answered as expected. Needs Go, curl and jq.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
transfers=${TRANSFERS:-3}
pid=
cleanup() {
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

bin=${SANDNET:-}
if [[ -z "$bin" ]]; then
	bin="$work/sandnet"
	(cd "$root" && go build -o "$bin" ./cmd/sandnet)
fi
source "$root/scripts/start-lib.sh"
start_sandnet "$bin" "$work/sandnet.log" --data-dir "$work/data" --svs 4 || { pid=$STARTED_PID; exit 1; }
pid=$STARTED_PID base=$STARTED_URL

token() { "$bin" token --data-dir "$work/data" --user "$1"; }
fail() { echo "FAIL: $*" >&2; tail -30 "$work/sandnet.log" >&2; exit 1; }
# call METHOD PATH TOKEN [BODY]: prints the body, fails on a non-2xx status.
call() {
	local status
	status=$(curl -sS -o "$work/body" -w '%{http_code}' -X "$1" ${3:+-H "Authorization: Bearer $3"} \
		-H 'Content-Type: application/json' ${4:+-d "$4"} "$base$2") || fail "$1 $2: no answer"
	[[ "${VERBOSE:-}" == 1 ]] && echo "$1 $2 -> $status $(head -c 300 "$work/body")" >&2
	[[ "$status" == 2* ]] || fail "$1 $2 answered $status: $(cat "$work/body")"
	cat "$work/body"
}
# eventually CMD...: retries CMD for up to 20 s until it succeeds.
eventually() {
	for _ in $(seq 200); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
	"$@"
}
A=/api/sandnet/v0 V=/api/validator
op=$(token participant_admin) alice=$(token alice) bob=$(token bob)
bob_party=$(call GET $V/v0/wallet/user-status "$bob" | jq -r .party_id)
# Offers expire in a month: the scenario moves ledger time three hours on.
in_a_month=$(( ($(date +%s) + 30 * 86400) * 1000000 ))

transfer() { # transfer TRACKING_ID: alice pays bob 1 CC, bob accepts, it completes
	local cid
	cid=$(call POST $V/v0/wallet/transfer-offers "$alice" \
		'{"receiver_party_id":"'"$bob_party"'","amount":"1.0","description":"scenario","expires_at":'"$in_a_month"',"tracking_id":"'"$1"'"}' | jq -r .offer_contract_id)
	call POST $V/v0/wallet/transfer-offers/$cid/accept "$bob" >/dev/null
	completed() { [[ $(call POST $V/v0/wallet/transfer-offers/$1/status "$alice" | jq -r .status) == completed ]]; }
	eventually completed "$1" || fail "transfer $1 did not complete"
}

echo "1. $transfers transfers alice → bob"
call POST $V/v0/wallet/tap "$alice" '{"amount":"1000.0"}' >/dev/null
for i in $(seq "$transfers"); do transfer "before-$i"; done

echo "2. a DSO contract moves to a second synchronizer"
other=$(call POST $A/synchronizers "$op" '{"alias":"app-synchronizer"}' | jq -r .synchronizer_id)
cid=$(call GET /api/scan/v0/dso "" | jq -r '.sv_node_states[0].contract.contract_id')
call POST $A/reassignments "$op" '{"contract_id":"'"$cid"'","target_synchronizer_id":"'"$other"'"}' | jq -c '{reassignment_counter, source_synchronizer_id}'

echo "3. bob is hosted on SV 1's participant too, then no more"
sv1=$(call GET $A/network "$op" | jq -r '.svs[0].participant_id')
call POST "$A/parties/$bob_party/hostings" "$op" '{"participant_id":"'"$sv1"'","permission":"Observation"}' >/dev/null
call DELETE "$A/parties/$bob_party/hostings/$sv1" "$op" >/dev/null

echo "4. a hard migration, and $transfers more transfers"
call POST $A/migrations "$op" | jq -c .
for i in $(seq "$transfers"); do transfer "after-$i"; done

echo "5. three hours later, migration 1 has an ACS snapshot"
call POST $A/clock/advance "$op" '{"duration":"3h1m"}' >/dev/null
far=2100-01-01T00:00:00Z
snapshot() { call GET "/sv/$1/api/scan/v0/state/acs/snapshot-timestamp?migration_id=1&before=$far" "" | jq -r .record_time; }
eventually snapshot 1 || fail "no snapshot of migration 1"
at=$(snapshot 1)
echo "   at $at"

echo "6. a fifth SV joins; its Scan backfills from the other four"
call POST $A/svs "$op" | jq -c '{sv, name, scan_path}'
transfer "joined-1"
complete() { [[ $(call GET /sv/5/api/scan/v0/backfilling/status "" | jq -r .complete) == true ]]; }
eventually complete || fail "SV 5's Scan did not complete backfilling"
call GET /sv/5/api/scan/v0/backfilling/status "" | jq -c .

echo "7. SV 5's Scan holds what SV 1's holds"
history() { # the whole v2 history of SV $1, every page
	local after='' page out=''
	while :; do
		page=$(call POST "/sv/$1/api/scan/v2/updates" "" '{"page_size":100'"$after"'}')
		[[ $(jq '.transactions | length' <<<"$page") == 0 ]] && break
		out+=$(jq -c .transactions <<<"$page")
		after=$(jq -r '.transactions[-1] | ",\"after\":{\"after_migration_id\":\(.migration_id // .event.migration_id),\"after_record_time\":\"\(.record_time)\"}"' <<<"$page")
	done
	echo "$out"
}
same_history() { [[ "$(history 1)" == "$(history 5)" ]]; }
eventually same_history || fail "SV 5's /v2/updates differ from SV 1's"
echo "   /v2/updates: the same $(history 5 | jq -s 'map(length) | add') updates"
for m in 0 1; do
	body='{"migration_id":'$m',"after_update_id":"","limit":1000}'
	[[ "$(call POST /sv/1/api/scan/v0/backfilling/import-updates "" "$body")" == "$(call POST /sv/5/api/scan/v0/backfilling/import-updates "" "$body")" ]] ||
		fail "import updates of migration $m differ"
done
echo "   import updates: the same ($(call POST /sv/5/api/scan/v0/backfilling/import-updates "" '{"migration_id":1,"after_update_id":"","limit":1000}' | jq '.transactions | length') in migration 1)"
same_snapshot_time() { [[ "$(snapshot 5)" == "$at" ]]; }
eventually same_snapshot_time || fail "SV 5 has no snapshot at $at"
acs='{"migration_id":1,"record_time":"'"$at"'","page_size":1000}'
[[ "$(call POST /sv/1/api/scan/v2/state/acs "" "$acs")" == "$(call POST /sv/5/api/scan/v2/state/acs "" "$acs")" ]] || fail "the ACS snapshots at $at differ"
echo "   ACS snapshot at $at: the same $(call POST /sv/5/api/scan/v2/state/acs "" "$acs" | jq '.created_events | length') contracts"
echo "8. a fork of the network starts from SV 1's Scan and serves the same ACS"
start_sandnet "$bin" "$work/fork.log" --data-dir "$work/fork" --fork-from "$base/api/scan" || true
fpid=$STARTED_PID fbase=$STARTED_URL
trap 'kill $fpid 2>/dev/null || true; wait $fpid 2>/dev/null || true; cleanup' EXIT INT TERM
[[ -n "$fbase" ]] || fail "the fork did not start"
# rows PAGE_URL BODY: a snapshot's contracts (id, template, payload), one a line, sorted.
rows() {
	local body=$2 page after='' out=''
	while :; do
		page=$(curl -sS "$1" -H 'Content-Type: application/json' -d "${body%\}}$after}")
		out+=$(jq -c '.created_events[] | [.contract_id, .template_id, .create_arguments]' <<<"$page")$'\n'
		after=$(jq -r 'if .next_page_token then ",\"after\":\(.next_page_token|tojson)" else "" end' <<<"$page")
		[[ -z "$after" ]] && break
	done
	sort <<<"$out" | sed '/^$/d'
}
latest=$(snapshot 1)
rows "$base/api/scan/v2/state/acs" '{"migration_id":1,"record_time":"'"$latest"'","page_size":500}' >"$work/a.rows"
# The fork's Scan history starts with the import of those contracts (its
# own automation moves on from there: rounds open and close).
fork_history() {
	local after='' page out=''
	while :; do
		page=$(curl -sS "$fbase/api/scan/v2/updates" -H 'Content-Type: application/json' -d '{"page_size":100'"$after"'}')
		[[ $(jq '.transactions | length' <<<"$page") == 0 ]] && break
		out+=$(jq -c '.transactions[] | select(.workflow_id == "sandnet-fork-import") | .events_by_id[] | [.contract_id, .template_id, .create_arguments]' <<<"$page")$'\n'
		after=$(jq -r '.transactions[-1] | ",\"after\":{\"after_migration_id\":\(.migration_id // .event.migration_id),\"after_record_time\":\"\(.record_time)\"}"' <<<"$page")
	done
	sort <<<"$out" | sed '/^$/d'
}
fork_history >"$work/b.rows"
cmp -s "$work/a.rows" "$work/b.rows" || fail "the fork imported other contracts than SV 1's snapshot at $latest holds: $(diff "$work/a.rows" "$work/b.rows" | head -c 800)"
echo "   the fork imported the $(wc -l <"$work/a.rows") contracts of the snapshot at $latest, with the same ids and payloads"
fop=$("$bin" token --data-dir "$work/fork" --user participant_admin)
fsnap=$(curl -sS -H "Authorization: Bearer $fop" -X POST "$fbase/api/sandnet/v0/scan/snapshots")
amulets() { jq -r '[.[] | select(.[1] | endswith(":Splice.Amulet:Amulet")) | .[0]] | sort | .[]' <(jq -sc . "$1"); }
frows=$(rows "$fbase/api/scan/v2/state/acs" '{"migration_id":'"$(jq .migration_id <<<"$fsnap")"',"record_time":"'"$(jq -r .record_time <<<"$fsnap")"'","page_size":500}')
echo "$frows" >"$work/f.rows"
[[ -z "$(comm -23 <(amulets "$work/a.rows") <(amulets "$work/f.rows"))" ]] || fail "an amulet of the source is missing from the fork's ACS snapshot"
echo "   its own ACS snapshot holds all $(amulets "$work/a.rows" | wc -l) amulets of the source"
echo "ok: every step answered as expected"
