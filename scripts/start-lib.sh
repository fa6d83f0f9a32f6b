# Sourced by the curl tours (walkthrough.sh, scenario.sh) and the client
# checks (clients/run.sh): starting a sandnet on a port the system picks.

# start_sandnet BIN LOG ARGS...: runs `BIN start --listen 127.0.0.1:0 ARGS`
# in the background, its output in LOG, and waits until its log says it is
# ready and at which URL, so that no port is ever guessed free. Sets
# STARTED_PID and STARTED_URL. Fails, with the log's tail, when the process
# exits first or is not ready within READY_TIMEOUT seconds (default 120).
start_sandnet() {
	local bin=$1 log=$2 deadline
	shift 2
	deadline=$(($(date +%s) + ${READY_TIMEOUT:-120}))
	"$bin" start --listen 127.0.0.1:0 --log-format text "$@" >"$log" 2>&1 </dev/null &
	STARTED_PID=$!
	STARTED_URL=
	while [[ -z "$STARTED_URL" ]]; do
		if ! kill -0 "$STARTED_PID" 2>/dev/null; then
			echo "sandnet exited before it was ready; its log ($log):" >&2
			tail -n 30 "$log" >&2
			return 1
		fi
		if (($(date +%s) > deadline)); then
			echo "sandnet not ready after ${READY_TIMEOUT:-120} s; its log ($log):" >&2
			tail -n 30 "$log" >&2
			return 1
		fi
		sleep 0.05
		STARTED_URL=$(sed -n 's/.*msg="sandnet is ready" url=\([^ ]*\).*/\1/p' "$log" | head -n 1)
	done
}
