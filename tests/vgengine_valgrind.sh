#!/bin/sh
# The valgrind engine against valgrind's own tools, on a static and a
# dynamically linked C program (tests/cprog/static_prog.c, built both
# ways), run under the same valgrind with the same environment, so that
# the programs take the same paths:
#  - every executed instruction, in order, and every data access (kind,
#    address, size) equal lackey's (--trace-mem=yes), all of ld.so and libc
#    included (tests/vgengine_lackey.awk says what the two report
#    differently by construction);
#  - the execution count of every instruction equals callgrind's Ir
#    (--dump-instr=yes) for the static program, and for the dynamic
#    program's own executable (callgrind gives the addresses of shared
#    objects relative to their load address), with callgrind's two
#    differences accounted for: it counts valgrind's extra pass at the end
#    of a REP loop (one per REP that ran out of count), and not the final
#    block (the one that ends in exit_group).
# The programs see one environment: one VALGRIND_LIB (a directory with
# micad's tool and valgrind's, given to micad as MICAD_VALGRIND_LIB), one
# LD_PRELOAD (libc,
# so that valgrind puts its preload library in front of it there, first
# in the environment: ld.so's strcspn reads a few bytes past its end,
# which would otherwise be AT_RANDOM's random bytes) and one stdout (a
# file).
. "$top_srcdir/tests/tracer_lib.sh"

if ! "$MICAD" run --engine=valgrind --no-db -q -o /dev/null -- "$ASM/loop" 2>"$TMP/avail.err"; then
	if grep -q "built without the valgrind engine" "$TMP/avail.err"; then
		skip "valgrind engine against valgrind's tools" "$(head -n 1 "$TMP/avail.err")"
		done_testing
	fi
	ok 1 "the valgrind engine runs tests/asm/loop"
	sed 's/^/# /' "$TMP/avail.err"
	done_testing
fi
vgdir=$(dirname "$(readlink -f "$top_builddir/daemon/trace/vgtool/vgpreload_core-amd64-linux.so")")
LIB="$TMP/vglib"
mkdir -p "$LIB"
ln -s "$(readlink -f "$top_builddir/daemon/trace/vgtool/micadvg-amd64-linux")" "$LIB/"
for f in callgrind-amd64-linux lackey-amd64-linux vgpreload_core-amd64-linux.so default.supp; do
	ln -s "$vgdir/$f" "$LIB/"
done
libc=$(ldd "$top_builddir/tests/cprog/dyn_prog" | sed -n 's/.*libc\.so\.6 => \([^ ]*\) .*/\1/p')
run_env() {	# run_env COMMAND...: the environment every run gets
	# (micad, under ASan, must accept a library preloaded before it)
	env -i LD_PRELOAD="$libc" PATH=/usr/bin:/bin HOME="$TMP" LANG=C MICAD_VALGRIND_LIB="$LIB" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		UBSAN_OPTIONS="$UBSAN_OPTIONS" "$@"
}
VGOPTS="--run-libc-freeres=no --run-cxx-freeres=no --vex-guest-chase=no"

HEXFN='function hex(h,   i, v) { h = tolower(h); sub(/^0x/, "", h); v = 0
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v }'

for prog in static_prog dyn_prog; do
	P="$top_builddir/tests/cprog/$prog"
	run_env "$MICAD" run --engine=valgrind --no-db -q -o "$TMP/$prog.counts" \
		--dump-events "$TMP/$prog.dump" -- "$P" > "$TMP/$prog.mi.out"
	ok $? "$prog: runs under the engine (exit status 0)"
	run_env VALGRIND_LIB="$LIB" valgrind $VGOPTS --tool=lackey --trace-mem=yes \
		--log-file="$TMP/$prog.lackey" "$P" > "$TMP/$prog.lk.out" 2>&1
	ok $? "$prog: runs under lackey"
	run_env VALGRIND_LIB="$LIB" valgrind $VGOPTS --tool=callgrind --dump-instr=yes \
		--compress-strings=no --compress-pos=no --skip-plt=no \
		--callgrind-out-file="$TMP/$prog.cg" "$P" > "$TMP/$prog.cg.out" 2>/dev/null
	ok $? "$prog: runs under callgrind"
	cmp -s "$TMP/$prog.mi.out" "$TMP/$prog.cg.out" && [ -s "$TMP/$prog.mi.out" ]
	ok $? "$prog: the same output under the engine and callgrind"

	awk -f "$top_srcdir/tests/vgengine_lackey.awk" "$TMP/$prog.dump" "$TMP/$prog.lackey" \
		> "$TMP/$prog.lk.diff"
	r=$?
	n=$(sed -n 's/^compared \([0-9]*\) .*/\1/p' "$TMP/$prog.lk.diff")
	d=$(sed -n 's/^compared [0-9]* \([0-9]*\)/\1/p' "$TMP/$prog.lk.diff")
	[ $r -eq 0 ] && [ "${n:-0}" -gt 10000 ]
	ok $? "$prog: each of the ${n:-?} instructions and the accesses of ${d:-?} equal lackey's"
	grep -v '^compared' "$TMP/$prog.lk.diff" | sed 's/^/# /'

	# Per-pc counts, decimal "pc count": callgrind's cost lines (the
	# line after calls= is a call's inclusive cost), and the engine's
	# with callgrind's view: one more per REP that ran out of count, none
	# for the final block (the events after the last taken transfer or
	# syscall before the last event).
	awk "$HEXFN"' skip { skip = 0; next } /^calls=/ { skip = 1; next }
		/^0x/ { c[hex($1)] += $3 } END { for (p in c) printf "%.0f %d\n", p, c[p] }' \
		"$TMP/$prog.cg" | sort -n > "$TMP/$prog.cg.pc"
	awk "$HEXFN"' { pc[NR] = hex($2); f[NR] = $4; r[NR] = $5 }
		END { for (last = NR - 1; last > 0 && f[last] % 2 == 0; last--) ;
		      for (i = 1; i <= last; i++) { c[pc[i]]++; if (int(f[i] / 2) % 2 == 1 && r[i] == 1) c[pc[i]]++ }
		      for (p in c) printf "%.0f %d\n", p, c[p] }' "$TMP/$prog.dump" | sort -n > "$TMP/$prog.mi.pc"
	if [ "$prog" = dyn_prog ]; then
		# the executable's own text: callgrind's absolute addresses
		range=$(nm -n "$P" | awk "$HEXFN"' $2 ~ /^[tT]$/ { a = hex($1); if (!lo || a < lo) lo = a; if (a > hi) hi = a }
			END { printf "%.0f %.0f", lo, hi + 4096 }')
		for f in cg mi; do
			awk -v r="$range" 'BEGIN { split(r, b, " ") } $1 >= b[1] && $1 < b[2]' \
				"$TMP/$prog.$f.pc" > "$TMP/$prog.$f.pc2"
			mv "$TMP/$prog.$f.pc2" "$TMP/$prog.$f.pc"
		done
	fi
	n=$(wc -l < "$TMP/$prog.mi.pc" | tr -d ' ')
	diff "$TMP/$prog.cg.pc" "$TMP/$prog.mi.pc" > "$TMP/$prog.cg.diff" && [ "$n" -gt 100 ]
	ok $? "$prog: the count of each of $n instructions equals callgrind's"
	sed 's/^/# /' "$TMP/$prog.cg.diff" | head -20
done

# The engine's dynamic-program stream is not the same as lackey's in
# another environment: the comparison does see a difference.
env -i PATH=/usr/bin:/bin HOME="$TMP" LANG=C MICAD_VALGRIND_LIB="$LIB" \
	"$MICAD" run --engine=valgrind --no-db -q -o /dev/null --dump-events "$TMP/other.dump" \
	-- "$top_builddir/tests/cprog/dyn_prog" > /dev/null
awk -f "$top_srcdir/tests/vgengine_lackey.awk" "$TMP/other.dump" "$TMP/dyn_prog.lackey" > /dev/null
[ $? -ne 0 ]
ok $? "dyn_prog: a run in another environment (no LD_PRELOAD) differs from lackey's"

done_testing
