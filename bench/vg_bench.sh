#!/bin/sh
# The valgrind engine's speed, on three programs in one run: a compute
# loop (bench/vg_compute), a memory-bound pointer chase (bench/vg_chase)
# and a real program (gzip of a few MB of text).  For each: native,
# valgrind --tool=none, valgrind --tool=lackey --trace-mem=yes, the CPU
# time of valgrind with micad's tool (its records consumed by micad), micad
# --engine=valgrind counting only (the engine's rate), with the itypes
# analysis, with every MICA analysis (on the analysis thread, and in two
# groups on threads of their own: --analysis-threads 2), with the
# database too (the scheduling model and MGSim's counters), and micad
# step mode on a prefix of the same program (5 s).  Times are wall clock, with the CPU time
# (user + system, children included) in parentheses: on a loaded machine
# the CPU time is the steadier figure.  Slowdowns are to native; the
# engine's rates are also given against step mode's.
# Run: make bench-valgrind
: "${top_builddir:=.}"
MICAD="$top_builddir/micad"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'analysis_type: itypes\ninterval_size: full\n' > "$tmp/itypes.conf"
printf 'analysis_type: all\ninterval_size: full\n' > "$tmp/all.conf"
printf 'analysis_type: all\ninterval_size: 1000000\n' > "$tmp/db.conf"
seq 1 250000 > "$tmp/text"

if ! "$MICAD" run --engine=valgrind --no-db -q -o /dev/null -- /bin/true 2>"$tmp/err"; then
	cat "$tmp/err"
	exit 1
fi

timed() {	# timed COMMAND...: "wall cpu" seconds into $tmp/t, output to $tmp/out
	/usr/bin/time -f "%e %U %S" -o "$tmp/t.raw" "$@" > /dev/null 2> "$tmp/out"
	awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$tmp/t.raw" > "$tmp/t"
}
line() {	# line LABEL: the $tmp/t times and the slowdown to native
	set -- "$1" $(cat "$tmp/t")
	awk -v l="$1" -v w="$2" -v c="$3" -v n="$native" 'BEGIN {
		printf "  %-36s %8.2f s (%7.2f)  %8.1fx native\n", l, w, c, w / n }'
}
rate() {	# rate LABEL: an engine run's line, with its rate (E / wall)
	set -- "$1" $(cat "$tmp/t")
	awk -v l="$1" -v w="$2" -v c="$3" -v n="$native" -v e="$insns" -v s="$step" 'BEGIN {
		r = e / w
		printf "  %-36s %8.2f s (%7.2f)  %8.1fx native  %6.2f M insn/s  %6.0fx step mode\n",
			l, w, c, w / n, r / 1e6, r / s }'
}

echo "micad --engine=valgrind: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
for prog in compute chase gzip; do
	case $prog in
	compute) set -- "$top_builddir/bench/vg_compute" 10000000 ;;
	chase) set -- "$top_builddir/bench/vg_chase" 3000000 ;;
	gzip) set -- gzip -c "$tmp/text" ;;
	esac
	# micad step mode on a prefix: its rate
	timeout -s TERM 5 "$MICAD" run --no-db -o /dev/null -- "$@" > /dev/null 2> "$tmp/step"
	step=$(sed -n 's/.*instructions in [0-9.]* s (\([0-9.]*\) K\/s).*/\1/p' "$tmp/step")
	step=$(awk -v s="$step" 'BEGIN { printf "%.0f", s * 1000 }')
	timed "$MICAD" run --engine=valgrind --no-db -o /dev/null -- "$@"
	insns=$(sed -n 's/.*micad: \([0-9]*\) instructions in .*/\1/p' "$tmp/out")
	tool=$(sed -n "s/.*micad's tool used \([0-9.]*\) s of CPU.*/\1/p" "$tmp/out")
	cp "$tmp/t" "$tmp/t.engine"
	timed "$@"
	native=$(cut -d' ' -f1 "$tmp/t")
	# below 10 ms the clock says nothing: take 10 ms
	native=$(awk -v n="$native" 'BEGIN { print n < 0.01 ? 0.01 : n }')
	echo "== $prog ($*): $(awk -v e="$insns" 'BEGIN { printf "%.1f", e / 1e6 }') M instructions"
	line "native"
	timed valgrind -q --tool=none "$@"
	line "valgrind --tool=none"
	timed valgrind -q --tool=lackey --trace-mem=yes --log-file=/dev/null "$@"
	line "valgrind --tool=lackey --trace-mem=yes"
	awk -v c="$tool" -v n="$native" 'BEGIN {
		printf "  %-36s %8s   (%7.2f)  %8.1fx native (CPU)\n", "valgrind with micad'"'"'s tool", "", c, c / n }'
	cp "$tmp/t.engine" "$tmp/t"
	rate "micad engine, counts only"
	timed "$MICAD" run --engine=valgrind --no-db -q -o /dev/null -c "$tmp/itypes.conf" \
		--mica-out "$tmp" -- "$@"
	rate "micad engine, itypes"
	timed "$MICAD" run --engine=valgrind --no-db -q -o /dev/null -c "$tmp/all.conf" \
		--mica-out "$tmp" -- "$@"
	rate "micad engine, all MICA analyses"
	timed "$MICAD" run --engine=valgrind --no-db -q -o /dev/null -c "$tmp/all.conf" \
		--analysis-threads 2 --mica-out "$tmp" -- "$@"
	rate "micad engine, all on 2 threads"
	rm -f "$tmp/db"
	timed "$MICAD" run --engine=valgrind --db "$tmp/db" -q -o /dev/null -c "$tmp/db.conf" -- "$@"
	rate "micad engine, all + database"
	awk -v s="$step" 'BEGIN { printf "  %-36s %33s %6.3f M insn/s\n", "micad step mode (5 s prefix)", "", s / 1e6 }'
done
