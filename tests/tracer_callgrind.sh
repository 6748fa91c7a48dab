#!/bin/sh
# A static glibc C program (tests/cprog/static_prog.c, gcc -O1 -static)
# traced by micad and run under callgrind: exact comparisons of what both
# tools see the same way.
#
#  - Per instruction, for the program's own functions (main, work, fill,
#    sum, mix, fib): micad's execution count of each pc (events of
#    --dump-events) equals callgrind's Ir of that instruction
#    (--dump-instr=yes).  callgrind runs with --skip-plt=no: by default it
#    charges the PLT stub's 'jmp *GOT' (the memcpy ifunc slot of a static
#    binary) to the caller's call instruction.
#  - Inclusive: the instructions executed from work()'s entry until control
#    is back in main equal callgrind's inclusive cost of the call (work
#    calls nothing from glibc).
#  - The 8 memcpy calls of main, inclusive (PLT jump and memcpy body),
#    provided both runs used the same memcpy variant.  memcpy is an ifunc:
#    glibc picks a variant from CPUID, and valgrind's synthetic CPU hides
#    features (typically AVX-512), so natively glibc may pick another one.
#    If so, micad runs the program again with GLIBC_TUNABLES masking
#    AVX-512; if the variants still differ the check is skipped.  The copy
#    is 200 bytes, under the rep-movsb threshold: no REP string op, whose
#    iterations callgrind counts differently.
#
# The whole-program totals are not compared, only shown: they differ by a
# few thousand instructions, for reasons outside the tracer, listed per
# function in the log (# lines):
#  - glibc start-up sees another environment under valgrind (valgrind adds
#    variables, so getenv/__tunables_init/_dl_non_dynamic_init differ),
#    another CPUID (init_cpu_features, intel_check_word's cache
#    descriptors, every *_ifunc resolver and the string-function variants:
#    *_evex/*_avx512* natively, *_avx2/*_avx* under valgrind), and no vDSO
#    under valgrind (natively _dl_non_dynamic_init looks up the vDSO's
#    symbols: do_lookup_x, check_match, ...);
#  - callgrind does not count the final block, the one that ends in the
#    exit_group syscall (_exit: 2 instructions fewer);
#  - callgrind counts REP string instructions by its own rule, not per
#    architectural iteration (E) nor once (H).
. "$top_srcdir/tests/tracer_lib.sh"

PROG="$top_builddir/tests/cprog/static_prog"
FUNCS="main work fill sum mix fib"

if ! command -v valgrind > /dev/null 2>&1; then
	skip "static C program vs callgrind" "valgrind not installed"
	done_testing
fi

# hex(): mawk has no strtonum.
HEXFN='function hex(h,   i, v) { h = tolower(h); sub(/^0x/, "", h); v = 0
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v }'

# Symbols: "addr size name" of the text symbols.
nm -S -n "$PROG" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ { print $1, $2, $4 }' > "$TMP/syms"
range() {	# range NAME: "start end" in decimal
	awk "$HEXFN"' $3 == n { printf "%.0f %.0f\n", hex($1), hex($1) + hex($2); exit }' n="$1" "$TMP/syms"
}

valgrind --tool=callgrind --dump-instr=yes --compress-strings=no --compress-pos=no \
	--skip-plt=no --callgrind-out-file="$TMP/cg.out" "$PROG" > "$TMP/cg.stdout" 2> "$TMP/cg.log"
ok $? "the program runs under callgrind"
"$MICAD" run -q -o "$TMP/counts" --dump-events "$TMP/dump" -- "$PROG" > "$TMP/mi.stdout"
ok $? "the program runs under micad (exit status 0)"
cmp -s "$TMP/cg.stdout" "$TMP/mi.stdout" && [ -s "$TMP/mi.stdout" ]
ok $? "same output under both tools"

# Per-pc counts "decimal-pc count": callgrind's cost lines (the line after
# a calls= line is the call's inclusive cost, not the instruction's).
awk "$HEXFN"' skip { skip = 0; next } /^calls=/ { skip = 1; next }
	/^0x/ { c[hex($1)] += $3 } END { for (p in c) printf "%.0f %d\n", p, c[p] }' "$TMP/cg.out" | sort -n > "$TMP/cg.pc"
pcs_of_dump() {	# pcs_of_dump DUMP
	awk "$HEXFN"' { c[hex($2)]++ } END { for (p in c) printf "%.0f %d\n", p, c[p] }' "$1" | sort -n
}
pcs_of_dump "$TMP/dump" > "$TMP/mi.pc"

for f in $FUNCS; do
	r=$(range "$f")
	if [ -z "$r" ]; then
		ok 1 "$f: symbol found"
		continue
	fi
	set -- $r
	awk -v lo="$1" -v hi="$2" '$1 >= lo && $1 < hi' "$TMP/cg.pc" > "$TMP/cg.$f"
	awk -v lo="$1" -v hi="$2" '$1 >= lo && $1 < hi' "$TMP/mi.pc" > "$TMP/mi.$f"
	n=$(awk '{ s += $2 } END { print s + 0 }' "$TMP/mi.$f")
	diff "$TMP/cg.$f" "$TMP/mi.$f" > "$TMP/diff.$f" && [ "$n" -gt 0 ]
	ok $? "$f: per-instruction counts equal callgrind's ($n instructions, $(wc -l < "$TMP/mi.$f" | tr -d ' ') pcs)"
	sed 's/^/# /' "$TMP/diff.$f"
done

# Inclusive cost of the calls made at each call site of main, callgrind's
# view: "callsite-decimal inclusive target-decimal".
awk "$HEXFN"' /^fn=/ { fn = substr($0, 4) }
	incl { incl = 0; if (fn == "main") printf "%.0f %d %.0f\n", hex($1), $3, tgt; next }
	/^calls=/ { incl = 1; tgt = hex($2) }' "$TMP/cg.out" |
	awk '{ s[$1] += $2; t[$1] = $3 } END { for (c in s) print c, s[c], t[c] }' > "$TMP/cg.sites"
# micad's view from the event sequence: from the event after a call in main
# to the first event back in main.
sites_of_dump() {	# sites_of_dump DUMP: "callsite inclusive first-pc-after-PLT"
	set -- $(range main) "$1"
	awk "$HEXFN"' {
		pc = hex($2)
		if (in_call) {
			if (pc >= lo && pc < hi) in_call = 0
			else { s[site]++; if (s[site] == 2 && !(site in first)) first[site] = pc; next }
		}
		if (pc >= lo && pc < hi && (hex($3) < lo || hex($3) >= hi)) { in_call = 1; site = pc }
	} END { for (c in s) printf "%.0f %d %.0f\n", c, s[c], first[c] }' lo="$1" hi="$2" "$3"
}
sites_of_dump "$TMP/dump" > "$TMP/mi.sites"

set -- $(range work)
work_site=$(awk -v t="$1" '$3 == t { print $1 }' "$TMP/cg.sites")
work_cg=$(awk -v s="$work_site" '$1 == s { print $2 }' "$TMP/cg.sites")
work_mi=$(awk -v s="$work_site" '$1 == s { print $2 }' "$TMP/mi.sites")
[ -n "$work_cg" ]
ok $? "callgrind reports work's inclusive cost ($work_cg)"
is "$work_mi" "$work_cg" "work(): inclusive instruction count equals callgrind's"

# memcpy: callgrind's call site in main whose callee is a PLT stub, and
# the variant callgrind ran: the target of that stub's call.
plt=$(awk '/^fn=/ { fn = substr($0, 4) } fn == "main" && /^cfn=.*\[PLT\]$/ { print substr($0, 5); exit }' "$TMP/cg.out")
mc_site=$(awk "$HEXFN"' /^fn=/ { fn = substr($0, 4) }
	fn == "main" && $0 == "cfn=" plt { want = 1; next }
	want && /^calls=/ { getline; printf "%.0f\n", hex($1); exit }' plt="$plt" "$TMP/cg.out")
cg_variant=$(awk "$HEXFN"' /^fn=/ { fn = substr($0, 4) }
	fn == plt && /^calls=/ { printf "%.0f\n", hex($2); exit }' plt="$plt" "$TMP/cg.out")
cg_incl=$(awk -v s="$mc_site" '$1 == s { print $2 }' "$TMP/cg.sites")
mi_variant=$(awk -v s="$mc_site" '$1 == s { print $3 }' "$TMP/mi.sites")
mi_incl=$(awk -v s="$mc_site" '$1 == s { print $2 }' "$TMP/mi.sites")
sym_at() { awk "$HEXFN"' hex($1) == a { print $3; exit }' a="$1" "$TMP/syms"; }
echo "# memcpy variant: callgrind $(sym_at "$cg_variant"), micad $(sym_at "$mi_variant")"
if [ -n "$mc_site" ] && [ -n "$cg_variant" ] && [ "$cg_variant" != "$mi_variant" ]; then
	tun="glibc.cpu.hwcaps=-AVX512F,-AVX512VL"
	GLIBC_TUNABLES=$tun "$MICAD" run -q -o /dev/null --dump-events "$TMP/dump2" -- "$PROG" > /dev/null
	sites_of_dump "$TMP/dump2" > "$TMP/mi2.sites"
	mi_variant=$(awk -v s="$mc_site" '$1 == s { print $3 }' "$TMP/mi2.sites")
	mi_incl=$(awk -v s="$mc_site" '$1 == s { print $2 }' "$TMP/mi2.sites")
	echo "# with GLIBC_TUNABLES=$tun micad ran $(sym_at "$mi_variant")"
fi
if [ -z "$mc_site" ] || [ -z "$plt" ]; then
	ok 1 "memcpy call site found in callgrind's output"
elif [ "$cg_variant" = "$mi_variant" ]; then
	is "$mi_incl" "$cg_incl" "memcpy from main (8 calls, $(sym_at "$mi_variant")): inclusive count equals callgrind's"
else
	skip "memcpy inclusive count" "glibc picked another memcpy variant natively than under valgrind"
fi

# The totals, shown with the per-function differences (see the top).
e=$(counts_nth "$TMP/counts" 1 | cut -d' ' -f1)
ir=$(sed -n 's/^summary: //p' "$TMP/cg.out")
echo "# whole program: micad E=$e, callgrind Ir=$ir (not compared; differences per function:)"
byfn() {
	awk "$HEXFN"' FNR == NR { a[NR] = hex($1); z[NR] = hex($2); n[NR] = $3; ns = NR; next }
	{ pc = $1; b = 0; lo = 1; hi = ns
	  while (lo <= hi) { m = int((lo + hi) / 2); if (a[m] <= pc) { b = m; lo = m + 1 } else hi = m - 1 }
	  t[(b && pc < a[b] + z[b]) ? n[b] : "(no symbol)"] += $2 }
	END { for (f in t) print f, t[f] }' "$TMP/syms" "$1" | sort
}
byfn "$TMP/cg.pc" > "$TMP/cg.fn"
byfn "$TMP/mi.pc" > "$TMP/mi.fn"
join -a1 -a2 -e0 -o 0,1.2,2.2 "$TMP/cg.fn" "$TMP/mi.fn" |
	awk '$2 != $3 { printf "#   %-45s callgrind %6d  micad %6d\n", $1, $2, $3 }'
done_testing
