#!/bin/sh
# micad attach: detach on SIGINT leaves the target running with its normal
# output and exit status; attach errors say what is wrong; a target
# SIGKILLed mid-trace keeps its results.
. "$top_srcdir/tests/tracer_lib.sh"

# Attach, trace a while, SIGINT: the target finishes normally.
"$ASM/sleeper" > "$TMP/sl.out" &
target=$!
sleep 0.2
"$MICAD" attach -q -o "$TMP/att.counts" "$target" &
m=$!
sleep 0.4
kill -INT "$m"
wait "$m"
is "$?" 0 "attach: micad exits 0 after detaching"
wait "$target"
is "$?" 7 "attach: the target exits with its own status after detach"
is "$(cat "$TMP/sl.out")" "done" "attach: the target's output is intact"
grep -q "tid $target: [1-9][0-9]* instructions (E).*detached" "$TMP/att.counts"
ok $? "attach: instructions were traced and the thread is reported detached"

# Attach until the target exits by itself.
"$ASM/sleeper" > /dev/null &
target=$!
sleep 0.1
"$MICAD" attach -q -o "$TMP/att2.counts" "$target"
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

# EPERM: the target is already traced (by another micad).
"$MICAD" run -q -o /dev/null -- "$ASM/sleeper" > /dev/null &
m=$!
sleep 0.3
target=$(cat /proc/$m/task/$m/children 2>/dev/null | tr -d ' ')
if [ -n "$target" ]; then
	"$MICAD" attach -q "$target" 2>"$TMP/eperm.err"
	is "$?" 1 "attach to a traced process fails"
	grep -q "attach to pid $target: Operation not permitted: it is already traced by pid $m" "$TMP/eperm.err"
	ok $? "EPERM: says which pid traces it"
	kill -9 "$target"
	wait "$m"
	is "$?" 137 "run: a SIGKILLed program gives exit status 128+9"
else
	skip "attach to a traced process fails" "no child found"
	skip "EPERM: says which pid traces it" "no child found"
	skip "run: a SIGKILLed program gives exit status 128+9" "no child found"
	wait "$m"
fi

# SIGKILL mid-trace: the results so far are kept, the end recorded.
"$MICAD" run -q -o "$TMP/kill.counts" -- "$ASM/sleeper" > /dev/null &
m=$!
sleep 0.3
kill -9 "$(cat /proc/$m/task/$m/children | tr -d ' ')"
wait "$m"
grep -q "[1-9][0-9]* instructions (E).*killed by signal 9" "$TMP/kill.counts"
ok $? "SIGKILL mid-trace: counts kept, 'killed by signal 9' recorded"

done_testing
