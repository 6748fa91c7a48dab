#!/bin/sh
# Sample mode's cost, side by side in one run on the same program
# (bench/sample_prog): native, perf record -F 999 -g (Debian's
# linux-perf, when installed), micad --sample --no-bursts (profile only,
# dwarf stacks), micad --sample --call-graph fp --no-bursts, and micad
# --sample with the default bursts and budget (5%).  Wall time, median of
# 3; the ratio is to native.  For the default run: the bursts, the time
# threads were held (the budget's measure) and the samples.
# Run: make bench-sample
: "${top_builddir:=.}"
prog="$top_builddir/bench/sample_prog"
micad="$top_builddir/micad"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=3

now() { date +%s%N; }

# wall CMD...: seconds (3 decimals) of one run, its stderr in $tmp/err
wall() {
	t0=$(now)
	"$@" > /dev/null 2> "$tmp/err"
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'
}

# median CMD...: the median wall time of $runs runs
median() {
	for i in $(seq "$runs"); do wall "$@"; done | sort -n | sed -n "$(((runs + 1) / 2))p"
}

row() {	# row NAME SECONDS
	awk -v n="$1" -v s="$2" -v b="$native" 'BEGIN { printf "%-44s %7.3f s  %5.2fx\n", n, s, s / b }'
}

native=$(median "$prog")
row "native" "$native"
if command -v perf > /dev/null 2>&1; then
	row "perf record -F 999 -g" "$(median perf record -q -F 999 -g -o "$tmp/perf.data" -- "$prog")"
	row "perf record -F 999 --call-graph dwarf" \
		"$(median perf record -q -F 999 --call-graph dwarf -o "$tmp/perf.data" -- "$prog")"
else
	echo "perf record: not installed (apt-get install linux-perf)"
fi
row "micad --sample --no-bursts (dwarf)" "$(median "$micad" run -q --sample --no-bursts --no-db -- "$prog")"
row "micad --sample --no-bursts --call-graph fp" \
	"$(median "$micad" run -q --sample --no-bursts --call-graph fp --no-db -- "$prog")"
row "micad --sample (bursts 1000,2000, 5% budget)" "$(median "$micad" run --sample --no-db -- "$prog")"
sed -n 's/^micad: \([0-9]*\) samples (\([0-9]*\) lost) in \([0-9.]*\) s, \([0-9]*\) bursts (\([0-9]*\) cut short), \([0-9]*\) instructions stepped; threads held \([0-9.]*\) s (\([0-9.]*\)% of the time)$/  last default run: \4 bursts (\5 cut short, \6 instructions stepped), threads held \7 s = \8% of \3 s; \1 samples, \2 lost/p' "$tmp/err"
