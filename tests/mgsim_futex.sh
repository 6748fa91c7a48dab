#!/bin/sh
# MGSim counter 12 (xq_total: the integral of the tasks blocked in a futex
# wait-class syscall over master cycles) on a real traced program,
# tests/asm/futex.S: the main thread waits on the new thread's tid word
# (FUTEX_WAIT, as pthread_join) while that thread counts down 5000
# (10006 instructions), after a FUTEX_WAIT of its own that does not block
# while it is alone.
#  - tests/mgsim_trace with one core cycle per event: counter 12 equals
#    what this script derives from the event dump on its own (for each
#    futex syscall event of the main thread, the events of others between
#    its previous event and it), lies within [10006 - 100, 10006] (the
#    waiter blocks within the thread's first few instructions, and only
#    that thread runs while it waits), and the non-blocking wait adds 0;
#  - the same trace recorded and replayed from the file gives the same
#    counters; xq=off gives 0; a program with no futex wait gives 0;
#  - micad run into a database (the scheduling model's cycles): counter 12
#    at the main thread's end is within [0.9, 1] x the cycles of the
#    thread's life (it is all inside the thread's life; 10% for the cycles
#    the model hands over in batches around the wait's start), and
#    xq_avg of the main thread's interval (mgsim_delta) is in (0.9, 1]
#    (it waits for nearly the whole run, and it is the only waiter).
. "$top_srcdir/tests/tracer_lib.sh"

DRV="$top_builddir/tests/mgsim_trace"
PROG="$ASM/futex"

counter() {	# counter NAME FILE
	sed -n "s/^counter $1 //p" "$2"
}

# The address of symbol $1 of $PROG as the dump prints it (hex, no 0x).
sym() {
	nm "$PROG" | awk -v s="$1" '$3 == s { sub(/^0+/, "", $1); print $1 }'
}
FUTEX=$(sym futex_call)
NOWAIT=$(sym nowait_call)
[ -n "$FUTEX" ] && [ -n "$NOWAIT" ]
ok $? "futex: the syscall addresses from nm ($FUTEX, $NOWAIT)"

"$DRV" -u -d "$TMP/f.dump" -R "$TMP/f.trace" -- "$PROG" > "$TMP/f.out"
ok $? "futex: traced with one cycle per event, recorded"
is "$(sed -n 's/^insns //p' "$TMP/f.out")" "10036 10036" \
	"futex: E = H = 30 (main) + 10006 (thread), the hand count"

# gaps DUMP PC: per event at PC of the first thread, the events of other
# threads since that thread's previous event; one number per line.
gaps() {
	awk -v pc="$2" '
	NR == 1 { main = $1 }
	$1 == main {
		if ($2 == pc) print NR - last - 1
		last = NR
	}' "$1"
}
xq=$(counter xq_total "$TMP/f.out")
want=$(gaps "$TMP/f.dump" "$FUTEX" | awk '{ s += $1 } END { print s + 0 }')
is "$xq" "$want" "futex: counter 12 = the other thread's events during the waits (dump)"
[ "$xq" -ge 9906 ] && [ "$xq" -le 10006 ]
ok $? "futex: 10006 - 100 <= counter 12 ($xq) <= 10006"
is "$(gaps "$TMP/f.dump" "$NOWAIT")" 0 "futex: the wait while alone: no other event, 0"
is "$(sed -n 's/^futex_waits //p' "$TMP/f.out")" "$(gaps "$TMP/f.dump" "$FUTEX" | wc -l | tr -d ' ')" \
	"futex: one charged wait per futex_call event of the waiter"
awk -v a="$FUTEX" -v b="$NOWAIT" '($2 == a || $2 == b) && int($4 / 32) % 2 != 1 { bad++ }
	END { exit bad > 0 }' "$TMP/f.dump"
ok $? "futex: its syscall events carry EV_SYSCALL (32) in the dump"
is "$(sed -n 's/^check //p' "$TMP/f.out")" 0 \
	"futex: the invariants hold (counter 12 <= (2 - 1) x counter 0 included)"
c0=$(counter clocks "$TMP/f.out")
[ "$xq" -lt "$c0" ]
ok $? "futex: counter 12 ($xq) < counter 0 ($c0)"

"$DRV" -u -r "$TMP/f.trace" > "$TMP/r.out"
ok $? "futex: the recorded trace replays"
grep -E '^(counter|futex_waits|insns)' "$TMP/f.out" > "$TMP/f.cnt"
grep -E '^(counter|futex_waits|insns)' "$TMP/r.out" > "$TMP/r.cnt"
cmp -s "$TMP/f.cnt" "$TMP/r.cnt"
ok $? "futex: the replay gives the same counters (counter 12 = $(counter xq_total "$TMP/r.out"))"

"$DRV" -u -c xq=off -- "$PROG" > "$TMP/off.out"
is "$(counter xq_total "$TMP/off.out")" 0 "futex, xq=off: counter 12 = 0"
"$DRV" -u -- "$ASM/threads" > "$TMP/thr.out"
is "$(counter xq_total "$TMP/thr.out")" 0 "threads (two threads, no futex wait): counter 12 = 0"

# micad run into a database.
if ! command -v sqlite3 > /dev/null 2>&1; then
	skip "micad run: counter 12 and xq_avg in the database" "no sqlite3 command"
	done_testing
fi
db="$TMP/r.db"
"$MICAD" run -q --db "$db" --mcpu skylake -o "$TMP/run.counts" -- "$PROG"
ok $? "micad run --db of the futex program"
q() {
	sqlite3 "$db" "$1"
}
main=$(sed -n '1s/^pid [0-9]* tid \([0-9]*\):.*/\1/p' "$TMP/run.counts")
thr=$(sed -n '2s/^pid [0-9]* tid \([0-9]*\):.*/\1/p' "$TMP/run.counts")
xq=$(q "SELECT xq_total FROM mgsim_counters WHERE tid = $main AND idx = 0")
life=$(q "SELECT e.clocks - s.clocks FROM mgsim_counters s JOIN mgsim_counters e
	  ON e.tid = s.tid AND s.idx = -1 AND e.idx = 0 WHERE s.tid = $thr")
[ -n "$xq" ] && [ -n "$life" ] && [ "$xq" -gt 0 ] && [ "$xq" -le "$life" ] &&
	[ "$((10 * xq))" -ge "$((9 * life))" ]
ok $? "micad run: 0.9 x the thread's $life cycles <= counter 12 ($xq) <= $life"
avg=$(q "SELECT xq_avg FROM mgsim_delta WHERE tid = $main")
awk -v a="$avg" 'BEGIN { exit !(a > 0.9 && a <= 1) }'
ok $? "micad run: xq_avg of the main thread's interval ($avg) in (0.9, 1]"
done_testing
