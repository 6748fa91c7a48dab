#!/bin/sh
# The results database when things end badly: kill -9 of micad in the
# middle of a trace (the file passes integrity_check, holds every
# committed interval, and the next writer marks the session cut-off, but
# not while its writer is alive); a target killed mid-trace; SIGTERM to
# 'micad run'; SIGINT to 'micad attach'.  Every finished interval is
# written and the session says how it ended.
. "$top_srcdir/tests/tracer_lib.sh"

MICACTL="$top_builddir/micactl"
DB="$TMP/crash.db"
printf 'analysis_type: all\ninterval_size: 2000\n' > "$TMP/all.conf"

q() {
	"$MICACTL" query --db "$DB" --format csv "$1" 2>/dev/null | tail -n +2
}

# wait_for SQL: until the query gives a non-empty, non-zero answer (at
# most 300 s, tests/wait.sh; the test then fails on its own checks)
sql_true() {
	v=$(q "$1")
	[ -n "$v" ] && [ "$v" != 0 ]
}
wait_for() {
	wait_until 300 "$1" sql_true "$1"
}

# The first child of process $1.
child_of() {
	cat "/proc/$1/task/$1/children" 2>/dev/null | cut -d' ' -f1
}

# 1. kill -9 of micad mid-trace (spinner runs far longer than the test).
"$MICAD" run -q -c "$TMP/all.conf" --db "$DB" -o /dev/null -- "$ASM/spinner" > /dev/null 2>"$TMP/m1.err" &
m=$!
wait_for "SELECT count(*) >= 3 FROM interval WHERE session_id = 1"
ok $? "a long run commits intervals while it traces"
# Another micad writes the same file meanwhile: its open must not cut off
# the running session.
"$MICAD" run -q --db "$DB" -o /dev/null -- "$ASM/loop" > /dev/null 2>&1
ok $? "a second micad writes the same database at the same time"
is "$(q 'SELECT end_reason FROM session WHERE id = 1')" running \
	"the live session is not cut off by another writer"
is "$(q 'SELECT end_reason FROM session WHERE id = 2')" exited "the second session ended"
n1=$(q 'SELECT count(*) FROM interval WHERE session_id = 1')
kill -9 "$m"
wait "$m" 2>/dev/null
is "$(q 'PRAGMA integrity_check')" ok "after kill -9: integrity_check ok"
n2=$(q 'SELECT count(*) FROM interval WHERE session_id = 1')
[ "$n2" -ge "$n1" ] && [ "$n1" -ge 3 ]
ok $? "after kill -9: every interval committed before it is there ($n1 seen, $n2 kept)"
v=$(q 'SELECT count(*) = max(idx) + 1 FROM interval WHERE session_id = 1')
is "$v" 1 "after kill -9: the kept intervals are 0..$((n2 - 1)), no gap"
if [ "$v" != 1 ]; then
	echo "# kept: $(q "SELECT group_concat(idx, ' ') FROM interval WHERE session_id = 1")"
	sed 's/^/# micad: /' "$TMP/m1.err"
fi
is "$(q 'SELECT count(*) FROM ilp i JOIN interval v ON v.id = i.interval_id WHERE v.session_id = 1')" \
	"$((n2 * 4))" "after kill -9: each kept interval has all its rows (4 ILP windows each)"
is "$(q 'SELECT end_reason FROM session WHERE id = 1')" running \
	"after kill -9: the session still says running (nobody opened the file to write)"
"$MICAD" run -q --db "$DB" -o /dev/null -- "$ASM/loop" > /dev/null 2>&1
is "$(q 'SELECT end_reason FROM session WHERE id = 1')" cut-off \
	"the next micad marks the dead writer's session cut-off"
is "$(q 'SELECT ended_at = (SELECT max(ended_at) FROM interval WHERE session_id = 1) FROM session WHERE id = 1')" 1 \
	"a cut-off session ends at its last interval"
is "$(q 'SELECT count(*) FROM interval WHERE session_id = 1')" "$n2" "the cut-off session keeps its intervals"

# 2. The target killed mid-trace: its last interval is written.
"$MICAD" run -q -c "$TMP/all.conf" --db "$DB" -o /dev/null -- "$ASM/spinner" > /dev/null 2>&1 &
m=$!
wait_for "SELECT count(*) >= 2 FROM interval WHERE session_id = 4"
kill -9 "$(child_of "$m")"
wait "$m"
is "$?" 137 "target killed: micad exits 128+9"
is "$(q "SELECT end_reason || ' ' || exit_status FROM session WHERE id = 4")" "killed 137" \
	"target killed: the session says killed, 137"
is "$(q "SELECT end_reason || ' ' || exit_status FROM thread WHERE session_id = 4")" "killed 137" \
	"target killed: so does its thread"
is "$(q 'SELECT final FROM interval WHERE session_id = 4 ORDER BY idx DESC LIMIT 1')" 1 \
	"target killed: the last (final) interval is written"

# 3. SIGTERM to 'micad run': passed on to the program, which dies of it.
"$MICAD" run -c "$TMP/all.conf" --db "$DB" -o /dev/null -- "$ASM/spinner" > /dev/null 2> "$TMP/term.err" &
m=$!
wait_for "SELECT count(*) >= 2 FROM interval WHERE session_id = 5"
kill -TERM "$m"
wait "$m"
is "$?" 143 "SIGTERM: micad run exits 128+15"
is "$(q "SELECT end_reason || ' ' || exit_status FROM session WHERE id = 5")" "killed 143" \
	"SIGTERM: the session says killed, 143"
is "$(q 'SELECT final FROM interval WHERE session_id = 5 ORDER BY idx DESC LIMIT 1')" 1 \
	"SIGTERM: the final interval is written"
grep -q "^micad: session 5 in $DB\$" "$TMP/term.err"
ok $? "the session id and database are printed at the end"

# 4. SIGINT to 'micad attach': detach; the target goes on.
"$ASM/spinner" > /dev/null &
target=$!
"$MICAD" attach -q -c "$TMP/all.conf" --db "$DB" -o /dev/null "$target" > /dev/null 2>&1 &
m=$!
wait_for "SELECT count(*) >= 2 FROM interval WHERE session_id = 6"
kill -INT "$m"
wait "$m"
is "$?" 0 "SIGINT: micad attach detaches and exits 0"
kill -0 "$target" 2>/dev/null
ok $? "SIGINT: the target still runs"
kill -9 "$target"
wait "$target" 2>/dev/null
is "$(q "SELECT mode || ' ' || end_reason || ' ' || ifnull(exit_status, 'NULL') || ' ' || (pid = $target) FROM session WHERE id = 6")" \
	"attach detached NULL 1" "SIGINT: the session says detached, no exit status"
is "$(q 'SELECT final FROM interval WHERE session_id = 6 ORDER BY idx DESC LIMIT 1')" 1 \
	"SIGINT: the final interval is written"
is "$(q 'SELECT end_reason FROM thread WHERE session_id = 6')" detached "SIGINT: the thread says detached"
is "$(q 'PRAGMA integrity_check')" ok "integrity_check at the end"
done_testing
