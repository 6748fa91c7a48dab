#!/bin/sh
# Sample mode's cost, side by side in one run on the same program
# (bench/sample_prog): native, perf record -F 999 -g and --call-graph
# dwarf (Debian's linux-perf, when installed), micad --sample --no-bursts
# (profile only; dwarf stacks, then frame pointers), and micad --sample
# with the default bursts and budget (5%).  The configurations take turns
# round after round, so a change in the machine's load falls on all of
# them; each one's figure is its median wall time, the ratio is to
# native's.  For the default bursts: how many, the time threads were held
# (the budget's measure) and the samples, from the last round.
# Run: make bench-sample
: "${top_builddir:=.}"
prog="$top_builddir/bench/sample_prog"
micad="$top_builddir/micad"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rounds=${ROUNDS:-5}

now() { date +%s%N; }

# run NAME CMD...: one run's wall time appended to $tmp/NAME.t
run() {
	name=$1
	shift
	t0=$(now)
	"$@" > /dev/null 2> "$tmp/$name.err"
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }' >> "$tmp/$name.t"
}

have_perf=false
command -v perf > /dev/null 2>&1 && have_perf=true
for r in $(seq "$rounds"); do
	run native "$prog"
	if $have_perf; then
		# -B -N: no build-id pass over the data after the run (micad
		# has none either).
		run perf_fp perf record -q -B -N -F 999 -g -o "$tmp/perf.data" -- "$prog"
		run perf_dwarf perf record -q -B -N -F 999 --call-graph dwarf -o "$tmp/perf.data" \
			-- "$prog"
	fi
	run micad_dwarf "$micad" run -q --sample --no-bursts --no-db -- "$prog"
	run micad_fp "$micad" run -q --sample --no-bursts --call-graph fp --no-db -- "$prog"
	run micad_bursts "$micad" run --sample --no-db -- "$prog"
done

median() { sort -n "$tmp/$1.t" | sed -n "$(((rounds + 1) / 2))p"; }
native=$(median native)
row() {	# row NAME LABEL
	awk -v n="$2" -v s="$(median "$1")" -v b="$native" \
		'BEGIN { printf "%-46s %7.3f s  %5.2fx\n", n, s, s / b }'
}
echo "median of $rounds rounds (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
row native "native"
if $have_perf; then
	row perf_fp "perf record -F 999 -g"
	row perf_dwarf "perf record -F 999 --call-graph dwarf"
else
	echo "perf record: not installed (apt-get install linux-perf)"
fi
row micad_dwarf "micad --sample --no-bursts (dwarf stacks)"
row micad_fp "micad --sample --no-bursts --call-graph fp"
row micad_bursts "micad --sample (bursts 1000,2000, 5% budget)"
sed -n 's/^micad: \([0-9]*\) samples (\([0-9]*\) lost) in \([0-9.]*\) s, \([0-9]*\) bursts (\([0-9]*\) cut short), \([0-9]*\) instructions stepped; threads held \([0-9.]*\) s (\([0-9.]*\)% of the time)$/  bursts, last round: \4 (\5 cut short, \6 instructions stepped), threads held \7 s = \8% of \3 s; \1 samples, \2 lost/p' \
	"$tmp/micad_bursts.err"
