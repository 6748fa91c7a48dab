#!/bin/sh
# Nothing collected is lost, and micad says what it lost (issue 20):
# --mica-out checked before the program starts; MICA files that fail (a
# full disk) stop alone while the database keeps every interval; a full
# disk under the database: said once, the session marked incomplete with
# the reason, micad exits non-zero; a damaged database refused at open; a
# failed start stored with its reason; SIGTERM during the start-up acted
# on; -q silences a warning that repeats on every run; no carriage return
# in a progress line that is not on a terminal.  The full disks are small
# tmpfs mounts in a mount namespace of their own (skipped without one).
. "$top_srcdir/tests/tracer_lib.sh"
MICACTL="$top_builddir/micactl"
PROG="$top_builddir/tests/cprog/static_prog"	# about 81,000 instructions

q() {	# q DB SQL: one value
	"$MICACTL" query --db "$1" --format csv "$2" 2>&1 | sed 1d
}

# in_tmpfs SIZE DIR CMD...: CMD with a SIZE tmpfs on DIR, in a private mount
# namespace (the mount goes with it); 77 when no namespace can be made.
in_tmpfs() {
	size=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	unshare --mount --propagation private sh -c \
		'mount -t tmpfs -o size="$1" tmpfs "$2" 2>/dev/null || exit 77; shift 2; exec "$@"' \
		sh "$size" "$dir" "$@"
}
tmpfs_ok=0
in_tmpfs 64k "$TMP/probe" true 2>/dev/null || tmpfs_ok=1

# --mica-out DIR that does not exist: refused before anything starts.
printf 'analysis_type: all\ninterval_size: 200\n' > "$TMP/mica.conf"
"$MICAD" run -q --db "$TMP/a.db" -c "$TMP/mica.conf" --mica-out "$TMP/nowhere" -- "$ASM/loop" \
	> /dev/null 2> "$TMP/a.err"
rc=$?
[ $rc -ne 0 ] && grep -q "^micad: --mica-out $TMP/nowhere: No such file or directory" "$TMP/a.err" &&
	grep -q "mkdir -p" "$TMP/a.err" && ! grep -q "instructions (E)" "$TMP/a.err"
ok $? "--mica-out to a directory that does not exist: refused up front (exit $rc), nothing traced"
[ ! -e "$TMP/a.db" ] || [ "$(q "$TMP/a.db" 'select count(*) from session')" = 0 ]
ok $? "... and no session was started"
printf 'pc=0x1000 sz=1\n' > "$TMP/one.txt"
"$MICAD" replay -q --no-db -c "$TMP/mica.conf" --mica-out "$TMP/nowhere" "$TMP/one.txt" \
	> /dev/null 2> "$TMP/a2.err"
rc=$?
[ $rc -ne 0 ] && grep -q "^micad: --mica-out $TMP/nowhere: No such file or directory" "$TMP/a2.err"
ok $? "... and for micad replay (exit $rc)"

# An output file that cannot be made: said before anything runs, no crash.
"$MICAD" run --no-db -o /proc/nope/x -- "$ASM/loop" > /dev/null 2> "$TMP/o.err"
rc=$?
[ $rc -eq 127 ] && grep -q "cannot write the counts file '/proc/nope/x': No such file or directory" "$TMP/o.err" &&
	! grep -q "instructions (E)" "$TMP/o.err"
ok $? "-o /proc/nope/x: refused up front (exit $rc), nothing traced"

# A failed start: stored with its reason.
"$MICAD" run -q --db "$TMP/b.db" -- "$TMP/no such program" 2> "$TMP/b.err"
rc=$?
is "$rc" 127 "a program that does not exist: exit 127"
is "$(q "$TMP/b.db" "select end_reason || '|' || error from session")" \
	"error|cannot run '$TMP/no such program': No such file or directory" \
	"the failed start is stored with its reason in the session"

# MICA files on a full disk: they stop (said once); the database keeps
# every interval, the session says what is missing, micad exits 1.
if [ $tmpfs_ok -eq 0 ]; then
	in_tmpfs 96k "$TMP/small" "$MICAD" run -q --db "$TMP/c.db" -c "$TMP/mica.conf" \
		--mica-out "$TMP/small" -o "$TMP/c.counts" -- "$PROG" > /dev/null 2> "$TMP/c.err"
	rc=$?
	is "$rc" 1 "MICA files on a full disk: micad exits 1 although the program exited 0"
	is "$(grep -c '^micad: MICA files in' "$TMP/c.err")" 1 \
		"the MICA files' failure is said once: $(grep '^micad: MICA files in' "$TMP/c.err")"
	e=$(sed -n 's/^pid [0-9]* tid [0-9]*: \([0-9]*\) instructions (E).*/\1/p' "$TMP/c.counts")
	is "$(q "$TMP/c.db" 'select (count(*) = max(idx) + 1 and sum(final) = 1) || max(total_ins) as v from interval')" \
		"1$e" "the database keeps every interval ($e instructions, no gap, the final one)"
	is "$(q "$TMP/c.db" "select end_reason || '|' || (incomplete like 'MICA files in %: not written from interval % on: %No space left on device%') from session")" \
		"exited|1" "the session reads exited, incomplete: the MICA files' reason"
else
	for i in 1 2 3 4; do skip "MICA files on a full disk" "no mount namespace (unshare)"; done
fi

# The database on a full disk: said once, the session marked incomplete
# with the reason, micad exits 1, tracing went on to the program's end.
# 528k: the schema, a few batches, and the writer's 128 KiB reserve,
# freed to write the session's end once the disk is full (without it,
# that last write failed about one run in four).
if [ $tmpfs_ok -eq 0 ]; then
	in_tmpfs 528k "$TMP/full" sh -c '"$0" run -q --db "$1/d.db" --interval 200 \
		-o "$3/d.counts" -- "$2" > /dev/null 2> "$3/d.err"; echo $? > "$3/d.rc";
		cp "$1"/d.db* "$3"' "$MICAD" "$TMP/full" "$PROG" "$TMP"
	is "$(cat "$TMP/d.rc")" 1 "the database on a full disk: micad exits 1"
	n=$(grep -c 'results database' "$TMP/d.err")
	is "$n" 1 "the database's failure is said once, not once per batch: $(grep 'results database' "$TMP/d.err")"
	grep -q "exited with status 0" "$TMP/d.counts"
	ok $? "the program was traced to its end"
	reason=$(q "$TMP/d.db" "select end_reason || '|' || incomplete from session")
	case $reason in
	"exited|"[0-9]*" results not written to the database ("*"database or disk is full)") r=0 ;;
	*) r=1 ;;
	esac
	ok $r "the session is marked incomplete with the reason: $reason"
	grep -q "is incomplete: [0-9]* results not written" "$TMP/d.err"
	ok $? "micad says the session is incomplete and why"
else
	for i in 1 2 3 4 5; do skip "the database on a full disk" "no mount namespace (unshare)"; done
fi

# A database that fails its integrity check is refused, with what to do,
# and left as it was.
"$MICAD" run -q --db "$TMP/e.db" -- "$ASM/loop" 2> /dev/null
root=$(q "$TMP/e.db" "select rootpage from sqlite_schema where name = 'interval'")
printf '\377\377\377\377' | dd of="$TMP/e.db" bs=1 seek=$(((root - 1) * 4096)) conv=notrunc \
	2> /dev/null
cp "$TMP/e.db" "$TMP/e.copy"
"$MICAD" run -q --db "$TMP/e.db" -- "$ASM/loop" 2> "$TMP/e.err"
rc=$?
[ $rc -ne 0 ] && grep -q "e.db fails its integrity check (.*): nothing more is written to it. Move it away (mv " "$TMP/e.err"
ok $? "a damaged database is refused at open: $(head -c 300 "$TMP/e.err")"
cmp -s "$TMP/e.db" "$TMP/e.copy"
ok $? "... and not written to"

# SIGTERM during the start-up (here: --record to a FIFO, whose open waits
# for a reader): micad stops the start-up and says so; no session is left
# 'running'.
mkfifo "$TMP/fifo"
"$MICAD" run -q --db "$TMP/f.db" --record "$TMP/fifo" -- "$ASM/loop" 2> "$TMP/f.err" &
pid=$!
i=0
while [ "$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)" != 257 ] && [ $i -lt 400 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -TERM $pid
wait $pid
rc=$?
is "$rc" 143 "SIGTERM during the start-up: exit 128+15"
grep -q "interrupted by SIGTERM during the start-up: the program was not started" "$TMP/f.err"
ok $? "... said: $(tail -n 1 "$TMP/f.err")"
[ ! -e "$TMP/f.db" ] || [ "$(q "$TMP/f.db" "select count(*) from session where end_reason = 'running'")" = 0 ]
ok $? "... and no session is left 'running'"

# -q silences the warning that comes on every run of a CPU without a
# uop-level model (the live scheduling model falls back to skylake).
"$MICAD" run --db "$TMP/g.db" --mcpu znver3 -o /dev/null -- "$ASM/loop" 2> "$TMP/g.err"
grep -q "no uop-level model of 'znver3'" "$TMP/g.err"
ok $? "without -q: the fall-back warning is given"
"$MICAD" run -q --db "$TMP/g.db" --mcpu znver3 -o /dev/null -- "$ASM/loop" 2> "$TMP/g.err"
ok $(grep -c . "$TMP/g.err") "with -q: nothing on stderr ($(cat "$TMP/g.err"))"

# The progress line: no carriage return unless stderr is a terminal.  The
# line comes once a second: trace for 2.5 s (a duration, not a wait for an
# event), then SIGTERM, which micad passes on to the program.
micad_under() {	# micad_under PID: the micad processes among PID's descendants
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[ "$(cat /proc/$c/comm 2>/dev/null)" = micad ] && echo "$c"
		micad_under "$c"
	done
}
trace_for() {	# trace_for SECONDS: let the traced spinner run that long
	end=$(($(date +%s%N) + $1 * 1000000000))
	while [ "$(date +%s%N)" -lt $end ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
	done
}
"$MICAD" run --no-db -o /dev/null -- "$ASM/spinner" > /dev/null 2> "$TMP/h.err" &
pid=$!
trace_for 3
kill -TERM $pid
wait $pid
ok $(tr -cd '\r' < "$TMP/h.err" | wc -c) "progress on a file: no carriage return"
if command -v script > /dev/null; then
	script -qec "'$MICAD' run --no-db -o /dev/null -- '$ASM/spinner'" /dev/null \
		> "$TMP/i.out" 2>&1 &
	pid=$!
	trace_for 3
	kill -TERM $(micad_under $pid) 2>/dev/null
	wait $pid
	[ "$(tr -cd '\r' < "$TMP/i.out" | wc -c)" -gt 0 ]
	ok $? "progress on a terminal: rewritten in place with carriage returns"
else
	skip "progress on a terminal" "script(1) not found"
fi
done_testing
