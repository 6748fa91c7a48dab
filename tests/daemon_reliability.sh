#!/bin/sh
# The daemon's side of issue 20: a failed start is stored with its reason
# and micactl status shows it; micactl list and status right after a
# session ends never fail with "database is locked" (a closing writer
# checkpoints first, readers wait as long as writers).
. "$top_srcdir/tests/tracer_lib.sh"
MICACTL="$top_builddir/micactl"
SOCK="$TMP/s/control.sock"
DB="$TMP/results.db"
export MICAD_SOCKET="$SOCK"

rm -f "$SOCK"
"$MICAD" serve --socket "$SOCK" --db "$DB" 2>>"$TMP/daemon.log" &
daemon=$!
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$SOCK" ]
ok $? "micad serve listens"

"$MICACTL" run -- "$TMP/no such program" 2>"$TMP/run.err"
is "$?" 127 "micactl run of a program that does not exist: exit 127"
s=$(sed -n 's/^micactl: session \([0-9]*\), pid .*/\1/p' "$TMP/run.err" | head -n 1)
[ -n "$s" ] || s=$("$MICACTL" query --db "$DB" --format csv 'select max(id) from session' | sed 1d)
"$MICACTL" status "$s" >"$TMP/status.out" 2>&1
grep -q "^error: *cannot run '$TMP/no such program': No such file or directory" "$TMP/status.out"
ok $? "micactl status $s shows why the start failed: $(grep '^error' "$TMP/status.out")"
grep -q "^state: *error" "$TMP/status.out"
ok $? "... and the state error"

# Sessions back to back, list and status at once after each end.
printf 'analysis_type: all\ninterval_size: 200\n' >"$TMP/mica.conf"
locked=0 failed=0
for n in 1 2 3 4 5 6; do
	"$MICACTL" run -q -c "$TMP/mica.conf" -- "$ASM/branches" >/dev/null 2>"$TMP/r$n.err"
	"$MICACTL" list >"$TMP/l$n.out" 2>&1 || failed=$((failed + 1))
	"$MICACTL" status "$((s + n))" >"$TMP/st$n.out" 2>&1 || failed=$((failed + 1))
	grep -qi locked "$TMP/l$n.out" "$TMP/st$n.out" && locked=$((locked + 1))
done
is "$locked $failed" "0 0" "6 sessions: list and status right after each end never fail (locked, failed)"
is "$(grep -c '^ *[0-9]* *run *exited' "$TMP/l6.out")" 6 "... and list shows the 6 sessions exited"

"$MICACTL" shutdown
wait $daemon
is "$?" 0 "shutdown"
done_testing
