#!/bin/sh
# micactl export of a sample-mode session (the fabricated stream of
# tests/sample_stream.c, whose numbers its comment derives): csv and json
# carry the bursts and every metric's estimate and 95% interval, the MICA
# files the sums over bursts under a comment that says so.
. "$top_srcdir/tests/tracer_lib.sh"

MICACTL="$top_builddir/micactl"
DB="$TMP/sample.db"

"$top_builddir/tests/sample_stream" "$DB" > "$TMP/stream.tap"
ok $? "tests/sample_stream wrote a sample-mode session"
grep '^not ok' "$TMP/stream.tap" | sed 's/^/# /'

# CSV: one row per interval; the fields of interval 0 by name.
"$MICACTL" export 1 --db "$DB" --format csv > "$TMP/s.csv"
ok $? "micactl export --format csv"
field() {	# field CSV ROW NAME: the value of column NAME in data row ROW
	awk -F, -v row="$2" -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
		NR == row + 1 { print $c }' "$1"
}
is "$(awk -F, 'NR == 1 { print NF }' "$TMP/s.csv") $(awk -F, '{ print NF }' "$TMP/s.csv" | sort -u | wc -l)" \
	"$(awk -F, 'NR == 2 { print NF }' "$TMP/s.csv") 1" "csv: the header and every row have the same fields"
is "$(field "$TMP/s.csv" 1 interval) $(field "$TMP/s.csv" 1 ins) $(field "$TMP/s.csv" 1 n_bursts) $(field "$TMP/s.csv" 1 aborted_bursts) $(field "$TMP/s.csv" 1 warmup_ins)" \
	"0 12 2 1 6" "csv, interval 0: E 12 of 2 bursts, 1 aborted, warm-up 6"
is "$(field "$TMP/s.csv" 1 mix_mem_read) $(field "$TMP/s.csv" 1 mix_mem_read_ci_low) $(field "$TMP/s.csv" 1 mix_mem_read_ci_high)" \
	"0.25 0 1" "csv: mix_mem_read 0.25, 95% CI 0.25 -/+ 12.7062 x 0.125 clamped to [0, 1]"
is "$(field "$TMP/s.csv" 1 memstackdist_censored) $(field "$TMP/s.csv" 1 reuse_censored) $(field "$TMP/s.csv" 1 reuse_bucket_0_ci_low)x" \
	"2 0.6666666667 x" "csv: 2 censored reads (one never seen before), their fraction, no CI for a bucket beyond the horizon"
is "$(field "$TMP/s.csv" 2 interval) $(field "$TMP/s.csv" 2 n_bursts) $(field "$TMP/s.csv" 2 stride_first_reads)" \
	"1 2 0" "csv, interval 1: 2 bursts, no first-seen read"

# JSON: the same, linted when python3 is there.
"$MICACTL" export 1 --db "$DB" --format json > "$TMP/s.json"
ok $? "micactl export --format json"
if command -v python3 > /dev/null; then
	is "$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(len(r), r[0]["n_bursts"], r[0]["mix_control"], r[0]["mix_control_ci_low"], r[0]["mix_control_ci_high"], r[0]["reuse_bucket_0_ci_high"], r[1]["reuse_bucket_0"])' "$TMP/s.json")" \
		"3 2 0.25 0 0.779425 None 1" \
		"json: three intervals (two of thread 100, one of 102), mix_control's CI, null where there is no CI"
else
	skip "json: parsed" "no python3"
fi

# MICA's files: a comment first, then the sums over the units, the lines
# headed by the interval's H (itypes: 13 groups with the catch-all).
"$MICACTL" export 1 --db "$DB" --format mica -o "$TMP/mica" > /dev/null
ok $? "micactl export --format mica"
head -c 60 "$TMP/mica/itypes_phases_int_pin.out" > "$TMP/head"
is "$(cat "$TMP/head")" "# micad sample mode (event cpu-clock, time-weighted): each l" \
	"mica: the file starts with a comment that says it is sampled"
is "$(tail -n +2 "$TMP/mica/itypes_phases_int_pin.out")" "$(printf '12 3 0 3 9 0 0 0 0 0 0 0 0 0\n7 1 0 2 5 0 0 0 0 0 0 0 0 0\n ')" \
	"mica: itypes lines of the two intervals, the units' sums"
is "$(grep -c '^# micad sample mode' "$TMP"/mica/*_pin.out | grep -c ':1$') $(ls "$TMP"/mica/*_pin.out | wc -l)" "14 14" \
	"mica: every analysis' file of both threads has the comment once"
is "$(tail -n +2 "$TMP/mica/itypes_phases_int_102_pin.out")" "$(printf '0 0 0 0 0 0 0 0 0 0 0 0 0 0\n ')" \
	"mica: thread 102's one interval, its burst aborted: nothing counted"
is "$(cat "$TMP/mica/itypes_other_group_categories.txt" 2>/dev/null | grep -c '^#')" 0 \
	"mica: the categories list has no comment"
done_testing
