#!/bin/sh
# Sample mode's estimates against the exact answer of step mode, end to
# end (sampler, bursts, analyzers, estimators, database), on
# tests/asm/phases.S:
#  - one stationary loop: every estimable metric of the session equals the
#    step-mode value (to the loop's edges: the stepped run is short, so
#    its start and end weigh a little);
#  - two phases of equal speed (time share = instruction share, as a clock
#    places bursts by time): every estimable metric lies within 4 standard
#    errors of the step-mode value (the 95% interval micad reports is 1.96
#    of them: 4 keeps this test from failing 1 run in 20);
#  - reads whose reuse distance is beyond what a burst sees are censored:
#    counted apart, not cold, and the long buckets are not estimable.
. "$top_srcdir/tests/tracer_lib.sh"

if ! command -v python3 >/dev/null; then
	skip "sample mode's accuracy" "python3 is not installed"
	done_testing
fi
P="$ASM/phases"
printf 'analysis_type: all\ninterval_size: full\n' >"$TMP/full.conf"

# compare SAMPLE_DB STEP_DB NAME K: every estimable metric of the sampled
# session within K standard errors (plus the stepped run's edges) of the
# stepped one's whole-run value; prints "checked bad n_bursts worst".
compare() {
	python3 - "$1" "$2" "$4" <<'EOF'
import sqlite3, sys
s = sqlite3.connect(sys.argv[1])
s.execute("ATTACH ? AS st", (sys.argv[2],))
k = float(sys.argv[3])
rows = s.execute("""SELECT e.metric, e.value, m.value, e.n_bursts, e.se
    FROM main.session_metric e JOIN st.metric m ON m.metric = e.metric AND m.session_id = 1
    WHERE e.session_id = 1 AND e.estimable AND e.value IS NOT NULL AND m.value IS NOT NULL
      AND e.metric NOT LIKE 'mpki_%' AND e.metric NOT LIKE '%footprint%'
      AND e.metric <> 'reuse_cold'""").fetchall()
bad, n, worst = [], 0, ""
for metric, est, exact, n, se in rows:
    # the stepped run's start and end: its 100,000 or 200,000 instructions
    # begin with ILP's 256-instruction window filling (0.3% of ILP) and
    # its loops end once (one event in 1000 of a fraction)
    tol = k * (se or 0) + 0.005 * abs(exact) + 1e-3
    if abs(est - exact) > tol:
        bad.append("%s=%.5f (exact %.5f, se %.5f)" % (metric, est, exact, se or 0))
print(len(rows), len(bad), n, ";".join(bad[:4]) or "-")
EOF
}

# One stationary loop: the same every burst, so every estimate is exact.
"$MICAD" run -q -c "$TMP/full.conf" --db "$TMP/stepA.db" -- "$P" A 2>"$TMP/stepA.err"
is "$?" 0 "step mode: the short loop traced whole"
"$MICAD" run --sample --burst 500,500 --overhead 50 --db "$TMP/sampA.db" -- "$P" a \
	2>"$TMP/sampA.err"
is "$?" 0 "sample mode: the long loop ran to its end"
read checked bad n worst <<EOF
$(compare "$TMP/sampA.db" "$TMP/stepA.db" loop 0)
EOF
[ "${n:-0}" -ge 3 ]
ok $? "one loop: at least 3 bursts ($n)"
[ "${checked:-0}" -ge 50 ]
ok $? "one loop: $checked estimable metrics compared with step mode"
is "$bad" 0 "one loop: every estimate equals the step-mode value ($worst)"
is "$(sqlite3 "$TMP/sampA.db" "SELECT printf('%.6f', value) || ' ' || printf('%.6f', ci_low) || ' ' || printf('%.6f', ci_high) FROM session_metric WHERE metric = 'mix_mem_read'")" \
	"0.200000 0.200000 0.200000" "one loop: mix_mem_read is 1/5 with a zero-width interval"

# Two phases: the estimates move with where the bursts fell; each stays
# within its error of the exact value.
"$MICAD" run -q -c "$TMP/full.conf" --db "$TMP/step2.db" -- "$P" s 2>"$TMP/step2.err"
is "$?" 0 "step mode: the short two-phase run traced whole"
is "$(sqlite3 "$TMP/step2.db" "SELECT printf('%.4f', value) FROM metric WHERE metric = 'mix_shift'")" \
	"0.1000" "step mode: the shift is 1 of 10 instructions over both phases"
"$MICAD" run --sample --burst 500,500 --overhead 50 --db "$TMP/samp2.db" -- "$P" \
	2>"$TMP/samp2.err"
is "$?" 0 "sample mode: the two-phase run ran to its end"
read checked bad n worst <<EOF
$(compare "$TMP/samp2.db" "$TMP/step2.db" phases 4)
EOF
[ "${n:-0}" -ge 8 ]
ok $? "two phases: at least 8 bursts ($n)"
is "$bad" 0 "two phases: every estimate within 4 standard errors of step mode ($worst)"
is "$(sqlite3 "$TMP/samp2.db" "SELECT count(*) FROM session_metric WHERE metric = 'mix_shift' AND ci_low <= value AND value <= ci_high AND abs(ci_high - ci_low - 2 * half_width) < 1e-12")" \
	1 "two phases: mix_shift's interval is centred on its estimate"
is "$(sqlite3 "$TMP/samp2.db" "SELECT engine || ' ' || sample_event || ' ' || weighting FROM session")" \
	"sample cpu-clock time" "the session says how it was sampled and weighted"

# Censoring: every read's previous access to its block is 65,535 blocks
# back, far beyond a burst: censored, never cold, never in a bucket.
"$MICAD" run --sample --burst 500,500 --overhead 50 --db "$TMP/sampR.db" -- "$P" r \
	2>"$TMP/sampR.err"
is "$?" 0 "sample mode: the striding loop"
sed 's/^/# /' "$TMP/sampR.err"
sqlite3 "$TMP/sampR.db" "SELECT metric, value, estimable FROM session_metric WHERE metric IN ('reuse_censored', 'reuse_cold', 'reuse_bucket_0', 'reuse_bucket_18')" >"$TMP/censor.out"
awk -F'|' '$1 == "reuse_censored" && $2 > 0.9 { c = 1 } $1 == "reuse_cold" && $2 == 0 { z = 1 }
	END { exit !(c && z) }' "$TMP/censor.out"
r=$?
ok $r "striding reads: over 90% censored, none counted cold"
[ $r -eq 0 ] || sed 's/^/# /' "$TMP/censor.out"
grep -q '^reuse_bucket_18|.*|0$' "$TMP/censor.out"
r=$?
ok $r "striding reads: the longest bucket is flagged not estimable"
[ $r -eq 0 ] || sed 's/^/# /' "$TMP/censor.out"
done_testing
