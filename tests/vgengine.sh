#!/bin/sh
# The valgrind engine (micad run --engine=valgrind) against the hand counts
# of the assembly programs and against step mode:
#  - E, H and the exit status of every hand-counted program (tests/asm,
#    with the vg_* ones: REP corner cases, self-modifying code, FS-relative
#    accesses, an AVX2 gather, a SIGSEGV), threads and fork+exec included;
#  - the same events as step mode, event for event (pc, next pc, flags,
#    REP count, every access), per thread, and every MICA output file byte
#    for byte, in full and in interval mode.  Valgrind builds the initial
#    stack itself (another auxiliary vector), so the stack pointer starts
#    elsewhere: step mode runs without address randomization (setarch -R)
#    and the engine's program gets an environment variable of the length
#    that puts its stack at the same page offset, so that the 64-byte
#    blocks and pages the footprint and reuse-distance files count are the
#    same; stack addresses in the dumps are compared as offsets;
#  - a program killed by SIGKILL keeps what was recorded before;
#  - the errors: attach, an unknown engine, a program that cannot run, a
#    tool directory without the tool.
. "$top_srcdir/tests/tracer_lib.sh"

if ! "$MICAD" run --engine=valgrind --no-db -q -o /dev/null -- "$ASM/loop" 2>"$TMP/avail.err"; then
	if grep -q "built without the valgrind engine" "$TMP/avail.err"; then
		skip "valgrind engine" "$(head -n 1 "$TMP/avail.err")"
		done_testing
	fi
	ok 1 "the valgrind engine runs tests/asm/loop"
	sed 's/^/# /' "$TMP/avail.err"
	done_testing
fi

vg() {		# vg ARGS...: micad run --engine=valgrind, no database
	"$MICAD" run --engine=valgrind --no-db -q "$@"
}

# name  E  H  exit-status
while read -r name e h st; do
	vg -o "$TMP/$name.counts" -- "$ASM/$name" > /dev/null 2>"$TMP/$name.err"
	rc=$?
	is "$rc" "$st" "$name: exit status $st under the engine"
	is "$(counts_nth "$TMP/$name.counts" 1)" "$e $h" "$name: E=$e H=$h"
done <<'LIST'
loop 304 304 0
rep 34 18 0
calls 48 48 0
branches 60 60 5
memops 20 18 0
signals 38 38 3
vg_rep2 33 22 0
vg_smc 28 28 3
vg_fs 9 9 42
vg_segv 3 3 139
LIST
grep -q "tid [0-9]*: 3 instructions (E), 3 (H); killed by signal 11" "$TMP/vg_segv.counts"
ok $? "vg_segv: the faulting store does not count; the thread is killed by signal 11"

if grep -qw avx2 /proc/cpuinfo; then
	vg -o "$TMP/gather.counts" -- "$ASM/vg_gather"
	is "$?" 0 "vg_gather: exit status 0"
	is "$(counts_nth "$TMP/gather.counts" 1)" "10 10" "vg_gather: E=H=10"
else
	skip "vg_gather" "this CPU has no AVX2"
	skip "vg_gather counts" "this CPU has no AVX2"
fi

vg -o "$TMP/thr.counts" -- "$ASM/threads" 2>/dev/null
is "$?" 0 "threads: exit status 0"
is "$(counts_nth "$TMP/thr.counts" 1)" "113 113" "threads: main thread E=H=113"
is "$(counts_nth "$TMP/thr.counts" 2)" "406 406" "threads: second thread E=H=406"
is "$(sed -n '2s/^pid \([0-9]*\) tid \([0-9]*\):.*/\1/p' "$TMP/thr.counts")" \
	"$(sed -n '1s/^pid \([0-9]*\) .*/\1/p' "$TMP/thr.counts")" "threads: both threads of one process"

vg -o "$TMP/fe.counts" -- "$ASM/forkexec" "$ASM/branches"
is "$?" 5 "forkexec: exit status of the exec'd child"
is "$(wc -l < "$TMP/fe.counts" | tr -d ' ')" 1 "forkexec: one process without --follow-forks"
is "$(counts_nth "$TMP/fe.counts" 1)" "13 13" "forkexec: parent E=H=13"
vg --follow-forks -o "$TMP/fe2.counts" -- "$ASM/forkexec" "$ASM/branches"
is "$?" 5 "forkexec --follow-forks: exit status"
is "$(counts_nth "$TMP/fe2.counts" 1)" "13 13" "forkexec --follow-forks: parent E=H=13"
is "$(counts_nth "$TMP/fe2.counts" 2)" "67 67" "forkexec --follow-forks: child 7 + 60 after the exec"

# ---- event for event, and MICA file for file, against step mode ----

# stack_of DUMP: the first stack address (more than 9 hex digits) accessed
stack_of() {
	awk '{ for (i = 6; i <= NF; i++) { split(substr($i, 3), a, ":")
		if (length(a[1]) > 9) { print a[1]; exit } } }' "$1"
}
HEXFN='function hex(h,   i, v) { h = tolower(h); v = 0
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v }'
# normalize DUMP BASE: threads numbered in order of appearance (events of
# each thread together, in order), stack addresses as offsets from BASE
normalize() {
	awk -v base="${2:-0}" "$HEXFN"' BEGIN { b = hex(base) }
		{ if (!($1 in o)) o[$1] = ++n; $1 = o[$1]
		for (i = 6; i <= NF; i++) { k = substr($i, 1, 2); split(substr($i, 3), a, ":")
			if (length(a[1]) > 9) $i = k "S" sprintf("%+.0f", hex(a[1]) - b) ":" a[2] }
		print }' "$1" | sort -s -k1,1n
}
# rename_threads DIR: the files of a thread other than the first carry its
# number, which is another in each run
rename_threads() {
	for f in "$1"/*_[0-9]*_pin.out; do
		[ -e "$f" ] && mv "$f" "$(echo "$f" | sed 's/_[0-9][0-9]*_pin\.out$/_N_pin.out/')"
	done
}

printf 'analysis_type: all\ninterval_size: full\n' > "$TMP/full.conf"
printf 'analysis_type: all\ninterval_size: 200\n' > "$TMP/int.conf"
if command -v setarch > /dev/null 2>&1; then
	progs="loop rep calls branches memops signals threads vg_rep2 vg_smc vg_fs vg_segv"
	grep -qw avx2 /proc/cpuinfo && progs="$progs vg_gather"
	for p in $progs forkexec; do
		args=
		[ "$p" = forkexec ] && args="$ASM/branches"
		d="$TMP/cmp-$p"
		mkdir -p "$d/step-full" "$d/step-int" "$d/vg-full" "$d/vg-int"
		for c in full int; do
			setarch -R "$MICAD" run --no-db -q -o /dev/null --follow-forks -c "$TMP/$c.conf" \
				--mica-out "$d/step-$c" --dump-events "$d/step.dump" -- "$ASM/$p" $args \
				> /dev/null 2>&1
		done
		# The engine's stack, once, then moved to step mode's page offset.
		env PAD= "$MICAD" run --engine=valgrind --no-db -q -o /dev/null --follow-forks \
			--dump-events "$d/vg.dump" -- "$ASM/$p" $args > /dev/null 2>&1
		s1=$(stack_of "$d/step.dump")
		s2=$(stack_of "$d/vg.dump")
		pad=
		if [ -n "$s1" ] && [ -n "$s2" ]; then
			n=$(awk -v a="$s1" -v b="$s2" "$HEXFN"' BEGIN { d = (hex(b) - hex(a)) % 4096
				if (d < 0) d += 4096; printf "%d", d }')
			pad=$(printf "%${n}s" "" | tr ' ' x)
		fi
		for c in full int; do
			env PAD="$pad" "$MICAD" run --engine=valgrind --no-db -q -o /dev/null \
				--follow-forks -c "$TMP/$c.conf" --mica-out "$d/vg-$c" \
				--dump-events "$d/vg.dump" -- "$ASM/$p" $args > /dev/null 2>&1
		done
		normalize "$d/step.dump" "$s1" > "$d/step.n"
		normalize "$d/vg.dump" "$(stack_of "$d/vg.dump")" > "$d/vg.n"
		diff "$d/step.n" "$d/vg.n" > "$d/dump.diff" && [ -s "$d/step.n" ]
		ok $? "$p: the engine's events equal step mode's ($(wc -l < "$d/step.n" | tr -d ' ') events)"
		sed 's/^/# /' "$d/dump.diff" | head -10
		for c in full int; do
			rename_threads "$d/step-$c"
			rename_threads "$d/vg-$c"
			n=$(ls "$d/step-$c" | wc -l)
			diff -r "$d/step-$c" "$d/vg-$c" > "$d/mica-$c.diff" 2>&1 && [ "$n" -ge 8 ]
			ok $? "$p: the $n MICA files ($c) equal step mode's byte for byte"
			sed 's/^/# /' "$d/mica-$c.diff" | head -10
		done
	done
else
	skip "comparison with step mode" "setarch (util-linux) is not installed"
fi

# ---- killed by SIGKILL: what was recorded is kept ----
mkfifo "$TMP/ready"
"$MICAD" run --engine=valgrind --no-db -q -c "$TMP/full.conf" --mica-out "$TMP/killed" \
	-o "$TMP/killed.counts" -- "$ASM/vg_ready" > "$TMP/ready" 2>/dev/null &
m=$!
mkdir -p "$TMP/killed"
read -r line < "$TMP/ready"
is "$line" "ready" "vg_ready: the program started under the engine"
prog=$(pgrep -P "$m" | head -n 1)	# micad's child: valgrind, in the program's process
[ -n "$prog" ] && kill -KILL "$prog"
wait "$m"
is "$?" 137 "vg_ready: SIGKILLed: micad exits 128+9"
e=$(counts_nth "$TMP/killed.counts" 1 | cut -d' ' -f1)
[ -n "$e" ] && [ "$e" -ge 5 ]
ok $? "vg_ready: the instructions recorded before the kill are kept (E=$e >= 5)"
grep -q "killed by signal 9" "$TMP/killed.counts"
ok $? "vg_ready: the thread is reported killed by signal 9"
[ -s "$TMP/killed/itypes_full_int_pin.out" ]
ok $? "vg_ready: its MICA files are written"

# ---- errors ----
"$MICAD" attach --engine=valgrind 1 2>"$TMP/attach.err"
is "$?" 2 "attach --engine=valgrind is a usage error"
grep -q "cannot attach to a running process" "$TMP/attach.err"
ok $? "attach --engine=valgrind: says valgrind cannot attach"
"$MICAD" run --engine=bochs -- "$ASM/loop" 2>"$TMP/bochs.err"
is "$?" 2 "an unknown engine is a usage error"
grep -q "'bochs' is not an engine (ptrace or valgrind)" "$TMP/bochs.err"
ok $? "an unknown engine: the engines are named"
vg -- "$TMP/no-such-program" 2>"$TMP/noexec.err"
is "$?" 127 "a program that cannot run: exit 127"
grep -q "cannot run '$TMP/no-such-program': No such file or directory" "$TMP/noexec.err"
ok $? "a program that cannot run: the reason is given"
MICAD_VALGRIND_LIB="$TMP" vg -- "$ASM/loop" 2>"$TMP/nolib.err"
is "$?" 127 "no tool in MICAD_VALGRIND_LIB: exit 127"
grep -q "$TMP must hold micadvg-amd64-linux" "$TMP/nolib.err"
ok $? "no tool in MICAD_VALGRIND_LIB: the directory and the files it needs are named"

done_testing
