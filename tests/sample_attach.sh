#!/bin/sh
# micad attach --sample to a running multi-threaded process: every thread
# is sampled, bursts run, SIGINT detaches, and the process goes on
# unharmed: untraced, its own output and exit status, the same result as
# a run without micad.  Launched, threads created later are sampled too.
# --duration ends the profile by itself: attach detaches, run lets the
# program go on and still ends with its status.
. "$top_srcdir/tests/tracer_lib.sh"
. "$top_srcdir/tests/sample_lib.sh"

PROG="$CPROG/sample_threads"

"$PROG" > "$TMP/ref.out"
is "$?" 5 "reference run: exit status 5"

"$PROG" > "$TMP/att.out" &
target=$!
# All three workers started: four tasks.
wait_until 10 sh -c "[ \$(ls /proc/$target/task 2>/dev/null | wc -l) -eq 4 ]"
ok $? "the target runs its three threads"
"$MICAD" attach --sample --burst 300,200 --overhead 20 --no-db --dump-events "$TMP/d" \
	"$target" 2> "$TMP/att.err" &
m=$!
wait_until 20 grep -q ' [1-9][0-9]* bursts' "$TMP/att.err"
ok $? "bursts run while attached"
kill -INT "$m"
wait "$m"
is "$?" 0 "micad exits 0 after detaching"
case "$(head -n 1 "$TMP/att.err")" in
"micad: "*"sampling "*) ok 0 "the note is micad's first line" ;;
*) ok 1 "the note is micad's first line"; head -n 1 "$TMP/att.err" ;;
esac
wait_until 5 sh -c "grep -q '^TracerPid:[[:space:]]*0$' /proc/$target/status 2>/dev/null || ! kill -0 $target 2>/dev/null"
ok $? "the target is no longer traced"
wait "$target"
is "$?" 5 "the target exits with its own status"
is "$(cat "$TMP/att.out")" "$(cat "$TMP/ref.out")" "the target's output is the reference run's"

tids=$(samples "$TMP/d" | cut -d' ' -f4 | sort -u | wc -l)
[ "$tids" -ge 3 ]
ok $? "samples of at least three threads ($tids)"
samples "$TMP/d" | awk -v pid="$target" '$3 != pid { bad++ } END { exit bad > 0 }'
ok $? "every sample is of the target's process"
n=$(samples "$TMP/d" | cut -f2 | grep -c " $(cd "$CPROG" && pwd -P)/sample_threads work+0x")
[ "$n" -ge 10 ]
ok $? "samples in work() of the executable ($n)"
ends=$(grep -c '^burst end' "$TMP/d")
starts=$(grep -c '^burst warmup' "$TMP/d")
aborts=$(grep -c '^burst abort' "$TMP/d")
[ "$ends" -ge 1 ] && [ $((ends + aborts)) -eq "$starts" ]
ok $? "every burst ends or is cut short ($starts begun, $ends ended, $aborts cut short)"
awk '/^burst warmup/ { t = $4; n = 0; inb = 1; next } /^burst (end|abort)/ { inb = 0; next }
	/^[0-9]/ && inb && $1 != t { bad++ } END { exit bad > 0 }' "$TMP/d"
ok $? "a burst's events are all of the burst's thread"

# Launched: the workers are created under micad, each gets its event.
"$MICAD" run -q --sample --no-db --dump-events "$TMP/r" -- "$PROG" > "$TMP/run.out"
is "$?" 5 "run: micad exits with the program's status"
is "$(cat "$TMP/run.out")" "$(cat "$TMP/ref.out")" "run: the output is the reference run's"
tids=$(samples "$TMP/r" | awk '$4 != $3 { print $4 }' | sort -u | wc -l)
is "$tids" 3 "run: samples of the three threads created under micad"

# --duration.
"$ASM/spinner" > "$TMP/dur.out" &
target=$!
wait_until 5 grep -q spinner "/proc/$target/comm"
"$MICAD" attach --sample --duration 0.5 --no-db -o "$TMP/dur.counts" "$target" 2>/dev/null
is "$?" 0 "attach --duration: micad ends by itself"
grep -q "tid $target: .*detached" "$TMP/dur.counts"
ok $? "attach --duration: the thread is reported detached"
wait "$target"
is "$?" 7 "attach --duration: the program exits with its own status"
is "$(cat "$TMP/dur.out")" "done" "attach --duration: its output is intact"
"$MICAD" run --sample --duration 0.3 --no-db -o "$TMP/rdur.counts" -- "$ASM/spinner" \
	> "$TMP/rdur.out" 2>/dev/null
is "$?" 7 "run --duration: micad still ends with the program's status"
grep -q "detached" "$TMP/rdur.counts"
ok $? "run --duration: the program was detached"
is "$(cat "$TMP/rdur.out")" "done" "run --duration: its output is intact"

done_testing
