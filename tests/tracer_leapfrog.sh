#!/bin/sh
# Leapfrog stepping (--step=leapfrog: int3 on the successor + PTRACE_CONT)
# against trap-flag stepping (--step=tf): every program of tests/asm and
# the static C program give the same events (--dump-events), the same
# counts and exit status, and the same MICA files, both ways.
#
# Among them, one program for each case leapfrog must single-step:
# one-instruction loops (selfloop), code that writes or reads the byte
# where the int3 would go (selfmod), the program's own int3 (int3, caught
# and, with an argument, fatal).  Each program's exit status is also the
# one it has when run alone.  A run that does not end within
# $MICAD_TEST_TIMEOUT seconds (default 600) fails.
#
# Runs are made under 'setarch -R' (no address randomization) so stack
# addresses match between the two runs.  Thread ids differ from run to run
# and threads interleave differently: each event stream is compared per
# thread, with threads numbered in order of appearance.
. "$top_srcdir/tests/tracer_lib.sh"

if ! setarch "$(uname -m)" -R true 2>/dev/null; then
	skip "leapfrog vs TF" "setarch -R (no ASLR) unavailable"
	done_testing
fi
norun() { setarch "$(uname -m)" -R "$@"; }

# normalize DUMP: per-thread streams, tids renumbered by first appearance.
normalize() {
	awk '!($1 in n) { n[$1] = ++k } { $1 = n[$1]; print }' "$1" | sort -s -n -k1,1
}
# counts with pid/tid renumbered the same way.
norm_counts() {
	awk '{ for (i = 1; i <= NF; i++) if (($i == "pid" || $i == "tid") && i < NF) {
		v = $(i + 1); sub(/:$/, "", v); if (!(v in n)) n[v] = ++k
		$(i + 1) = n[v] ($(i + 1) ~ /:$/ ? ":" : "") } print }' "$1"
}

printf 'analysis_type: all\ninterval_size: 200\n' > "$TMP/mica.conf"

limit=${MICAD_TEST_TIMEOUT:-600}

# name  mica  args  (programs with one thread also compare MICA files)
while read -r prog_name mica args; do
	case $prog_name in
	static_prog) prog="$top_builddir/tests/cprog/static_prog" ;;
	*) prog="$ASM/$prog_name" ;;
	esac
	name=$prog_name${args:+-$args}
	# shellcheck disable=SC2086
	norun "$prog" $args >/dev/null 2>&1
	alone=$?
	for m in tf leapfrog; do
		mkdir -p "$TMP/$name.$m.mica"
		if [ "$mica" = yes ]; then mo="-c $TMP/mica.conf --mica-out $TMP/$name.$m.mica"; else mo=; fi
		# shellcheck disable=SC2086
		norun timeout "$limit" "$MICAD" run --step=$m $mo -o "$TMP/$name.$m.counts" \
			--dump-events "$TMP/$name.$m.dump" -- "$prog" $args \
			> "$TMP/$name.$m.out" 2> "$TMP/$name.$m.err"
		echo $? > "$TMP/$name.$m.rc"
	done
	is "$(cat "$TMP/$name.leapfrog.rc")" "$(cat "$TMP/$name.tf.rc")" "$name: same exit status both ways"
	is "$(cat "$TMP/$name.tf.rc")" "$alone" "$name: the exit status it has when run alone ($alone)"
	cmp -s "$TMP/$name.tf.out" "$TMP/$name.leapfrog.out"
	ok $? "$name: same output both ways"
	normalize "$TMP/$name.tf.dump" > "$TMP/$name.tf.norm"
	normalize "$TMP/$name.leapfrog.dump" > "$TMP/$name.leapfrog.norm"
	cmp -s "$TMP/$name.tf.norm" "$TMP/$name.leapfrog.norm" && [ -s "$TMP/$name.tf.norm" ]
	ok $? "$name: identical events ($(wc -l < "$TMP/$name.tf.norm" | tr -d ' ')) with leapfrog and TF"
	diff "$TMP/$name.tf.norm" "$TMP/$name.leapfrog.norm" | head -5 | sed 's/^/# /'
	is "$(norm_counts "$TMP/$name.leapfrog.counts")" "$(norm_counts "$TMP/$name.tf.counts")" \
		"$name: same counts both ways"
	if [ "$mica" = yes ]; then
		diff -r "$TMP/$name.tf.mica" "$TMP/$name.leapfrog.mica" > /dev/null &&
			[ -n "$(ls "$TMP/$name.tf.mica")" ]
		ok $? "$name: identical MICA files ($(ls "$TMP/$name.tf.mica" | wc -l | tr -d ' ') files)"
	fi
	leaps=$(sed -n 's/.*leapfrog (\([0-9]*\) leaps).*/\1/p' "$TMP/$name.leapfrog.err")
	echo "# $name: $leaps of $(wc -l < "$TMP/$name.tf.norm" | tr -d ' ') steps by leapfrog"
done <<'LIST'
loop yes
rep yes
calls yes
branches yes
memops yes
signals yes
threads no
forkexec no
static_prog yes
selfloop yes
selfmod yes
int3 yes
int3 no x
LIST

# With --follow-forks: the child's image is traced too (leapfrog per process).
for m in tf leapfrog; do
	norun timeout "$limit" "$MICAD" run -q --step=$m --follow-forks -o "$TMP/ff.$m.counts" \
		--dump-events "$TMP/ff.$m.dump" -- "$ASM/forkexec" "$ASM/branches"
	echo $? > "$TMP/ff.$m.rc"
done
is "$(cat "$TMP/ff.leapfrog.rc")" 5 "forkexec --follow-forks, leapfrog: exit status"
normalize "$TMP/ff.tf.dump" > "$TMP/ff.tf.norm"
normalize "$TMP/ff.leapfrog.dump" > "$TMP/ff.leapfrog.norm"
cmp -s "$TMP/ff.tf.norm" "$TMP/ff.leapfrog.norm"
ok $? "forkexec --follow-forks: identical events both ways"

# Leapfrog does the stepping where it can: the static C program runs
# almost entirely by int3 (REP and syscalls are single-stepped).
leaps=$(sed -n 's/.*leapfrog (\([0-9]*\) leaps).*/\1/p' "$TMP/static_prog.leapfrog.err")
steps=$(wc -l < "$TMP/static_prog.tf.norm" | tr -d ' ')
[ -n "$leaps" ] && [ $((leaps * 100)) -ge $((steps * 95)) ]
ok $? "static_prog: at least 95% of the steps by leapfrog ($leaps of $steps)"

# Detach in the middle of leapfrog stepping: the int3 comes out and the
# target finishes as if nothing happened (a stray int3 would kill it by
# SIGTRAP).  The spinner with an argument spins until SIGUSR1; micad is
# asked to detach once its progress line shows instructions stepped.
"$ASM/spinner" until-usr1 > "$TMP/sp.out" &
target=$!
wait_until 120 "the spinner to say it is ready" in_file ready "$TMP/sp.out"
"$MICAD" attach --step=leapfrog -o "$TMP/sp.counts" "$target" 2>"$TMP/sp.err" &
m=$!
wait_until 300 "micad to show instructions stepped" in_file "micad: [1-9][0-9]* instructions" "$TMP/sp.err"
kill -INT "$m"
wait "$m"
is "$?" 0 "attach + detach while leapfrogging: micad exits 0"
kill -USR1 "$target"
wait "$target"
is "$?" 7 "the target exits with its own status after the detach"
is "$(cat "$TMP/sp.out")" "ready
done" "the target's output is intact"
grep -q "tid $target: [1-9][0-9]* instructions (E).*detached" "$TMP/sp.counts"
ok $? "instructions were traced before the detach"

# The option.
"$MICAD" run -q --step=bogus -- "$ASM/loop" 2> "$TMP/bogus.err"
is "$?" 2 "--step=bogus is a usage error"
grep -q "not a step mode" "$TMP/bogus.err"
ok $? "--step=bogus says why"
done_testing
