#!/bin/sh
# The MGSim counters of real traced programs (tests/mgsim_trace.c drives
# micad's tracer, the instruction counts and the MGSim consumer):
#  - rep.S and memops.S: counters 1-6, 9, 18, 19 against their hand counts
#    (the comments in tests/asm/*.S; counter 1 counts a REP instruction
#    once, the zero-count one too; loads and stores per REP iteration);
#  - the caches, on those and on a static glibc program: with caches too
#    large to evict anything, counters 7, 8, 16 and 17 must equal what this
#    script derives on its own from the event dump and objdump's
#    instruction lengths (the distinct lines fetched, read and written),
#    for a write-through and a write-back L1D, with and without an L2;
#  - counter 1 equals H plus the zero-count REP executions (static_prog),
#    and the interval snapshots match MICA's boundary rule (H / S + 1);
#  - two threads (18 = 2, the integrals within their bounds) and a fork
#    followed into an exec (19 = 1);
#  - the §4.2 invariants between consecutive snapshots.
. "$top_srcdir/tests/tracer_lib.sh"

DRV="$top_builddir/tests/mgsim_trace"
PROG="$top_builddir/tests/cprog/static_prog"
BIG=l1i=4M:64:64,l1d=4M:64:64

# counter NAME FILE
counter() {
	sed -n "s/^counter $1 //p" "$2"
}

# The expected 7 8 16 17 for policy (wt|wb) and l2 (l2|none), from a dump
# and the program's objdump: no evictions, so each line misses once.
derive() {	# derive DUMP PROG POLICY L2
	objdump -d --insn-width=16 "$2" | awk -F '\t' -v policy="$3" -v l2="$4" '
	function hex(s,   i, c, v) {
		v = 0
		s = tolower(s)
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			v = v * 16 + c
		}
		return v
	}
	function lines(a, n, set, cnt,   l, first, last) {
		first = int(a / 64)
		last = int((a + n - 1) / 64)
		# mawk: a number above 2^31 becomes an inexact "%.6g" key
		for (l = first; l <= last; l++) { set[sprintf("%.0f", l)] = 1; cnt++ }
		return cnt
	}
	FNR == NR {
		if ($1 ~ /^ *[0-9a-f]+:$/ && NF >= 3) {
			a = $1; gsub(/[ :]/, "", a)
			nb = split($2, b, " ")
			len[a] = nb
			split($3, w, " ")
			mn[a] = w[1]
		}
		next
	}
	{
		n = split($0, f, " ")
		pc = f[2]
		if (!(pc in len)) { unknown++; next }
		if (mn[pc] ~ /^(prefetch|clflush|clwb|movnt|maskmov|vmovnt|vmaskmovdqu|movdir)/)
			special[mn[pc]] = 1
		lines(hex(pc), len[pc], code)
		for (i = 6; i <= n; i++) {
			k = substr(f[i], 1, 1)
			rest = substr(f[i], 3)
			if (rest ~ /p$/) continue
			split(rest, x, ":")
			if (k == "r") lines(hex(x[1]), x[2], rd)
			else wlines += lines(hex(x[1]), x[2], wr)
		}
	}
	END {
		for (l in code) { nc++; all[l] = 1 }
		for (l in rd) { nr++; rw[l] = 1; all[l] = 1 }
		for (l in wr) { rw[l] = 1; all[l] = 1 }
		for (l in rw) nrw++
		for (l in all) nall++
		s = ""
		for (sp in special) s = s " " sp
		if (unknown || s != "") { print "unsupported", unknown + 0, s; exit }
		if (policy == "wt") { c7 = nc + nr; c8 = wlines + 0 } else { c7 = nc + nrw; c8 = 0 }
		if (l2 == "l2") { c16 = nall; c17 = 0 } else { c16 = c7; c17 = c8 }
		print c7, c8, c16, c17
	}' - "$1"
}

# measured 7 8 16 17
measured() {
	echo "$(counter n_reqs_l2tol1 "$1") $(counter n_reqs_l1tol2 "$1")" \
	     "$(counter n_cl_loads_ext "$1") $(counter n_cl_stores_ext "$1")"
}

# Hand counts: rep.S and memops.S (see their comments).
"$DRV" -d "$TMP/rep.dump" -- "$ASM/rep" > "$TMP/rep.out"
is "$(counter n_exec_insns "$TMP/rep.out")" 19 "rep: counter 1 = 19 (H 18 + the zero-count REP)"
is "$(sed -n 's/^insns //p' "$TMP/rep.out")" "34 18" "rep: E 34, H 18 (hand count)"
is "$(counter n_compl_core_loads "$TMP/rep.out") $(counter n_bytes_l1tocore "$TMP/rep.out")" \
	"12 37" "rep: 12 loads (5 movsb, 4 cmpsb, 3 movsq), 37 bytes (5 + 4 x 2 + 24)"
is "$(counter n_compl_core_stores "$TMP/rep.out") $(counter n_bytes_coretol1 "$TMP/rep.out")" \
	"15 36" "rep: 15 stores (5 movsb, 7 stosb, 3 movsq), 36 bytes"
is "$(counter notused1 "$TMP/rep.out") $(counter n_cr_threads "$TMP/rep.out") $(counter n_cr_families "$TMP/rep.out")" \
	"1 1 0" "rep: 1 core, 1 thread created, no family created"
is "$(counter n_issued_flops "$TMP/rep.out")" 0 "rep: no FP instruction"

"$DRV" -d "$TMP/memops.dump" -- "$ASM/memops" > "$TMP/memops.out"
is "$(counter n_exec_insns "$TMP/memops.out")" 18 "memops: counter 1 = H = 18"
is "$(counter n_compl_core_loads "$TMP/memops.out") $(counter n_bytes_l1tocore "$TMP/memops.out")" \
	"11 52" "memops: 11 loads, 52 bytes (8+2+8+4+8+1+3x4+8+1)"
is "$(counter n_compl_core_stores "$TMP/memops.out") $(counter n_bytes_coretol1 "$TMP/memops.out")" \
	"8 42" "memops: 8 stores, 42 bytes (4+2+8+8+3x4+8)"

# caches NAME PROG POLICY L2 [DRIVER OPTIONS]: trace PROG into $TMP/NAME.out
# and .dump with big caches, and compare 7 8 16 17 with derive's.
caches() {
	name=$1 bin=$2 policy=$3 l2=$4
	shift 4
	set="$BIG,l1d_policy=$policy"
	[ "$l2" = none ] && set="$set,l2=none"
	"$DRV" -c "$set" "$@" -d "$TMP/$name.dump" -- "$bin" > "$TMP/$name.out"
	want=$(derive "$TMP/$name.dump" "$bin" "$policy" "$l2")
	case $want in
	unsupported*)
		skip "$name, $policy, L2 $l2: caches against the dump" \
			"the program ran instructions this script does not model ($want)"
		;;
	*)
		is "$(measured "$TMP/$name.out")" "$want" \
			"$name, $policy, L2 $l2: counters 7 8 16 17 = the distinct lines of the dump"
		;;
	esac
}

# Caches against the dump: both policies, with and without an L2.
for prog in rep memops; do
	for policy in wt wb; do
		for l2 in l2 none; do
			caches "$prog-$policy-$l2" "$ASM/$prog" $policy $l2
		done
	done
done

# A static glibc program (write-back with an L2 in intervals of 10000,
# write-through without).
caches sp "$PROG" wb l2 -i 10000
caches sp2 "$PROG" wt none
set -- $(sed -n 's/^insns //p' "$TMP/sp.out")
h=$2
zero=$(awk 'int($4 / 2) % 2 == 1 && $5 == 0' "$TMP/sp.dump" | wc -l)
is "$(counter n_exec_insns "$TMP/sp.out")" "$((h + zero))" \
	"static_prog: counter 1 = H ($h) + zero-count REPs ($zero)"
is "$(grep -c '^snapshot [0-9]* [0-9]' "$TMP/sp.out")" "$((h / 10000 + 1))" \
	"static_prog: one snapshot per MICA interval of 10000 (H / S + 1)"
is "$(sed -n 's/^check //p' "$TMP/sp.out")" 0 "static_prog: the invariants hold between snapshots"
is "$(counter clocks "$TMP/sp.out")" "$(counter tt_total "$TMP/sp.out")" \
	"static_prog: one task all along: counter 10 = counter 0"

# Two threads, one cycle per event.
"$DRV" -u -i 100 -- "$ASM/threads" > "$TMP/thr.out"
is "$(counter n_exec_insns "$TMP/thr.out")" 519 "threads: counter 1 = 113 + 406"
is "$(counter clocks "$TMP/thr.out")" 519 "threads: one cycle per event: counter 0 = 519"
is "$(counter n_cr_threads "$TMP/thr.out") $(counter n_cr_families "$TMP/thr.out")" "2 0" \
	"threads: 2 threads created, no family"
is "$(counter ft_total "$TMP/thr.out")" 519 "threads: one family all along: counter 11 = counter 0"
tt=$(counter tt_total "$TMP/thr.out")
[ "$tt" -gt 519 ] && [ "$tt" -lt $((2 * 519)) ]
ok $? "threads: 519 < counter 10 ($tt) < 2 x 519 (two tasks part of the time)"
is "$(sed -n 's/^check //p' "$TMP/thr.out")" 0 "threads: the invariants hold between snapshots"
is "$(grep -c '^snapshot' "$TMP/thr.out")" 9 \
	"threads: snapshots: 2 starts + (1 + 1) + (4 + 1) intervals of 100 (H 113 and 406)"

# A fork followed into an exec.
"$DRV" -u -f -- "$ASM/forkexec" "$ASM/branches" > "$TMP/fe.out"
is "$(counter n_cr_threads "$TMP/fe.out") $(counter n_cr_families "$TMP/fe.out")" "2 1" \
	"forkexec: 2 tasks created, 1 family (the fork; not the first process)"
set -- $(sed -n 's/^insns //p' "$TMP/fe.out")
is "$(counter n_exec_insns "$TMP/fe.out")" "$2" "forkexec: counter 1 = H of both processes ($2)"
is "$(sed -n 's/^check //p' "$TMP/fe.out")" 0 "forkexec: the invariants hold between snapshots"
done_testing
