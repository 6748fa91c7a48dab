#!/bin/sh
# End to end: 'micad run --db D --record T -c CONF --mica-out LIVE' on test
# programs, then 'micactl export --format mica' of the session must equal,
# byte for byte, both the live run's MICA files and 'micad replay -c CONF
# --mica-out' of the recorded trace; for interval and full mode, all
# analyses, itypes with a spec file (catch-all categories), ppm,
# memstackdist, ilp_one, one and two threads.  Then the CSV and JSON
# exports against the same numbers, and the export's errors.
. "$top_srcdir/tests/tracer_lib.sh"

MICACTL="$top_builddir/micactl"
PROG="$top_builddir/tests/cprog/static_prog"
DB="$TMP/results.db"
cp "$top_srcdir/tests/mica/itypes_default.spec" "$TMP/"

# q SQL: one value from the database
q() {
	"$MICACTL" query --db "$DB" --format csv "$1" | tail -n +2
}

# e2e NAME PROGRAM CONF-TEXT: the three-way comparison
e2e() {
	name=$1 prog=$2
	d="$TMP/$name"
	mkdir -p "$d/live" "$d/export" "$d/replay"
	printf '%b' "$3" > "$TMP/$name.conf"
	"$MICAD" run -q -c "$TMP/$name.conf" --db "$DB" --record "$d/trace" \
		--mica-out "$d/live" -o /dev/null -- "$prog" > /dev/null 2> "$d/run.err"
	ok $? "$name: micad run --db --record --mica-out"
	session=$(q 'SELECT max(id) FROM session')
	"$MICACTL" export "$session" --db "$DB" -o "$d/export" 2> "$d/export.err"
	ok $? "$name: micactl export $session --format mica"
	"$MICAD" replay -q --no-db -c "$TMP/$name.conf" --mica-out "$d/replay" "$d/trace" \
		> /dev/null 2> "$d/replay.err"
	ok $? "$name: micad replay of the recorded trace"
	[ -n "$(ls "$d/export")" ] && diff -r "$d/export" "$d/replay" > "$d/diff" 2>&1
	ok $? "$name: export equals replay, byte for byte ($(ls "$d/export" | wc -l) files)"
	sed 's/^/# /' "$d/diff" | head -5
	diff -r "$d/export" "$d/live" > "$d/diff" 2>&1
	ok $? "$name: export equals the live --mica-out files, byte for byte"
	sed 's/^/# /' "$d/diff" | head -5
}

e2e all_interval "$PROG" 'analysis_type: all\ninterval_size: 4000\n'
e2e all_full "$PROG" 'analysis_type: all\ninterval_size: full\n'
e2e itypes_spec "$PROG" 'analysis_type: itypes\ninterval_size: 2000\nitypes_spec_file: itypes_default.spec\n'
[ -s "$TMP/itypes_spec/export/itypes_other_group_categories.txt" ]
ok $? "itypes_spec: the catch-all has categories ($(tr '\n' ' ' < "$TMP/itypes_spec/export/itypes_other_group_categories.txt"))"
e2e itypes_threads "$ASM/threads" 'analysis_type: itypes\ninterval_size: full\nitypes_spec_file: itypes_default.spec\nappend_pid: yes\n'
is "$(ls "$TMP/itypes_threads/export" | grep -c '^itypes_full_int_[0-9]*_pin.out$')" 2 \
	"itypes_threads: one file per thread, named with pid and tid"
e2e ppm_interval "$PROG" 'analysis_type: ppm\ninterval_size: 1000\n'
e2e memstackdist_interval "$PROG" 'analysis_type: memstackdist\ninterval_size: 3000\n'
e2e memstackdist_rep "$ASM/rep" 'analysis_type: memstackdist\ninterval_size: full\n'
e2e ilp_one "$PROG" 'analysis_type: ilp_one\nilp_size: 16\ninterval_size: 2000\n'
e2e all_threads "$ASM/threads" 'analysis_type: all\ninterval_size: 400\n'

# The session rows.
s=$(q "SELECT id FROM session WHERE command LIKE '%static_prog' AND analysis_type = 'all' AND interval_size = 4000")
is "$(q "SELECT mode || ' ' || end_reason || ' ' || exit_status FROM session WHERE id = $s")" \
	"run exited 0" "the session: mode, how it ended, exit status"
is "$(q "SELECT count(*) FROM session WHERE end_reason != 'exited'")" 0 "every session ended 'exited'"
is "$(q "SELECT exe FROM process WHERE session_id = $s")" "$(readlink -f "$PROG")" \
	"the process row names the executable"
is "$(q "SELECT sum(ins) FROM interval WHERE session_id = $s")" \
	"$("$MICAD" replay --no-db -c "$TMP/all_interval.conf" "$TMP/all_interval/trace" | \
	   sed -n 's/^tid [0-9]*: \([0-9]*\) instructions.*/\1/p')" \
	"the intervals' E add up to the trace's instruction count"
is "$(q "SELECT count(*) FROM interval WHERE session_id = $s AND (started_at IS NULL OR ended_at < started_at)")" 0 \
	"every interval has a wall-clock start and end, in order"
is "$(q "SELECT count(*) FROM thread WHERE session_id = (SELECT max(id) FROM session)")" 2 \
	"the two-thread program has two thread rows"

# No configuration: the default (every analysis, intervals of 100000).
"$MICAD" run -q --db "$DB" -o /dev/null -- "$PROG" > /dev/null 2>&1
ok $? "micad run without -c writes the database"
s=$(q 'SELECT max(id) FROM session')
is "$(q "SELECT analysis_type || ' ' || interval_size FROM session WHERE id = $s")" "all 100000" \
	"the default configuration: all, intervals of 100000 instructions"
mkdir -p "$TMP/default"
"$MICACTL" export "$s" --db "$DB" -o "$TMP/default" && [ -s "$TMP/default/ilp_phases_int_pin.out" ]
ok $? "a default session exports as MICA's files"

# CSV and JSON: one row or object per interval, the same numbers.
s=$(q "SELECT id FROM session WHERE command LIKE '%static_prog' AND analysis_type = 'all' AND interval_size = 4000")
n=$(q "SELECT count(*) FROM interval WHERE session_id = $s")
"$MICACTL" export "$s" --db "$DB" --format json -o "$TMP/s.json"
ok $? "export --format json"
"$MICACTL" export "$s" --db "$DB" --format csv > "$TMP/s.csv"
ok $? "export --format csv (standard output)"
if command -v python3 > /dev/null; then
	python3 - "$TMP/s.json" "$TMP/s.csv" "$TMP/all_interval/live" "$n" > "$TMP/py.out" 2>&1 <<'PY'
import csv, json, sys
rows = json.load(open(sys.argv[1]))
table = list(csv.DictReader(open(sys.argv[2])))
live, n = sys.argv[3], int(sys.argv[4])
assert len(rows) == n and len(table) == n, (len(rows), len(table), n)
assert [r['interval'] for r in rows] == list(range(n))
# Flags are JSON booleans, 1/0 in CSV.
for r, t in zip(rows, table):
    assert isinstance(r['full'], bool) and isinstance(r['final'], bool), r
    assert {k: str(int(v)) if isinstance(v, bool) else str(v) for k, v in r.items()
            if v is not None and k not in ('started_at', 'ended_at')} == \
           {k: v for k, v in t.items() if v != '' and k not in ('started_at', 'ended_at')}, r
# MICA's own files, line by line: memfootprint (4 numbers), stride (30),
# memstackdist (21)
def lines(name):
    return [list(map(int, l.split())) for l in open(live + '/' + name).read().split('\n') if l.strip()]
fp = lines('memfootprint_phases_int_pin.out')
st = lines('stride_phases_int_pin.out')
msd = lines('memstackdist_phases_int_pin.out')
kinds = ['local_read', 'global_read', 'local_write', 'global_write']
les = [0, 8, 64, 512, 4096, 32768, 262144]
for i, r in enumerate(rows):
    assert fp[i] == [r['footprint_data_blocks'], r['footprint_data_pages'],
                     r['footprint_insn_blocks'], r['footprint_insn_pages']], i
    s = [r['stride_reads']] + [r['stride_%s_le_%d' % (kinds[0], d)] for d in les] + \
        [r['stride_%s_le_%d' % (kinds[1], d)] for d in les] + [r['stride_writes']] + \
        [r['stride_%s_le_%d' % (kinds[2], d)] for d in les] + \
        [r['stride_%s_le_%d' % (kinds[3], d)] for d in les]
    assert st[i] == s, i
    assert msd[i] == [r['memstackdist_refs'], r['memstackdist_cold']] + \
        [r['memstackdist_bucket_%d' % b] for b in range(19)], i
    assert r['final'] is (i == n - 1)
    # itypes columns named after the session's groups
    assert 'itypes_mem_read' in r and 'itypes_sse' in r and 'itypes_other' in r and \
        'itypes_0' not in r, sorted(k for k in r if k.startswith('itypes'))
print('checked', n, 'intervals')
PY
	ok $? "JSON parses, CSV parses, both hold the numbers of MICA's files ($(cat "$TMP/py.out"))"
	sed 's/^/# /' "$TMP/py.out" | tail -3
else
	skip "JSON and CSV contents" "python3 not found"
fi
head -n 1 "$TMP/s.csv" | grep -q '^session,tid,interval,full,final,ins,ins_aligned,total_ins,total_ins_aligned,started_at,ended_at,ilp_32_cycles,'
ok $? "CSV header: the documented field names"
"$MICACTL" export "$s" --db "$DB" --format csv --intervals 2..4 | tail -n +2 | cut -d, -f3 | tr '\n' ' ' > "$TMP/range"
is "$(cat "$TMP/range")" "2 3 4 " "--intervals 2..4"
t=$(q "SELECT tid FROM thread WHERE session_id = $s")
is "$("$MICACTL" export "$s" --db "$DB" --format csv --thread "$t" | tail -n +2 | wc -l)" "$n" "--thread TID"

# Errors: clear message, exit 1.
"$MICACTL" export 9999 --db "$DB" 2> "$TMP/err"
is "$?" 1 "unknown session: exit 1"
grep -q "no session 9999 in" "$TMP/err"
ok $? "unknown session: says so"
"$MICACTL" export "$s" --db "$DB" --thread 1 2> "$TMP/err"
is "$?" 1 "no such thread: exit 1"
grep -q "session $s has no thread 1" "$TMP/err"
ok $? "no such thread: says so"
"$MICACTL" export "$s" --db "$DB" --intervals 100000..200000 2> "$TMP/err"
is "$?" 1 "empty range: exit 1"
grep -q "has no intervals in 100000..200000" "$TMP/err"
ok $? "empty range: says so"
"$MICACTL" export "$s" --db "$DB" --format xml 2> /dev/null
is "$?" 2 "unknown format: usage error"
"$MICACTL" export "$s" --db "$TMP/none.db" 2> "$TMP/err"
is "$?" 1 "missing database: exit 1"
grep -q "no results database at $TMP/none.db" "$TMP/err"
ok $? "missing database: says so"
done_testing
