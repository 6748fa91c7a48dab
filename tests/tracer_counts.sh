#!/bin/sh
# micad run on tiny assembly programs: E and H (spec mica.md §1.5) must
# equal the hand counts written in each tests/asm/*.S, and the exit status
# must be the program's.
. "$top_srcdir/tests/tracer_lib.sh"

# name  E  H  exit-status
while read -r name e h st; do
	"$MICAD" run -q -o "$TMP/$name.counts" -- "$ASM/$name" > /dev/null 2>"$TMP/$name.err"
	rc=$?
	is "$rc" "$st" "$name: micad exits with the program's status $st"
	is "$(counts_nth "$TMP/$name.counts" 1)" "$e $h" "$name: E=$e H=$h"
done <<'LIST'
loop 304 304 0
rep 34 18 0
calls 48 48 0
branches 60 60 5
memops 20 18 0
signals 38 38 3
selfloop 1014 1014 7
selfmod 44 44 52
LIST

# The program's own int3, caught (SIGTRAP delivered to its handler each
# time) and fatal (killed by SIGTRAP, as when run alone).
"$MICAD" run -q -o "$TMP/int3.counts" -- "$ASM/int3" 2>"$TMP/int3.err"
is "$?" 3 "int3: the handler ran for each of the three breakpoints"
is "$(counts_nth "$TMP/int3.counts" 1)" "26 26" "int3: E=26 H=26 (the handler stepped: SA_NODEFER)"
"$MICAD" run -q -o "$TMP/int3x.counts" -- "$ASM/int3" x 2>"$TMP/int3x.err"
is "$?" 133 "int3 without a handler: killed by SIGTRAP (128+5)"
is "$(counts_nth "$TMP/int3x.counts" 1)" "3 3" "int3 without a handler: E=3 H=3"
grep -q "killed by signal 5" "$TMP/int3x.counts"
ok $? "int3 without a handler: the end is recorded as killed by signal 5"

# Two threads: per-thread counts, pinned and unpinned.
for pin in "" --no-pin; do
	"$MICAD" run -q $pin -o "$TMP/thr.counts" -- "$ASM/threads" 2>"$TMP/thr.err"
	is "$?" 0 "threads$pin: exit status 0"
	is "$(counts_nth "$TMP/thr.counts" 1)" "113 113" "threads$pin: main thread E=H=113"
	is "$(counts_nth "$TMP/thr.counts" 2)" "406 406" "threads$pin: second thread E=H=406"
	main_pid=$(sed -n '1s/^pid \([0-9]*\) .*/\1/p' "$TMP/thr.counts")
	thr_pid=$(sed -n '2s/^pid \([0-9]*\) .*/\1/p' "$TMP/thr.counts")
	is "$thr_pid" "$main_pid" "threads$pin: both threads of one process"
done

# Signals: the program sees SIGUSR1 and SIGALRM (exit status 3 = both).
"$MICAD" run -q -o /dev/null -- "$ASM/signals"
is "$?" 3 "signals: both handlers ran under tracing"

# fork + exec: without --follow-forks only the parent; with it the child
# too (7 instructions before its exec, then branches' 60).
"$MICAD" run -q -o "$TMP/fe.counts" -- "$ASM/forkexec" "$ASM/branches"
is "$?" 5 "forkexec: exit status of the exec'd child"
is "$(wc -l < "$TMP/fe.counts" | tr -d ' ')" 1 "forkexec: one thread traced without --follow-forks"
is "$(counts_nth "$TMP/fe.counts" 1)" "13 13" "forkexec: parent E=H=13"
"$MICAD" run -q --follow-forks -o "$TMP/fe2.counts" -- "$ASM/forkexec" "$ASM/branches"
is "$?" 5 "forkexec --follow-forks: exit status"
is "$(counts_nth "$TMP/fe2.counts" 1)" "13 13" "forkexec --follow-forks: parent E=H=13"
is "$(counts_nth "$TMP/fe2.counts" 2)" "67 67" "forkexec --follow-forks: child 7 + 60 after exec"

# A program that cannot be run.
"$MICAD" run -q -- "$TMP/no-such-program" 2>"$TMP/noexec.err"
is "$?" 127 "cannot exec: exit 127"
grep -q "cannot run.*No such file or directory" "$TMP/noexec.err"
ok $? "cannot exec: the reason is given"

done_testing
