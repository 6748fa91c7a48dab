# Waiting in the shell tests: for a condition, never for a fixed time.
# Sourced by tests/tracer_lib.sh and tests/http_lib.sh.
#
# wait_until SECONDS WHAT COMMAND [ARGS...]: run COMMAND until it succeeds
# (every 20 ms: the poll's period, not a wait for anything).  Returns 1
# once SECONDS of wall-clock time have passed, with a TAP comment saying
# what it waited for.  Deadlines only bound a failure: make them generous
# (a loaded machine can be 50 times slower than an idle one).
wait_until() {
	wu_secs=$1 wu_what=$2
	shift 2
	wu_end=$(($(date +%s) + wu_secs))
	until "$@"; do
		if [ "$(date +%s)" -ge "$wu_end" ]; then
			echo "# waited $wu_secs s for $wu_what: gave up"
			return 1
		fi
		sleep 0.02
	done
}

# Conditions for wait_until.
# proc_named PID NAME: PID runs the program NAME (it has exec'd)
proc_named() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

# traced_by PID TRACER: PID is ptrace-attached by TRACER (a pid, or a
# grep pattern: '[1-9][0-9]*' for any tracer)
traced_by() {
	grep -q "^TracerPid:[[:space:]]*$2\$" "/proc/$1/status" 2>/dev/null
}

# in_file PATTERN FILE: grep -q, as a condition
in_file() {
	grep -q -e "$1" "$2" 2>/dev/null
}
