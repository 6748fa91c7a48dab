#!/bin/sh
# Bursts of sample mode against the exact answer: on a stationary loop of
# seven instructions (tests/asm/spinner.S), every burst's events are
# exactly the loop's instructions in order, W of them between the
# warm-up and measure markers and U between measure and end (U a multiple
# of 7: each instruction exactly U/7 times); launched (leapfrog) and
# attached (trap flag); and the budget holds the time threads are held.
. "$top_srcdir/tests/tracer_lib.sh"
. "$top_srcdir/tests/sample_lib.sh"

# The loop's addresses: call f, cmpb (the stop flag), jne (not taken),
# dec, jnz in _start; add, ret in f (not the signal handler after it).
objdump -d --no-show-raw-insn "$ASM/spinner" > "$TMP/spinner.dis"
LOOP=$(awk '/^[0-9a-f]+ <_start>:/ { s = 1; next } /^[0-9a-f]+ <f>:/ { s = 2; next }
	/^[0-9a-f]+ <.*>:/ { s = 0; next }
	s == 1 && $2 ~ /^(call|cmpb|dec|jne)$/ { sub(":", "", $1); print $1 }
	s == 2 && $2 ~ /^(add|ret)$/ { sub(":", "", $1); print $1 }' "$TMP/spinner.dis" |
	sort | tr '\n' ' ')
is "$(echo "$LOOP" | wc -w)" 7 "the spinner's loop is seven instructions ($LOOP)"

# check_bursts NAME W U: every complete burst of dump $TMP/NAME.
check_bursts() {
	awk -v W="$2" -v U="$3" -v loop="$LOOP" '
	BEGIN { n = split(loop, a, " "); for (i = 1; i <= n; i++) inloop[a[i]] = 1 }
	/^burst warmup/ { phase = 1; w = 0; u = 0; delete cnt; prev = ""; next }
	/^burst measure/ { if (phase != 1 || w != W) bad_w++; phase = 2; next }
	/^burst end/ { if (phase != 2 || u != U) bad_u++;
		for (p in inloop) if (cnt[p] != U / 7) bad_even++;
		done++; phase = 0; next }
	/^burst abort/ { aborted++; phase = 0; next }
	/^[0-9]/ { if (!phase) { outside++; next }
		if (!($2 in inloop)) bad_pc++;
		if (prev != "" && prev != $2) bad_chain++;
		prev = $3;
		if (phase == 1) w++; else { u++; cnt[$2]++ } }
	END { printf "%d %d %d %d %d %d %d %d\n", done, aborted, bad_w, bad_u, bad_pc, bad_chain, bad_even, outside }
	' "$TMP/$1" > "$TMP/$1.check"
	read done aborted bad_w bad_u bad_pc bad_chain bad_even outside < "$TMP/$1.check"
	[ "$done" -ge 3 ]
	ok $? "$1: at least 3 complete bursts ($done, $aborted cut short)"
	is "$bad_w" 0 "$1: every warm-up is exactly $2 events"
	is "$bad_u" 0 "$1: every measured unit is exactly $3 events"
	is "$bad_pc" 0 "$1: every event is one of the loop's seven instructions"
	is "$bad_chain" 0 "$1: each event goes where the one before said (next_pc)"
	is "$bad_even" 0 "$1: each loop instruction exactly $(($3 / 7)) times per unit"
	is "$outside" 0 "$1: no event outside a burst"
}

# Launched: leapfrog steps the bursts.
"$MICAD" run --sample --burst 301,200 --overhead 20 --no-db --dump-events "$TMP/run" \
	-- "$ASM/spinner" > "$TMP/run.out" 2> "$TMP/run.err"
is "$?" 7 "run: micad exits with the program's status"
is "$(cat "$TMP/run.out")" "done" "run: the program's output is intact"
check_bursts run 200 301

# The budget: threads held no more than the overhead asked (half as much
# again for bursts a loaded machine makes longer than expected).
"$MICAD" run --sample --burst 300,200 --overhead 10 --no-db -- "$ASM/spinner" > /dev/null \
	2> "$TMP/budget.err"
held=$(sed -n 's/.* bursts (\([0-9]*\) cut short).*threads held .* (\([0-9.]*\)% of the time)$/\2/p' "$TMP/budget.err")
bursts=$(sed -n 's/.*, \([0-9]*\) bursts (.*/\1/p' "$TMP/budget.err")
[ -n "$held" ] && awk -v h="$held" 'BEGIN { exit !(h <= 15) }'
ok $? "budget: --overhead 10 holds the thread at most 15% of the time ($held%)"
[ "${bursts:-0}" -ge 3 ]
ok $? "budget: bursts ran ($bursts)"

# Attached: the trap flag steps the bursts (never an int3 in a process
# micad did not start); SIGINT detaches and the program goes on.  With an
# argument the spinner spins until SIGUSR1 (sent once micad has let go),
# however long the bursts take on a loaded machine.
"$ASM/spinner" wait > "$TMP/att.out" &
target=$!
wait_until 5 grep -q ready "$TMP/att.out"
"$MICAD" attach --sample --burst 301,200 --overhead 20 --no-db --dump-events "$TMP/att" \
	"$target" 2> "$TMP/att.err" &
m=$!
# Three bursts ended (their markers in the dump; more follow, so the
# stream's buffer has written those out).
three_bursts() {
	n_end=$(grep -c '^burst end' "$TMP/att" 2>/dev/null)
	[ "${n_end:-0}" -ge 3 ]
}
wait_until 60 three_bursts
ok $? "attach: bursts run (3 ended in the dump) while the program spins"
kill -INT "$m"
wait "$m"
is "$?" 0 "attach: micad exits 0 after detaching"
wait_until 5 sh -c "grep -q '^TracerPid:[[:space:]]*0$' /proc/$target/status 2>/dev/null || ! kill -0 $target 2>/dev/null"
ok $? "attach: the program is no longer traced"
kill -USR1 "$target"
wait "$target"
is "$?" 7 "attach: the program exits with its own status"
is "$(cat "$TMP/att.out")" "ready
done" "attach: the program's output is intact"
check_bursts att 200 301

done_testing
