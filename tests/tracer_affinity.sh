#!/bin/sh
# CPU affinity after micad (issue 20): micad pins the threads it steps to
# its own CPU; at detach each thread gets back its own mask (three threads
# given three different masks keep them), and 'micactl stop' of a 'run'
# session lets the program run where micad ran before pinning itself.
. "$top_srcdir/tests/tracer_lib.sh"
PROG="$top_builddir/tests/cprog/wait_threads"

if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
	skip "affinity after detach" "needs 2 CPUs and taskset"
	done_testing
fi
wait_until() {	# wait_until SECONDS COMMAND...
	_end=$(($(date +%s) + $1)); shift
	until "$@"; do
		[ "$(date +%s)" -ge "$_end" ] && return 1
		sleep 0.05
	done
}
masks() {	# masks PID: "TID:CPUS ..." of every thread, by tid
	for d in /proc/$1/task/*; do
		printf '%s:%s ' "${d##*/}" "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$d/status")"
	done
}
threads() { [ "$(ls /proc/$1/task 2>/dev/null | wc -l)" -eq 3 ]; }
traced() { grep -q '^TracerPid:[[:space:]]*[1-9]' "/proc/$1/status"; }
untraced() { grep -q '^TracerPid:[[:space:]]*0$' "/proc/$1/status"; }

"$PROG" "$TMP/go1" &
target=$!
wait_until 20 threads "$target"
set -- $(ls /proc/$target/task | sort -n)
taskset -pc 0 "$2" >/dev/null && taskset -pc 1 "$3" >/dev/null
before=$(masks "$target")
echo "# before: $before"
"$MICAD" attach --no-db -q "$target" 2>"$TMP/att.err" &
m=$!
wait_until 20 traced "$target"
pinned=$(masks "$target")
echo "# while traced: $pinned"
[ "$pinned" != "$before" ]
ok $? "attach: micad pinned the threads"
kill -INT "$m"
wait "$m"
wait_until 20 untraced "$target"
is "$(masks "$target")" "$before" "detach: each thread has its own mask back"
touch "$TMP/go1"
wait "$target"
is "$?" 3 "the target ends by itself"

SOCK="$TMP/s/control.sock"
export MICAD_SOCKET="$SOCK"
"$MICAD" serve --socket "$SOCK" --db "$TMP/d.db" --no-http 2>"$TMP/daemon.log" &
daemon=$!
wait_until 20 test -S "$SOCK"
own=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$$/status)
"$top_builddir/micactl" run -q -- "$PROG" "$TMP/go2" 2>"$TMP/run.err" &
c=$!
# The program, not micactl, whose command line holds the same words: the
# process whose executable is $PROG.
exe=$(readlink -f "$PROG")
found() {
	p=
	for q in $(pgrep -f "wait_threads $TMP/go2"); do
		[ "$(readlink "/proc/$q/exe" 2>/dev/null)" = "$exe" ] && p=$q && return 0
	done
	return 1
}
wait_until 20 found
ok $? "the program of the run session is running (pid $p)"
wait_until 20 threads "$p"
s=$(sqlite3 -cmd ".timeout 5000" "$TMP/d.db" "SELECT id FROM session ORDER BY id DESC LIMIT 1" 2>/dev/null)
"$top_builddir/micactl" stop "${s:-1}" 2>/dev/null
wait_until 20 untraced "$p"
unpinned=$(masks "$p" | tr ' ' '\n' | sed -n 's/^[0-9]*://p' | sort -u)
is "$unpinned" "$own" "micactl stop of a run session: the program runs where micad did ($own)"
touch "$TMP/go2"
wait "$c"
is "$?" 0 "micactl run ends (the session was stopped)"
kill "$daemon"
wait "$daemon"
done_testing
