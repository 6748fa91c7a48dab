#!/bin/sh
# Why an attach is refused, as the case actually is (issue 20): a kernel
# thread, a zombie, an already traced process.
. "$top_srcdir/tests/tracer_lib.sh"

kt=$(grep -l '^Kthread:[[:space:]]*1' /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3)
if [ -n "$kt" ]; then
	"$MICAD" attach --no-db "$kt" 2>"$TMP/kt.err"
	is "$?" 1 "attach to a kernel thread fails"
	grep -q "attach to pid $kt: Operation not permitted: it is a kernel thread" "$TMP/kt.err"
	ok $? "and says it is a kernel thread"
else
	skip "attach to a kernel thread" "no kernel thread visible here"
	skip "kernel thread message" "no kernel thread visible here"
fi

# A zombie: a child that exited, its parent (exec'd into sleep) not reaping.
sh -c 'sleep 0.01 & exec sleep 30' &
parent=$!
zombie=
for i in $(seq 1 200); do
	zombie=$(ps -o pid= -o stat= --ppid "$parent" 2>/dev/null | awk '$2 ~ /^Z/ { print $1 }')
	[ -n "$zombie" ] && break
	sleep 0.05
done
"$MICAD" attach --no-db "$zombie" 2>"$TMP/z.err"
is "$?" 1 "attach to a zombie fails"
grep -q "attach to pid $zombie: Operation not permitted: it is a zombie" "$TMP/z.err"
ok $? "and says it is a zombie"
kill "$parent"

# Already traced: by strace.
if command -v strace >/dev/null; then
	"$ASM/sleeper" "$TMP/go" >/dev/null &
	target=$!
	strace -p "$target" -o /dev/null 2>/dev/null &
	st=$!
	for i in $(seq 1 200); do
		grep -q '^TracerPid:[[:space:]]*[1-9]' "/proc/$target/status" && break
		sleep 0.05
	done
	"$MICAD" attach --no-db "$target" 2>"$TMP/tr.err"
	is "$?" 1 "attach to a process strace traces fails"
	grep -q "attach to pid $target: Operation not permitted: it is already traced by pid $st" "$TMP/tr.err"
	ok $? "and names its tracer"
	kill "$st"
	touch "$TMP/go"
	wait "$target"
else
	skip "attach to a traced process" "strace is not installed"
	skip "already traced message" "strace is not installed"
fi
done_testing
