#!/bin/sh
# Sample mode through the daemon: micactl run/attach --sample send the
# options (checked by micactl first), the tracer process chooses the event
# with the client's credentials and its note is the first line on the
# client's stderr; an event that cannot be opened fails the session; an
# attached process detached by Ctrl-C goes on unharmed.
. "$top_srcdir/tests/tracer_lib.sh"
. "$top_srcdir/tests/sample_lib.sh"
MICACTL="$top_builddir/micactl"
SOCK="$TMP/s/control.sock"
DB="$TMP/results.db"
export MICAD_SOCKET="$SOCK"

"$MICAD" serve --socket "$SOCK" --db "$DB" --no-http 2>>"$TMP/daemon.log" &
daemon=$!
wait_until 10 test -S "$SOCK"
ok $? "micad serve listens"

DIR=$(cd "$CPROG" && pwd -P)
"$MICACTL" run --sample --burst 300,200 -- "$DIR/sample_hot" "$DIR/libsample_dl.so" \
	>"$TMP/run.out" 2>"$TMP/run.err"
is "$?" 0 "run --sample: the program's exit status"
is "$(cat "$TMP/run.out")" "done" "run --sample: the program's output"
case "$(head -n 1 "$TMP/run.err")" in
"micad: "*"sampling "*", bursts by ptrace"*) ok 0 "run --sample: the note is the first line" ;;
*) ok 1 "run --sample: the note is the first line"; sed 's/^/#   /' "$TMP/run.err" ;;
esac
grep -q "^micactl: session [0-9]* ended: [1-9][0-9]* instructions traced" "$TMP/run.err"
ok $? "run --sample: bursts stepped instructions"

"$MICACTL" run --burst 300 -- true 2>"$TMP/nosample.err"
is "$?" 2 "run --burst without --sample: a usage error in micactl"
is "$(cat "$TMP/nosample.err")" "micactl: --burst is an option of sample mode: add --sample" \
	"run --burst without --sample: says so"
"$MICACTL" run --sample --overhead 95 -- true 2>"$TMP/bad.err"
is "$?" 2 "run --sample --overhead 95: refused by micactl"

if have_pmu; then
	skip "run --sample -e cycles without a PMU: fails" "this machine has a PMU"
	skip "run --sample -e cycles without a PMU: the reason" "this machine has a PMU"
else
	"$MICACTL" run --sample -e cycles -- sh -c 'echo ran > "$1"' sh "$TMP/ran" \
		2>"$TMP/cycles.err"
	is "$?" 127 "run --sample -e cycles without a PMU: fails as a program that cannot start"
	grep -q "^micad: cannot open event 'cycles': No such file or directory (ENOENT)" "$TMP/cycles.err" &&
		[ ! -e "$TMP/ran" ]
	ok $? "run --sample -e cycles without a PMU: the reason, and the program never ran"
fi

"$CPROG/sample_threads" > "$TMP/ref.out"
"$CPROG/sample_threads" > "$TMP/att.out" &
target=$!
wait_until 10 sh -c "[ \$(ls /proc/$target/task 2>/dev/null | wc -l) -eq 4 ]"
"$MICACTL" attach --sample --burst 300,200 --overhead 20 "$target" 2>"$TMP/att.err" &
m=$!
wait_until 20 grep -q "^micactl: session [0-9]*, pid $target" "$TMP/att.err"
ok $? "attach --sample: the session started"
kill -INT "$m"
wait "$m"
is "$?" 0 "attach --sample: micactl exits 0 after the detach"
wait "$target"
is "$?" 5 "attach --sample: the process exits with its own status"
is "$(cat "$TMP/att.out")" "$(cat "$TMP/ref.out")" "attach --sample: its output is the reference run's"

kill -TERM "$daemon"
wait "$daemon"
is "$?" 0 "the daemon stops on SIGTERM"

done_testing
