#!/bin/sh
# micad attach: detach on SIGINT leaves the target running with its normal
# output and exit status; attach errors say what is wrong; a target
# SIGKILLed mid-trace keeps its results.  The targets run until the test
# creates their go-file (tests/asm/sleeper PATH), and every wait is for a
# condition (tests/wait.sh): no step depends on how fast the machine is.
. "$top_srcdir/tests/tracer_lib.sh"

# micad_stepped FILE: micad's progress line in FILE shows instructions
micad_stepped() {
	in_file "micad: [1-9][0-9]* instructions" "$1"
}

# Attach, trace a while, SIGINT: the target finishes normally.
"$ASM/sleeper" "$TMP/sl.go" > "$TMP/sl.out" &
target=$!
wait_until 120 "the sleeper to start" proc_named "$target" sleeper
"$MICAD" attach -o "$TMP/att.counts" "$target" 2>"$TMP/att.err" &
m=$!
wait_until 300 "micad attach to show instructions stepped" micad_stepped "$TMP/att.err"
kill -INT "$m"
wait "$m"
is "$?" 0 "attach: micad exits 0 after detaching"
touch "$TMP/sl.go"
wait "$target"
is "$?" 7 "attach: the target exits with its own status after detach"
is "$(cat "$TMP/sl.out")" "done" "attach: the target's output is intact"
grep -q "tid $target: [1-9][0-9]* instructions (E).*detached" "$TMP/att.counts"
ok $? "attach: instructions were traced and the thread is reported detached"

# Attach until the target exits by itself.
"$ASM/sleeper" "$TMP/sl2.go" > /dev/null &
target=$!
wait_until 120 "the sleeper to start" proc_named "$target" sleeper
"$MICAD" attach -q -o "$TMP/att2.counts" "$target" &
m=$!
wait_until 300 "micad to attach to the sleeper" traced_by "$target" "[1-9][0-9]*"
touch "$TMP/sl2.go"
wait "$m"
is "$?" 0 "attach to the end: micad exits 0"
grep -q "tid $target: .*exited with status 7" "$TMP/att2.counts"
ok $? "attach to the end: the exit status is recorded"
wait "$target" 2>/dev/null

# ESRCH.
pid=4000000
while kill -0 "$pid" 2>/dev/null; do pid=$((pid + 1)); done
"$MICAD" attach -q "$pid" 2>"$TMP/esrch.err"
is "$?" 1 "attach to a missing pid fails"
grep -q "attach to pid $pid: no such process" "$TMP/esrch.err"
ok $? "ESRCH: 'no such process'"

# child_traced M: micad M's child runs the sleeper, traced by M (sets target)
child_traced() {
	target=$(cat "/proc/$1/task/$1/children" 2>/dev/null | tr -d ' ')
	[ -n "$target" ] && proc_named "$target" sleeper && traced_by "$target" "$1"
}

# EPERM: the target is already traced (by another micad).
"$MICAD" run -q -o /dev/null -- "$ASM/sleeper" "$TMP/ep.go" > /dev/null &
m=$!
if wait_until 300 "micad run's child to run the sleeper, traced" child_traced "$m"; then
	"$MICAD" attach -q "$target" 2>"$TMP/eperm.err"
	is "$?" 1 "attach to a traced process fails"
	grep -q "attach to pid $target: Operation not permitted: it is already traced by pid $m" "$TMP/eperm.err"
	ok $? "EPERM: says which pid traces it"
	kill -9 "$target"
	wait "$m"
	is "$?" 137 "run: a SIGKILLed program gives exit status 128+9"
else
	ok 1 "attach to a traced process fails (no traced child)"
	ok 1 "EPERM: says which pid traces it (no traced child)"
	ok 1 "run: a SIGKILLed program gives exit status 128+9 (no traced child)"
	kill "$m"
	wait "$m"
fi

# SIGKILL mid-trace: the results so far are kept, the end recorded.
"$MICAD" run -o "$TMP/kill.counts" -- "$ASM/sleeper" "$TMP/kill.go" > /dev/null 2>"$TMP/kill.err" &
m=$!
wait_until 300 "micad run's child to run the sleeper, traced" child_traced "$m" &&
	wait_until 300 "micad run to show instructions stepped" micad_stepped "$TMP/kill.err"
kill -9 "$target"
wait "$m"
grep -q "[1-9][0-9]* instructions (E).*killed by signal 9" "$TMP/kill.counts"
ok $? "SIGKILL mid-trace: counts kept, 'killed by signal 9' recorded"

done_testing
