#!/bin/sh
# Sample mode against the alternatives and against the exact answer, in one
# run on one program (bench/sample_phases: four phases of equal speed, so
# that their shares of the time are their shares of the instructions, as
# bursts placed by time need).
#
# 1. Each phase alone, natively (CPU time): the time shares.
# 2. Cost: native, perf record -F 999 -g and --call-graph dwarf (Debian's
#    linux-perf, with -B -N: no build-id pass afterwards, micad has none),
#    micad --sample --no-bursts (dwarf stacks, then frame pointers) and
#    micad --sample with the default bursts and budget (5%), taking turns
#    round after round so that a change in the machine's load falls on all
#    of them; each one's median wall time and CPU time (user + system,
#    children included: on a loaded machine the steadier figure), the
#    ratios to native's; for the bursts, the achieved rate and the time
#    threads were held (the budget's measure) in each round.
# 3. Step mode on a prefix: the program's short variant (STEP_ROUNDS
#    rounds, about 10^7 instructions) traced whole, one interval: its rate
#    against native's (native runs just before and after it), and its
#    metrics, the exact values.  Also, for part 4: a quarter as many
#    rounds, and each phase alone with blocks of 4096 and 16384
#    iterations.
# 4. Accuracy: RUNS sampled runs of a long variant (COVER_ROUNDS rounds) at
#    the default bursts and budget, intervals of 10 ms (one burst each);
#    bench/sample_cover.py compares every estimable metric of
#    session_metric with the long run's exact value: where the units fell
#    (by phase), the units inside one phase against that phase's steady
#    state in step mode (warm-up and estimator, free of sampling error),
#    the first run's estimates and intervals, how often the 95% intervals
#    held the exact value, why they missed, and what more bursts per run
#    would give (resampling the runs' bursts).
#
# The phases repeat, so a run's exact value is the long run's plus its
# start and end, which weigh 1 / rounds: two runs of different lengths in
# step mode give the long run's (sample_cover.py).  The program has no libc
# and aligns its stack to a block, so every run touches the same blocks.
# Run: make bench-sample   (about a quarter of an hour; RUNS, ROUNDS,
# COST_ROUNDS, STEP_ROUNDS, COVER_ROUNDS override the sizes, COVER_OPTS adds
# options to the sampled runs of part 4, KEEP=1 keeps the runs' files)
: "${top_builddir:=.}"
: "${top_srcdir:=$(dirname "$0")/..}"
prog="$top_builddir/bench/sample_phases"
micad="$top_builddir/micad"
rounds=${ROUNDS:-5}			# cost: rounds of turns
cost_n=${COST_ROUNDS:-20000}		# cost: the program's rounds (about 2 s natively)
step_n=${STEP_ROUNDS:-16}		# step mode: about 10^7 instructions
runs=${RUNS:-20}			# accuracy: sampled runs
cover_n=${COVER_ROUNDS:-200000}	# accuracy: the program's rounds (about 20 s natively)
tmp=$(mktemp -d)
if [ -n "$KEEP" ]; then
	echo "the runs' files are kept in $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

if ! command -v python3 > /dev/null 2>&1; then
	echo "make bench-sample needs python3 (and its sqlite3 module)"
	exit 1
fi
echo "make bench-sample: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

# timed NAME CMD...: one run's wall and CPU seconds appended to $tmp/NAME.t
# (its output in $tmp/NAME.out, its standard error in $tmp/NAME.err)
timed() {
	name=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$tmp/t.raw" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$tmp/t.raw" >> "$tmp/$name.t"
}
median() {	# median NAME COLUMN
	awk -v c="$2" '{ print $c }' "$tmp/$1.t" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# 1. The phases alone.
for r in 1 2 3; do
	for m in 1 2 4 8; do
		timed phase$m "$prog" "$cost_n" $m
	done
done
awk -v a="$(median phase1 2)" -v b="$(median phase2 2)" -v c="$(median phase4 2)" \
	-v d="$(median phase8 2)" 'BEGIN { s = a + b + c + d
	printf "\nThe phases alone, natively, CPU time (median of 3): alu %.3f s, chain %.3f s, memory %.3f s, branch %.3f s\n", a, b, c, d
	printf "  time shares %.1f%% %.1f%% %.1f%% %.1f%%; instruction shares 25%% each (8192 x 20 per block)\n",
		100 * a / s, 100 * b / s, 100 * c / s, 100 * d / s }'

# 2. Cost.
have_perf=false
command -v perf > /dev/null 2>&1 && have_perf=true
for r in $(seq "$rounds"); do
	timed native "$prog" "$cost_n"
	if $have_perf; then
		timed perf_fp perf record -q -B -N -F 999 -g -o "$tmp/perf.data" -- "$prog" "$cost_n"
		timed perf_dwarf perf record -q -B -N -F 999 --call-graph dwarf -o "$tmp/perf.data" \
			-- "$prog" "$cost_n"
	fi
	timed micad_dwarf "$micad" run -q --sample --no-bursts --no-db -- "$prog" "$cost_n"
	timed micad_fp "$micad" run -q --sample --no-bursts --call-graph fp --no-db -- "$prog" "$cost_n"
	timed micad_bursts "$micad" run --sample --no-db -- "$prog" "$cost_n"
	tr '\r' '\n' < "$tmp/micad_bursts.err" >> "$tmp/bursts.log"
done
native=$(median native 1)
native_cpu=$(median native 2)
row() {	# row NAME LABEL
	awk -v l="$2" -v w="$(median "$1" 1)" -v c="$(median "$1" 2)" -v n="$native" \
		-v nc="$native_cpu" 'BEGIN {
		printf "  %-44s %7.3f s %5.2fx   %7.3f s %5.2fx\n", l, w, w / n, c, c / nc }'
}
echo
echo "Cost: bench/sample_phases $cost_n, median of $rounds rounds taking turns"
echo "  (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
printf "  %-44s %9s %6s   %9s %6s\n" "" "wall" "ratio" "CPU" "ratio"
row native "native"
if $have_perf; then
	row perf_fp "perf record -F 999 -g"
	row perf_dwarf "perf record -F 999 --call-graph dwarf"
else
	echo "  perf record: not installed (apt-get install linux-perf)"
fi
row micad_dwarf "micad --sample --no-bursts (dwarf stacks)"
row micad_fp "micad --sample --no-bursts --call-graph fp"
row micad_bursts "micad --sample (bursts 1000,2000, 5% budget)"
# the summary line of each round's bursts run
summary='s/^micad: \([0-9]*\) samples (\([0-9]*\) lost) in \([0-9.]*\) s, \([0-9]*\) bursts (\([0-9]*\) cut short), \([0-9]*\) instructions stepped; threads held \([0-9.]*\) s (\([0-9.]*\)% of the time)$/\4 \3 \7 \8 \6/p'
sed -n "$summary" "$tmp/bursts.log" > "$tmp/bursts.t"
awk '{ printf "%s%d in %.2f s = %.2f/s, held %.1f%%", (NR > 1 ? "; " : "  bursts per round: "),
	$1, $2, $1 / $2, $4 } END { print "" }' "$tmp/bursts.t"
awk '{ b += $1; s += $2; h += $3; k += $5 } END {
	if (s > 0) printf "  all rounds: %d bursts in %.1f s = %.2f bursts/s, threads held %.2f s = %.1f%% of the wall time (budget: 5%%), %.0f steps/s in bursts\n",
		b, s, b / s, h, 100 * h / s, (h > 0 ? k / h : 0) }' "$tmp/bursts.t"

# 3. Step mode on the short variant: its rate, and the exact values.
printf 'analysis_type: all\ninterval_size: full\n' > "$tmp/full.conf"
timed step_native "$prog" "$cost_n"
timed step "$micad" run -q -c "$tmp/full.conf" --db "$tmp/step.db" -- "$prog" "$step_n"
timed step_native "$prog" "$cost_n"
ins=$(sed -n 's/.*: \([0-9]*\) instructions (E).*/\1/p' "$tmp/step.err")
if [ -z "$ins" ]; then
	echo "step mode failed:"
	cat "$tmp/step.err"
	exit 1
fi
# The long variant's instructions: the short one's per round (its few
# instructions outside the rounds left in), times its rounds.
awk -v e="$ins" -v sn="$step_n" -v cn="$cost_n" -v s="$(median step 1)" \
	-v n="$(awk '{ w += $1 } END { print w / NR }' "$tmp/step_native.t")" 'BEGIN {
	ne = e / sn * cn
	printf "  %-44s %7.1f s  %.0f instructions: %.1f K/s, native (before and after) %.2f G/s: %.0fx\n",
		"micad step mode (" sn " rounds, whole)", s, e, e / s / 1e3, ne / n / 1e9, (ne / n) / (e / s) }'
# A quarter as many rounds: the long run's exact values without the short
# runs' start and end (sample_cover.py); each phase alone with blocks of
# 4096 and 16384 iterations: its steady state, without its calls.
step1=$((step_n / 4))
"$micad" run -q -c "$tmp/full.conf" --db "$tmp/step1.db" -- "$prog" "$step1" 2> /dev/null
alone=
for m in 1 2 4 8; do
	case $m in 1) p=alu ;; 2) p=chain ;; 4) p=memory ;; 8) p=branch ;; esac
	for it in 4096 16384; do
		"$micad" run -q -c "$tmp/full.conf" --db "$tmp/alone$m.$it.db" -- "$prog" 1 $m $it \
			2> /dev/null
	done
	alone="$alone $p=4096:$tmp/alone$m.4096.db,16384:$tmp/alone$m.16384.db"
done

# 4. Accuracy: intervals of 10 ms, so that each holds one burst (the
# session's estimates pool them all the same).
nm "$prog" > "$tmp/syms"
for r in $(seq "$runs"); do
	# shellcheck disable=SC2086
	"$micad" run --sample $COVER_OPTS --interval-time 0.01 --db "$tmp/s$r.db" --dump-events "$tmp/dump" \
		-- "$prog" "$cover_n" > /dev/null 2> "$tmp/s$r.err"
	# each measured unit's first and last address
	awk '/^burst measure/ { m = 1; f = ""; next } /^burst end/ { if (m) print f, l; m = 0; next }
		/^burst abort/ { m = 0; next } m && /^[0-9]/ { if (f == "") f = $2; l = $2 }' \
		"$tmp/dump" > "$tmp/s$r.units"
	tr '\r' '\n' < "$tmp/s$r.err" | sed -n "$summary" >> "$tmp/cover_bursts.t"
	rm -f "$tmp/dump"
done
echo
echo "Accuracy: $runs sampled runs of bench/sample_phases $cover_n (micad run --sample${COVER_OPTS:+ $COVER_OPTS})"
echo "  against step mode over bench/sample_phases $step_n ($ins instructions) and $step1"
echo "  (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
awk '{ b += $1; s += $2; h += $3 } END {
	printf "  %d bursts in %.0f s = %.2f bursts/s, threads held %.1f%% of the wall time (budget: 5%%)\n",
		b, s, b / s, 100 * h / s }' "$tmp/cover_bursts.t"
sort -n "$tmp/cover_bursts.t" | awk '{ v[NR] = $1; h[NR] = $4 } END {
	printf "  bursts per run: min %d, median %d, max %d", v[1], v[int((NR + 1) / 2)], v[NR]
	m = h[1]; x = h[1]; for (i = 2; i <= NR; i++) { if (h[i] < m) m = h[i]; if (h[i] > x) x = h[i] }
	printf "; threads held %.1f%% to %.1f%% of a run\n", m, x }'
# shellcheck disable=SC2086
python3 "$top_srcdir/bench/sample_cover.py" "$tmp/syms" "$step1" "$tmp/step1.db" "$step_n" \
	"$tmp/step.db" $alone -- $(seq -f "$tmp/s%g.db" "$runs")
