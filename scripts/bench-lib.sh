# Helpers shared by scripts/bench-*.sh. Source it from the repository root;
# it is not a script of its own.
#
# Sourcing it creates a scratch directory and installs traps so that
# whatever happens (an error under set -e, Ctrl-C, SIGTERM) every process
# started through these helpers is stopped and the scratch directory is
# removed. Start sandnet with start_sandnet and other long-running helpers
# with run_child, never with a bare `&`. A script may define bench_on_exit
# for its own cleanup; it runs after those processes are stopped.

BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/sandnet-bench.XXXXXX")
SANDNET_PID=""
CHILD_PID=""

# kill_wait PID: SIGTERM, up to 15 s for a clean exit, then SIGKILL.
kill_wait() {
  local pid=$1
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "bench: $pid did not stop in 15 s, killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

bench_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  kill_wait "$CHILD_PID"
  kill_wait "$SANDNET_PID"
  # A script's own cleanup (dropping PostgreSQL schemas), if it has one.
  if declare -F bench_on_exit >/dev/null; then bench_on_exit || true; fi
  rm -rf "$BENCH_TMP"
  exit "$rc"
}
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# build_sandnet: builds the release binary (as the README and the issue
# build it) into $BENCH_TMP and sets SANDNET_BIN.
build_sandnet() {
  SANDNET_BIN="$BENCH_TMP/sandnet"
  CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$SANDNET_BIN" ./cmd/sandnet
}

# pick_port: prints a TCP port nothing listens on (unless PORT is set).
pick_port() {
  if [ -n "${PORT:-}" ]; then echo "$PORT"; return; fi
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  echo "bench: no free port found" >&2
  return 1
}

now_ns() { date +%s%N; }

# start_sandnet LOG ARGS...: starts sandnet start ARGS on a free port and
# waits until /readyz answers 200. Sets SANDNET_PID, SANDNET_URL,
# READY_MS (launch to first 200, as a user's script sees it) and
# STARTUP_MS (what sandnet itself logs: from main's start to ready).
# Fails if the process exits or is not ready within READY_TIMEOUT seconds
# (default 120).
start_sandnet() {
  local log=$1 port t0 t1 deadline
  shift
  port=$(pick_port)
  SANDNET_URL="http://127.0.0.1:$port"
  deadline=$(($(date +%s) + ${READY_TIMEOUT:-120}))
  t0=$(now_ns)
  "$SANDNET_BIN" start --listen "127.0.0.1:$port" --log-level info "$@" >>"$log" 2>&1 &
  SANDNET_PID=$!
  until curl -fs -o /dev/null --max-time 1 "$SANDNET_URL/readyz"; do
    if ! kill -0 "$SANDNET_PID" 2>/dev/null; then
      wait "$SANDNET_PID" 2>/dev/null || true
      SANDNET_PID=""
      echo "bench: sandnet exited before it was ready; its log ($log):" >&2
      tail -n 20 "$log" >&2
      return 1
    fi
    if [ "$(date +%s)" -gt "$deadline" ]; then
      echo "bench: sandnet not ready after ${READY_TIMEOUT:-120} s; its log ($log):" >&2
      tail -n 20 "$log" >&2
      return 1
    fi
    sleep 0.005
  done
  t1=$(now_ns)
  READY_MS=$(((t1 - t0) / 1000000))
  # The last "sandnet is ready … startup=412ms" line of the log.
  STARTUP_MS=$(grep -o 'startup=[0-9.]*[µmun]*s' "$log" | tail -n 1 | sed 's/startup=//' | to_ms)
}

# to_ms: converts a Go duration like 412ms, 1.2s or 950µs on stdin to ms.
to_ms() {
  awk '{
    v = $0
    if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.1f\n", v }
    else if (v ~ /(µs|us)$/) { sub(/(µs|us)$/, "", v); printf "%.3f\n", v / 1000 }
    else if (v ~ /ns$/) { sub(/ns$/, "", v); printf "%.3f\n", v / 1000000 }
    else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.1f\n", v * 1000 }
    else print "?"
  }'
}

# stop_sandnet: SIGTERM and wait; sets STOP_MS.
stop_sandnet() {
  local t0
  t0=$(now_ns)
  kill_wait "$SANDNET_PID"
  STOP_MS=$((($(now_ns) - t0) / 1000000))
  SANDNET_PID=""
}

# rss_kb: resident set (VmRSS) and its peak (VmHWM) of the running sandnet,
# in kB, as "RSS HWM".
rss_kb() {
  awk '/^VmRSS/ {r=$2} /^VmHWM/ {h=$2} END {print r, h}' "/proc/$SANDNET_PID/status"
}

# cpu_ms: user+system CPU time the running sandnet has used so far, in ms.
cpu_ms() {
  # Fields 14 and 15 of /proc/PID/stat, after the parenthesised name.
  local hz
  hz=$(getconf CLK_TCK)
  sed 's/^.*) //' "/proc/$SANDNET_PID/stat" | awk -v hz="$hz" '{printf "%d\n", ($12 + $13) * 1000 / hz}'
}

# run_child CMD...: runs CMD in the background and waits for it, so that
# the traps can stop it (SIGTERM) if the script is interrupted.
run_child() {
  "$@" &
  CHILD_PID=$!
  local rc=0
  wait "$CHILD_PID" || rc=$?
  CHILD_PID=""
  return "$rc"
}

# summarize NAME UNIT VALUES...: prints min / median / max / spread of the
# values.
summarize() {
  local name=$1 unit=$2
  shift 2
  printf '%s\n' "$@" | sort -g | awk -v name="$name" -v unit="$unit" '
    { v[NR] = $1 }
    END {
      if (NR == 0) exit
      med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "  %-28s min %8.1f  median %8.1f  max %8.1f %s  (n=%d, spread %.0f%% of median)\n",
        name, v[1], med, v[NR], unit, NR, med ? 100 * (v[NR] - v[1]) / med : 0
    }'
}
