#!/usr/bin/env bash
# The validator as a new user meets it, with curl only: onboard two users,
# tap coin, and complete, reject, withdraw and expire direct transfers.
# Builds sandnet, starts it on a port the system picks, with a throwaway data dir, checks
# every answer, and always stops it. Exit status 0 when every step answered
# as expected.
#
#   bash scripts/walkthrough.sh        # VERBOSE=1 prints every response
#
# Needs Go, curl and jq.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pid=
cleanup() {
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

(cd "$root" && go build -o "$work/sandnet" ./cmd/sandnet)
source "$root/scripts/start-lib.sh"
start_sandnet "$work/sandnet" "$work/sandnet.log" --data-dir "$work/data" || { pid=$STARTED_PID; exit 1; }
pid=$STARTED_PID base=$STARTED_URL

token() { "$work/sandnet" token --data-dir "$work/data" --user "$1"; }
fail() { echo "FAIL: $*" >&2; tail -20 "$work/sandnet.log" >&2; exit 1; }
# call METHOD PATH TOKEN [BODY]: prints the body, fails on a non-2xx status.
call() {
	local out status
	out=$(curl -sS -o "$work/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3" \
		-H 'Content-Type: application/json' ${4:+-d "$4"} "$base$2") || fail "$1 $2: no answer"
	status=$out
	[[ "${VERBOSE:-}" == 1 ]] && echo "$1 $2 -> $status $(cat "$work/body")" >&2
	[[ "$status" == 2* ]] || fail "$1 $2 answered $status: $(cat "$work/body")"
	cat "$work/body"
}
V=/api/validator
op=$(token participant_admin)

echo "1. the operator onboards carol and dave"
carol_party=$(call POST $V/v0/admin/users "$op" '{"name":"carol"}' | jq -r .party_id)
dave_party=$(call POST $V/v0/admin/users "$op" '{"name":"dave"}' | jq -r .party_id)
carol=$(token carol) dave=$(token dave)
[[ $(call GET $V/v0/wallet/user-status "$carol" | jq -r .user_wallet_installed) == true ]] || fail "carol has no wallet"

echo "2. both tap 10 USD of coin"
call POST $V/v0/wallet/tap "$carol" '{"amount":"10.0"}' >/dev/null
call POST $V/v0/wallet/tap "$dave" '{"amount":"10.0"}' >/dev/null
echo "   carol's balance: $(call GET $V/v0/wallet/balance "$carol" | jq -r .effective_unlocked_qty) CC"

in_an_hour=$(( ($(date +%s) + 3600) * 1000000 ))
offer() { # offer TRACKING_ID AMOUNT EXPIRES_AT
	call POST $V/v0/wallet/transfer-offers "$carol" \
		'{"receiver_party_id":"'"$dave_party"'","amount":"'"$2"'","description":"walkthrough","expires_at":'"$3"',"tracking_id":"'"$1"'"}' | jq -r .offer_contract_id
}
status() { call POST $V/v0/wallet/transfer-offers/$1/status "$carol" | jq -c '{status, failure_kind, withdrawn_reason}'; }
expect() { # expect TRACKING_ID JSON
	local got
	for _ in $(seq 50); do got=$(status "$1"); [[ "$got" == "$2" ]] && break; sleep 0.05; done
	echo "   $1: $got"
	[[ "$got" == "$2" ]] || fail "$1: got $got, want $2"
}

echo "3. a transfer dave accepts completes"
cid=$(offer pay-1 25.0 "$in_an_hour")
call POST $V/v0/wallet/transfer-offers/$cid/accept "$dave" >/dev/null
expect pay-1 '{"status":"completed","failure_kind":null,"withdrawn_reason":null}'

echo "4. a transfer dave rejects fails"
cid=$(offer pay-2 5.0 "$in_an_hour")
call POST $V/v0/wallet/transfer-offers/$cid/reject "$dave" >/dev/null
expect pay-2 '{"status":"failed","failure_kind":"rejected","withdrawn_reason":null}'

echo "5. a transfer carol withdraws fails"
cid=$(offer pay-3 5.0 "$in_an_hour")
call POST $V/v0/wallet/transfer-offers/$cid/withdraw "$carol" >/dev/null
expect pay-3 '{"status":"failed","failure_kind":"withdrawn","withdrawn_reason":"Withdrawn by sender"}'

echo "6. a transfer nobody accepts expires once ledger time passes it"
offer pay-4 5.0 "$in_an_hour" >/dev/null
expect pay-4 '{"status":"created","failure_kind":null,"withdrawn_reason":null}'
call POST /api/sandnet/v0/clock/advance "$op" '{"duration":"2h"}' >/dev/null
expect pay-4 '{"status":"failed","failure_kind":"expired","withdrawn_reason":null}'

echo "7. a transfer bigger than carol's coin fails when dave accepts it"
cid=$(offer pay-5 1000000.0 $(( in_an_hour + 7200 * 1000000 )))
call POST $V/v0/wallet/transfer-offers/$cid/accept "$dave" >/dev/null
for _ in $(seq 50); do [[ $(status pay-5 | jq -r .status) == failed ]] && break; sleep 0.05; done
echo "   pay-5: $(status pay-5)"
[[ $(status pay-5 | jq -r .withdrawn_reason) == "out of funds (missing "* ]] || fail "pay-5 did not fail for lack of funds"

echo "   dave's balance: $(call GET $V/v0/wallet/balance "$dave" | jq -r .effective_unlocked_qty) CC"
echo "ok: every step answered as expected"
