# Helpers for sample mode's shell tests (TAP); sourced after tracer_lib.sh.
CPROG="$top_builddir/tests/cprog"

# Whether the kernel has a hardware PMU (else cpu-clock is the fallback).
have_pmu() {
	[ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]
}

# wait_until SECONDS CMD...: poll CMD every 20 ms until it succeeds; 1 if
# the deadline passes first.
wait_until() {
	_deadline=$(($(date +%s%N) + $1 * 1000000000))
	shift
	until "$@"; do
		[ "$(date +%s%N)" -lt "$_deadline" ] || return 1
		sleep 0.02
	done
}

# samples DUMP: the sample lines of a --dump-events file.
samples() {
	grep '^sample ' "$1"
}

# leaf_symbols DUMP: the innermost frame's symbol of each sample.
leaf_symbols() {
	samples "$1" | cut -f2 | sed 's/^0x[0-9a-f]* [^ ]* \(.*\)+0x[0-9a-f]*$/\1/'
}
