#!/bin/sh
# The MICA analyses in groups on threads of their own (micad run
# --analysis-threads N, daemon/session/event_fanout.c): every MICA file
# byte for byte what one thread writes, for N = 2, 3 and 8 (more than
# there are analyses), in full mode and in intervals of 200 and 1000
# instructions, on a C program (81 K instructions: some twenty batches of
# events, 400 intervals), two threads, and fork+exec followed; a subset of
# the analyses too, and the database's intervals.  Step mode without
# address randomization, so that the runs see the same events; under the
# valgrind engine too when it is built.
. "$top_srcdir/tests/tracer_lib.sh"

if ! command -v setarch > /dev/null 2>&1; then
	skip "analysis threads" "setarch (util-linux) is not installed"
	done_testing
fi

# rename_threads DIR: the files of a thread other than the first carry its
# number, which is another in each run
rename_threads() {
	for f in "$1"/*_[0-9]*_pin.out; do
		[ -e "$f" ] && mv "$f" "$(echo "$f" | sed 's/_[0-9][0-9]*_pin\.out$/_N_pin.out/')"
	done
	rm -f "$1/mica_progress.txt"
}

printf 'analysis_type: all\ninterval_size: full\n' > "$TMP/full.conf"
printf 'analysis_type: all\ninterval_size: 200\n' > "$TMP/int200.conf"
printf 'analysis_type: all\ninterval_size: 1000\n' > "$TMP/int1000.conf"
printf 'analysis_type: memstackdist\ninterval_size: 200\n' > "$TMP/one.conf"
printf 'analysis_type: ilp_one\nilp_size: 64\ninterval_size: 200\n' > "$TMP/ilp_one.conf"

# run NAME N CONF PROG ARGS...: MICA files into $TMP/NAME-N
run() {
	name=$1 n=$2 conf=$3
	shift 3
	mkdir -p "$TMP/$name-$n"
	setarch -R "$MICAD" run --no-db -q -o "$TMP/$name-$n.counts" --follow-forks \
		--analysis-threads "$n" -c "$TMP/$conf.conf" --mica-out "$TMP/$name-$n" -- "$@" \
		> /dev/null 2>"$TMP/$name-$n.err"
	echo $? > "$TMP/$name-$n.rc"
	rename_threads "$TMP/$name-$n"
}

# same NAME MIN_FILES: the threaded runs' files equal the single thread's
same() {
	n1=$(ls "$TMP/$1-1" | wc -l)
	for n in 2 3 8; do
		diff -r "$TMP/$1-1" "$TMP/$1-$n" > "$TMP/$1-$n.diff" 2>&1 && [ "$n1" -ge "$2" ] &&
			cmp -s "$TMP/$1-1.rc" "$TMP/$1-$n.rc" && [ ! -s "$TMP/$1-$n.err" ]
		ok $? "$1: --analysis-threads $n, the $n1 MICA files equal one thread's byte for byte"
		sed 's/^/# /' "$TMP/$1-$n.diff" "$TMP/$1-$n.err" | head -10
	done
}

for conf in full int200 int1000; do
	for n in 1 2 3 8; do
		run "prog-$conf" $n $conf "$top_builddir/tests/cprog/static_prog"
		run "threads-$conf" $n $conf "$ASM/threads"
		run "forkexec-$conf" $n $conf "$ASM/forkexec" "$ASM/branches"
	done
	same "prog-$conf" 8
	same "threads-$conf" 15
	same "forkexec-$conf" 15
done
# The intervals are there, and many.
lines=$(wc -l < "$TMP/prog-int200-1/memstackdist_phases_int_pin.out")
[ "$lines" -ge 400 ]
ok $? "static_prog in intervals of 200: $lines memstackdist lines"
for n in 1 2 8; do
	run one $n one "$top_builddir/tests/cprog/static_prog"
	run ilp_one $n ilp_one "$top_builddir/tests/cprog/static_prog"
done
for c in one ilp_one; do
	for n in 2 8; do
		diff -r "$TMP/$c-1" "$TMP/$c-$n" > "$TMP/$c-$n.diff" 2>&1 &&
			[ "$(ls "$TMP/$c-1" | wc -l)" -ge 1 ]
		ok $? "$c: one analysis, --analysis-threads $n: its files equal one thread's"
		sed 's/^/# /' "$TMP/$c-$n.diff" | head -10
	done
done

# The database: the same intervals, through micactl export.
for n in 1 3; do
	setarch -R "$MICAD" run --db "$TMP/db$n" -q -o /dev/null --analysis-threads "$n" \
		-c "$TMP/int1000.conf" -- "$top_builddir/tests/cprog/static_prog" > /dev/null 2>&1
	{
		sqlite3 "$TMP/db$n" "SELECT id, tid = (SELECT MIN(tid) FROM interval), idx, full,
			final, ins, ins_aligned, total_ins, total_ins_aligned FROM interval ORDER BY id"
		for t in ilp itypes ppm reg stride_total stride memfootprint memstackdist \
			memstackdist_bucket; do
			echo "$t"
			sqlite3 "$TMP/db$n" "SELECT * FROM $t ORDER BY 1, 2, 3"
		done
	} > "$TMP/db$n.rows" 2>&1
done
if command -v sqlite3 > /dev/null 2>&1; then
	[ "$(grep -c '^[0-9]*|1|' "$TMP/db1.rows")" -ge 80 ] && cmp -s "$TMP/db1.rows" "$TMP/db3.rows"
	ok $? "the database's intervals with 3 analysis threads equal one thread's"
	diff "$TMP/db1.rows" "$TMP/db3.rows" | sed 's/^/# /' | head -10
else
	skip "the database's intervals" "no sqlite3"
fi

"$MICAD" run --no-db -q -o /dev/null --analysis-threads 9 -- "$ASM/loop" > /dev/null 2>"$TMP/bad.err"
is "$?" 2 "--analysis-threads 9: more than there are analyses is refused"

# Under the valgrind engine (static programs: the events of two runs are
# the same without address randomization; a dynamically linked one's
# stack contents differ from run to run under valgrind).
if "$MICAD" run --engine=valgrind --no-db -q -o /dev/null -- "$ASM/loop" > /dev/null 2>&1; then
	for p in static_prog threads; do
		prog="$ASM/$p"
		[ "$p" = static_prog ] && prog="$top_builddir/tests/cprog/static_prog"
		for n in 1 2 3; do
			mkdir -p "$TMP/vg-$p-$n"
			setarch -R "$MICAD" run --engine=valgrind --no-db -q -o /dev/null \
				--analysis-threads "$n" -c "$TMP/int200.conf" \
				--mica-out "$TMP/vg-$p-$n" -- "$prog" > /dev/null 2>&1
			rename_threads "$TMP/vg-$p-$n"
		done
		for n in 2 3; do
			diff -r "$TMP/vg-$p-1" "$TMP/vg-$p-$n" > "$TMP/vg-$n.diff" 2>&1 &&
				[ "$(ls "$TMP/vg-$p-1" | wc -l)" -ge 8 ]
			ok $? "$p under the valgrind engine, --analysis-threads $n: the MICA files equal one thread's"
			sed 's/^/# /' "$TMP/vg-$n.diff" | head -10
		done
	done
else
	skip "valgrind engine" "not built or not usable here"
fi
done_testing
