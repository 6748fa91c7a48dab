#!/bin/sh
# Cross-checks against valgrind.
#  - callgrind's instruction count (Ir) on the assembly programs equals
#    micad's E less the last basic block: callgrind (3.19) never counts the
#    block that ends in the exit syscall, since that block does not
#    complete (loop.S: 3 instructions, calls.S: 4, branches.S: 3).
#    REP programs are left out: callgrind's per-iteration REP counts
#    differ from the architectural iterations (it counted a REPE CMPSB that
#    ran 4 iterations as 3).
#  - lackey --trace-mem=yes gives the same data accesses (kind, address,
#    size) for globals and the same shape for the stack (valgrind puts the
#    stack elsewhere, so stack addresses are compared as "stack").
#    Lackey (valgrind 3.19) reports no 1-byte loads (movzbl, cmpb from
#    memory): those are left out of micad's list before comparing.
. "$top_srcdir/tests/tracer_lib.sh"

if ! command -v valgrind > /dev/null 2>&1; then
	skip "callgrind comparison" "valgrind not installed"
	skip "lackey comparison" "valgrind not installed"
	done_testing
fi

for spec in loop:3 calls:4 branches:3; do
	prog=${spec%:*}
	last=${spec#*:}
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.$prog" "$ASM/$prog" > /dev/null 2>&1
	ir=$(sed -n 's/^summary: //p' "$TMP/cg.$prog")
	"$MICAD" run -q -o "$TMP/$prog.counts" -- "$ASM/$prog" > /dev/null
	e=$(counts_nth "$TMP/$prog.counts" 1 | cut -d' ' -f1)
	is "$((e - last))" "$ir" "$prog: micad E less the final block ($last) equals callgrind Ir"
done

valgrind --tool=lackey --trace-mem=yes --log-file="$TMP/lackey.log" "$ASM/memops" > /dev/null 2>&1
# Addresses of more than 9 hex digits are the stack (both tools).
awk 'function norm(h) { sub(/^0+/, "", h); return length(h) > 9 ? "stack" : h }
	/^ [LSM] / { split($2, a, ","); print $1, norm(a[1]), a[2] }' \
	"$TMP/lackey.log" > "$TMP/lackey.acc"
"$MICAD" run -q -o /dev/null --dump-events "$TMP/memops.dump" -- "$ASM/memops" > /dev/null
awk 'function norm(h) { sub(/^0+/, "", h); return length(h) > 9 ? "stack" : h }
{
	n = 0
	for (i = 6; i <= NF; i++) { split(substr($i, 3), a, ":"); k[n] = substr($i, 1, 1); ad[n] = a[1]; sz[n] = a[2]; n++ }
	for (i = 0; i < n; i++) {
		where = norm(ad[i])
		if (k[i] == "r" && i + 1 < n && k[i+1] == "w" && ad[i+1] == ad[i]) { print "M", where, sz[i]; i++; continue }
		if (k[i] == "r" && sz[i] == 1) continue
		print (k[i] == "r" ? "L" : "S"), where, sz[i]
	}
}' "$TMP/memops.dump" > "$TMP/micad.acc"
diff "$TMP/lackey.acc" "$TMP/micad.acc" > "$TMP/acc.diff"
ok $? "memops: data accesses equal lackey's (globals by address, stack by shape)"
[ -s "$TMP/micad.acc" ]
ok $? "memops: accesses were compared"
sed 's/^/# /' "$TMP/acc.diff"
done_testing
