#!/bin/sh
# Sample mode's profiles against a program of known shape
# (tests/cprog/sample_hot.c): hot() at 70 +- 10% of the samples, both of
# its call paths in the stacks, a shared library's function named with
# that library's path, a dlopen'ed C++ library's function demangled;
# with dwarf stacks (libunwind) and frame-pointer stacks; sample weights
# and times; the vDSO's functions, and kernel samples (:k, as root) with
# the user stack under them; a forked child that execs, followed.
. "$top_srcdir/tests/tracer_lib.sh"
. "$top_srcdir/tests/sample_lib.sh"

DIR=$(cd "$CPROG" && pwd -P)
PROG="$DIR/sample_hot"
DL="$DIR/libsample_dl.so"

profile() {	# profile NAME OPTIONS...: a --no-bursts run's dump in $TMP/NAME
	name=$1
	shift
	"$MICAD" run -q --sample --no-bursts --no-db --dump-events "$TMP/$name" "$@" \
		-- "$PROG" "$DL" >"$TMP/$name.out" 2>"$TMP/$name.err"
	is "$?" 0 "$name: micad exits with the program's status"
	is "$(cat "$TMP/$name.out")" "done" "$name: the program's output is intact"
}

# share NUM DEN: NUM/DEN in percent (integer)
share() {
	[ "$2" -gt 0 ] && echo $(($1 * 100 / $2)) || echo 0
}

# frames DUMP: each sample's frames as "sym1;sym2;..." (innermost first)
frames() {
	samples "$1" | awk -F '\t' '{ s = "";
		for (i = 2; i <= NF; i++) { x = $i; sub(/^0x[0-9a-f]* [^ ]* /, "", x);
			sub(/\+0x[0-9a-f]*$/, "", x); s = s (i > 2 ? ";" : "") x }
		print s }'
}

check_paths() {	# check_paths NAME
	total=$(samples "$TMP/$1" | wc -l)
	frames "$TMP/$1" > "$TMP/$1.frames"
	hot=$(grep -c '^hot;' "$TMP/$1.frames")
	via_a=$(grep -c '^hot;caller_a;main;' "$TMP/$1.frames")
	via_b=$(grep -c '^hot;caller_b;main;' "$TMP/$1.frames")
	pct=$(share "$hot" "$total")
	[ "$total" -ge 200 ]
	ok $? "$1: at least 200 samples ($total)"
	[ "$pct" -ge 60 ] && [ "$pct" -le 80 ]
	ok $? "$1: hot() is 70 +- 10% of the samples ($hot of $total: $pct%)"
	[ "$(share "$via_a" "$hot")" -ge 30 ] && [ "$(share "$via_b" "$hot")" -ge 30 ]
	ok $? "$1: both call paths, hot <- caller_a <- main ($via_a) and hot <- caller_b <- main ($via_b)"
	[ $((via_a + via_b)) -ge $((hot * 9 / 10)) ]
	ok $? "$1: at least 90% of hot()'s stacks reach main ($((via_a + via_b)) of $hot)"
}

profile dwarf
check_paths dwarf

# The shared library's function: its module is the library's path.
lib=$(samples "$TMP/dwarf" | cut -f2 | grep ' lib_work+0x' | head -n 1)
is "$(echo "$lib" | cut -d' ' -f2)" "$DIR/libsample_lib.so" \
	"dwarf: lib_work() is in libsample_lib.so (the module is the library's path)"
n=$(samples "$TMP/dwarf" | cut -f2,3 | grep -c " lib_work+0x.*	0x[0-9a-f]* $DIR/sample_hot main+0x")
[ "$n" -ge 10 ]
ok $? "dwarf: lib_work()'s caller is main in the executable ($n samples)"

# The dlopen'ed library, C++: demangled.
n=$(samples "$TMP/dwarf" | cut -f2,3 | grep -c "^0x[0-9a-f]* $DL sample_ns::spin(unsigned long)+0x[0-9a-f]*	0x[0-9a-f]* $DL dl_work+0x")
[ "$n" -ge 10 ]
ok $? "dwarf: the dlopen'ed library resolves: sample_ns::spin(unsigned long) <- dl_work ($n samples)"

# Weights and times: cpu-clock periods near 1/999 s, times increasing.
samples "$TMP/dwarf" | awk '{ if ($5 < 500000 || $5 > 2000000) bad++; if ($2 <= last) back++; last = $2 }
	END { exit bad + back > 0 }'
ok $? "dwarf: weights are cpu-clock ns near 1e6 and sample times increase"
samples "$TMP/dwarf" | awk -v pid="$(grep -m1 '^sample ' "$TMP/dwarf" | cut -d' ' -f3)" \
	'$3 != pid || $4 != pid { bad++ } END { exit bad > 0 }'
ok $? "dwarf: every sample is of the program's one thread (pid = tid)"

profile fp --call-graph fp
check_paths fp

# The vDSO: named from its image in the process's memory, unwound too.
"$MICAD" run -q --sample --no-bursts --no-db --dump-events "$TMP/vdso" -- "$CPROG/sample_vdso" \
	> "$TMP/vdso.out" 2>/dev/null
is "$(cat "$TMP/vdso.out")" "done" "vdso: the program ran"
total=$(samples "$TMP/vdso" | wc -l)
n=$(samples "$TMP/vdso" | cut -f2 | grep -c '^0x[0-9a-f]* \[vdso\] [_a-z]*clock_gettime+0x')
[ "$total" -gt 0 ] && [ $((n * 2)) -ge "$total" ]
ok $? "vdso: most samples are in the vDSO's clock_gettime ($n of $total)"
n=$(frames "$TMP/vdso" | grep -c 'clock_gettime;.*main;')
[ "$n" -ge 10 ]
ok $? "vdso: stacks from the vDSO reach main ($n)"

# --follow-forks: tests/asm/forkexec forks, its child execs sample_hot:
# the child is sampled from the fork on, the new image resolves.
"$MICAD" run -q --sample --no-bursts --follow-forks --no-db -o "$TMP/fx.counts" \
	--dump-events "$TMP/fx" -- "$ASM/forkexec" "$PROG" "$DL" > "$TMP/fx.out" 2>/dev/null
is "$?" 0 "follow-forks: the parent passes the child's status"
parent=$(sed -n '1s/^pid \([0-9]*\) .*/\1/p' "$TMP/fx.counts")
n=$(samples "$TMP/fx" | awk -v p="$parent" '$3 != p' | cut -f2 | grep -c " $PROG hot+0x")
[ "$n" -ge 100 ]
ok $? "follow-forks: the exec'd child's samples resolve in its new image ($n in hot)"

if [ "$(id -u)" -eq 0 ]; then
	# dd's byte-by-byte copy spends its time in read and write.
	"$MICAD" run -q --sample -e cpu-clock:uk --no-bursts --no-db --dump-events "$TMP/k" \
		-- dd if=/dev/zero of=/dev/null bs=1 count=300000 > /dev/null 2>&1
	n=$(samples "$TMP/k" | cut -f2,3 | grep -c '^0xffff[0-9a-f]* \[kernel\] \[unknown\]+0xffff[0-9a-f]*	0x7[0-9a-f]* ')
	[ "$n" -ge 20 ]
	ok $? "cpu-clock:uk as root: kernel samples, then the user frames ($n)"
else
	skip "cpu-clock:uk as root: kernel samples, then the user frames" "not root"
fi

done_testing
