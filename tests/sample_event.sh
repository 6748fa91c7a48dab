#!/bin/sh
# Sample mode's event selection on this machine: the note (micad's first
# line on stderr, and the first record), the fallback to cpu-clock where
# there is no hardware PMU, explicit events that cannot be opened are
# errors (never a silent fallback), unknown names, rates, option checks,
# and perf_event_paranoid's message.
. "$top_srcdir/tests/tracer_lib.sh"
. "$top_srcdir/tests/sample_lib.sh"

TRUE=$(command -v true)

# The default: cycles where a PMU is, else cpu-clock with the reason.
"$MICAD" run -q --sample --no-db --dump-events "$TMP/d.txt" -- "$TRUE" 2>"$TMP/e.txt"
is "$?" 0 "default event: runs"
first=$(head -n 1 "$TMP/e.txt")
if have_pmu; then
	case "$first" in
	"micad: sampling cycles"*) ok 0 "default event with a PMU: cycles" ;;
	*) ok 1 "default event with a PMU: cycles (got '$first')" ;;
	esac
	skip "no PMU: the note names ENOENT and cpu-clock" "this machine has a PMU"
	skip "no PMU: the note record" "this machine has a PMU"
else
	is "$first" "micad: no hardware PMU here (perf_event_open of PERF_TYPE_HARDWARE: ENOENT); sampling cpu-clock at 999 Hz, bursts by ptrace placed by time (time-weighted estimates)" \
		"no PMU: the first line says why, the event, the rate and the weighting"
	is "$(grep '^note ' "$TMP/d.txt")" "note 2 cpu-clock no hardware PMU here (perf_event_open of PERF_TYPE_HARDWARE: ENOENT); sampling cpu-clock at 999 Hz, bursts by ptrace placed by time (time-weighted estimates)" \
		"no PMU: the note record (weighting 2, time) carries the same"
	is "$(grep -n . "$TMP/d.txt" | head -n 1 | cut -d: -f1,2 | cut -c1-6)" "1:note" \
		"the note is the first record"
fi

"$MICAD" run -q --sample --no-bursts --no-db -- "$TRUE" 2>"$TMP/e.txt"
case "$(head -n 1 "$TMP/e.txt")" in
*", profile only (--no-bursts)") ok 0 "--no-bursts: the note says profile only" ;;
*) ok 1 "--no-bursts: the note says profile only"; head -n 1 "$TMP/e.txt" ;;
esac

# Explicit events, rates.
"$MICAD" run -q --sample -e task-clock -F 500 --no-db -- "$TRUE" 2>"$TMP/e.txt"
is "$?" 0 "-e task-clock -F 500: runs"
is "$(head -n 1 "$TMP/e.txt")" "micad: sampling task-clock at 500 Hz, bursts by ptrace placed by time (time-weighted estimates)" \
	"-e task-clock -F 500: the note says so (no fallback reason)"
"$MICAD" run -q --sample -e cpu-clock --count 2000000 --no-db -- "$TRUE" 2>"$TMP/e.txt"
is "$(head -n 1 "$TMP/e.txt")" "micad: sampling cpu-clock every 2000000 ns, bursts by ptrace placed by time (time-weighted estimates)" \
	"--count: a period in ns of cpu-clock"

# An explicit hardware event that cannot be opened is an error here.
if have_pmu; then
	skip "-e cycles without a PMU: an error" "this machine has a PMU"
	skip "-e cycles without a PMU: says why and what to use" "this machine has a PMU"
	skip "-e cycles without a PMU: the program never ran" "this machine has a PMU"
else
	"$MICAD" run -q --sample -e cycles --no-db -- sh -c 'echo ran > "$1"' sh "$TMP/ran" \
		2>"$TMP/e.txt"
	is "$?" 127 "-e cycles without a PMU: an error (exit 127, as a program that cannot start)"
	is "$(cat "$TMP/e.txt")" "micad: cannot open event 'cycles': No such file or directory (ENOENT): the kernel has no such PMU or event here; this machine has no hardware PMU (/sys/bus/event_source/devices has no 'cpu': a virtual machine without a vPMU?): use a software event, -e cpu-clock" \
		"-e cycles without a PMU: says why and what to use"
	[ ! -e "$TMP/ran" ]
	ok $? "-e cycles without a PMU: the program never ran"
fi
"$MICAD" run -q --sample -e NO_SUCH_EVENT --no-db -- "$TRUE" 2>"$TMP/e.txt"
is "$?" 127 "unknown event: an error"
grep -q "^micad: -e NO_SUCH_EVENT: unknown event 'NO_SUCH_EVENT': neither a perf name" "$TMP/e.txt"
ok $? "unknown event: says libpfm4 does not know it"
if [ -e /sys/bus/event_source/devices/ibs_op ]; then
	skip "-e ibs_op without IBS: an error" "this machine has IBS"
else
	"$MICAD" run -q --sample -e ibs_op --no-db -- "$TRUE" 2>"$TMP/e.txt"
	grep -q "^micad: -e ibs_op: this machine has no 'ibs_op' PMU (/sys/bus/event_source/devices/ibs_op/type: No such file or directory): AMD IBS needs" "$TMP/e.txt"
	ok $? "-e ibs_op without IBS: an error naming the sysfs file"
fi
"$MICAD" run -q --sample -e cpu-clock -F 1000000 --no-db -- "$TRUE" 2>"$TMP/e.txt"
is "$?" 2 "-F above 100000: a usage error"

# Sample options need --sample; values are checked.
"$MICAD" run -q --burst 10 --no-db -- "$TRUE" 2>"$TMP/e.txt"
is "$?" 2 "--burst without --sample: a usage error"
is "$(cat "$TMP/e.txt")" "micad: --burst is an option of sample mode: add --sample" \
	"--burst without --sample: says so"
"$MICAD" run -q --sample --record "$TMP/s.trace" --no-db -- "$TRUE" 2>"$TMP/e.txt"
is "$?" 2 "--record with --sample: a usage error"
grep -q "^micad: --record is for exact runs: .*drop --sample to record" "$TMP/e.txt" && ! test -e "$TMP/s.trace"
ok $? "--record with --sample: says why and what to do, writes no file"
"$MICAD" run -q --sample --burst 0,5 --no-db -- "$TRUE" 2>"$TMP/e.txt"
grep -q "^micad: --burst: '0,5' is not U\[,W\]" "$TMP/e.txt"
ok $? "--burst 0,5: refused"
"$MICAD" run -q --sample --call-graph lbr --no-db -- "$TRUE" 2>"$TMP/e.txt"
grep -q "^micad: --call-graph: 'lbr' is not fp, dwarf or dwarf,BYTES" "$TMP/e.txt"
ok $? "--call-graph lbr: refused"
"$MICAD" run -q --sample --overhead 0 --no-db -- "$TRUE" 2>"$TMP/e.txt"
grep -q "^micad: --overhead: '0' is not a percentage" "$TMP/e.txt"
ok $? "--overhead 0: refused"

# perf_event_paranoid: an unprivileged user asking for kernel samples.
# Root passes every level, so the checks run micad as nobody.
P=/proc/sys/kernel/perf_event_paranoid
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null || ! [ -w "$P" ]; then
	skip "paranoid 2: EACCES explained" "needs root, setpriv and a writable $P"
	skip "paranoid 3: the level in the message" "needs root, setpriv and a writable $P"
else
	old=$(cat "$P")
	nobody=$(id -u nobody)
	for level in 2 3; do
		echo "$level" > "$P"
		setpriv --reuid="$nobody" --regid="$nobody" --clear-groups \
			"$MICAD" run -q --sample -e cpu-clock:k --no-db -- "$TRUE" 2>"$TMP/p.txt"
		rc=$?
		if [ "$rc" -eq 127 ] && grep -q "^micad: cannot open event 'cpu-clock:k': Permission denied (EACCES): access to performance monitoring is limited" "$TMP/p.txt" &&
		   grep -qx "perf_event_paranoid setting is $level:" "$TMP/p.txt" &&
		   grep -qx ">= 2: Disallow kernel profiling" "$TMP/p.txt" &&
		   grep -q "^Lower it (as root: sysctl -w kernel.perf_event_paranoid=1), or sample user space only" "$TMP/p.txt"; then
			ok 0 "paranoid $level: EACCES explained with the level and what each forbids"
		else
			ok 1 "paranoid $level: EACCES explained with the level and what each forbids"
			sed 's/^/#   /' "$TMP/p.txt"
		fi
	done
	echo "$old" > "$P"
	is "$(cat "$P")" "$old" "perf_event_paranoid restored"
fi

done_testing
