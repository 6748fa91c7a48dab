#!/bin/sh
# The traced process outlives micad (issue 20): micad attach, a daemon's
# worker and the daemon itself killed by SIGKILL in the middle of tracing
# (trap-flag steps, leapfrog's planted int3, sample mode's bursts) leave
# the target running untraced, and it ends with its own output and exit
# status (tests/asm/sleeper: "done", 7).
. "$top_srcdir/tests/tracer_lib.sh"

traced() {	# traced PID: PID has a tracer now
	grep -q '^TracerPid:[[:space:]]*[1-9]' "/proc/$1/status" 2>/dev/null
}
untraced() {	# untraced PID: no tracer, or gone
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$1/status" 2>/dev/null || ! kill -0 "$1" 2>/dev/null
}
wait_until() {	# wait_until SECONDS COMMAND...
	_end=$(($(date +%s) + $1)); shift
	until "$@"; do
		[ "$(date +%s)" -ge "$_end" ] && return 1
		sleep 0.05
	done
}
# survive NAME KILLCMD: start the sleeper, let KILLCMD (given $target)
# attach and then kill, and check the sleeper's end
survive() {
	rm -f "$TMP/go"
	"$ASM/sleeper" "$TMP/go" >"$TMP/target.out" &
	target=$!
	eval "$2"
	wait_until 20 untraced "$target"
	ok $? "$1: the target is let go"
	touch "$TMP/go"
	wait "$target"
	is "$?" 7 "$1: the target ends with its own status"
	is "$(cat "$TMP/target.out")" done "$1: and its own output"
}

for mode in tf leapfrog; do
	survive "micad attach --step=$mode, SIGKILL" '
		"$MICAD" attach --no-db --step='$mode' "$target" 2>/dev/null &
		m=$!
		wait_until 20 traced "$target"
		kill -KILL "$m"; wait "$m" 2>/dev/null'
done
survive "micad attach --sample, SIGKILL" '
	"$MICAD" attach --sample --no-db --overhead 50 "$target" 2>/dev/null &
	m=$!
	wait_until 20 traced "$target"
	kill -KILL "$m"; wait "$m" 2>/dev/null'

SOCK="$TMP/s/control.sock"
export MICAD_SOCKET="$SOCK"
start_daemon() {
	rm -f "$SOCK"
	"$MICAD" serve --socket "$SOCK" --db "$TMP/d.db" --no-http 2>"$TMP/daemon.log" &
	daemon=$!
	wait_until 20 test -S "$SOCK"
}
start_daemon
survive "a daemon's worker, SIGKILL" '
	"$top_builddir/micactl" attach -b "$target" 2>/dev/null
	wait_until 20 traced "$target"
	w=$(sed -n "s/.*attach pid $target (worker \([0-9]*\)).*/\1/p" "$TMP/daemon.log")
	[ -n "$w" ] && kill -KILL "$w"'
survive "the daemon, SIGKILL" '
	"$top_builddir/micactl" attach -b "$target" 2>/dev/null
	wait_until 20 traced "$target"
	kill -KILL "$daemon"; wait "$daemon" 2>/dev/null'
done_testing
