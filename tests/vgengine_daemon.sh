#!/bin/sh
# The valgrind engine through the daemon (micactl run --engine=valgrind):
# exact counts, the session's engine in the database, every MICA file of
# 'micactl export --format mica' equal to a step-mode session's of the same
# program and configuration (programs without stack accesses: the same
# addresses in both), processes followed across fork and exec, stop (the
# program runs on), attach refused; and, with a real unprivileged user (root, useradd and setpriv
# needed), valgrind runs as the client.
. "$top_srcdir/tests/tracer_lib.sh"
MICACTL="$top_builddir/micactl"
SOCK="$TMP/s/control.sock"
DB="$TMP/results.db"

if ! "$MICAD" run --engine=valgrind --no-db -q -o /dev/null -- "$ASM/loop" 2>"$TMP/avail.err"; then
	if grep -q "built without the valgrind engine" "$TMP/avail.err"; then
		skip "valgrind engine through the daemon" "$(head -n 1 "$TMP/avail.err")"
		done_testing
	fi
	ok 1 "the valgrind engine runs tests/asm/loop"
	sed 's/^/# /' "$TMP/avail.err"
	done_testing
fi

start_daemon() {	# start_daemon [ARGS]: micad serve on $SOCK and $DB
	rm -f "$SOCK"
	"$MICAD" serve --socket "$SOCK" --db "$DB" "$@" 2>>"$TMP/daemon.log" &
	daemon=$!
	i=0
	while [ ! -S "$SOCK" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
session_of() {
	sed -n 's/^micactl: session \([0-9]*\), pid .*/\1/p' "$1" | head -n 1
}
sql() {
	sqlite3 -cmd ".timeout 5000" "$DB" "$1"
}

export MICAD_SOCKET="$SOCK"
start_daemon

"$MICACTL" run --engine=valgrind -- "$ASM/loop" 2>"$TMP/loop.err"
is "$?" 0 "run --engine=valgrind: exit status 0 passed on"
grep -q "^micactl: session [0-9]* ended: 304 instructions traced" "$TMP/loop.err"
ok $? "run --engine=valgrind: 304 instructions in tests/asm/loop, as hand-counted"
s=$(session_of "$TMP/loop.err")
is "$(sql "select engine || ' ' || end_reason || ' ' || exit_status from session where id = $s")" \
	"valgrind exited 0" "run --engine=valgrind: the session records the engine"
is "$(sql "select sum(ins) from interval where session_id = $s")" 304 \
	"run --engine=valgrind: the intervals hold the 304 instructions"

for prog in branches rep vg_rep2; do
	for mode in full 200; do
		d="$TMP/e2e-$prog-$mode"
		mkdir -p "$d/vg" "$d/step"
		printf 'analysis_type: all\ninterval_size: %s\n' "$mode" > "$d/mica.conf"
		for engine in valgrind ptrace; do
			"$MICACTL" run --engine=$engine -c "$d/mica.conf" -- "$ASM/$prog" 2>"$d/$engine.err"
			s=$(session_of "$d/$engine.err")
			out=$d/step
			[ $engine = valgrind ] && out=$d/vg
			"$MICACTL" export "$s" --format mica --db "$DB" -o "$out" 2>>"$d/export.err"
		done
		n=$(ls "$d/step" | wc -l)
		diff -r "$d/step" "$d/vg" > "$d/diff" 2>&1 && [ "$n" -ge 8 ]
		ok $? "$prog ($mode): micactl export of the engine's session equals step mode's $n MICA files"
		sed 's/^/# /' "$d/diff" | head -10
	done
done

"$MICACTL" run --engine=valgrind --follow-forks -- "$ASM/forkexec" "$ASM/branches" 2>"$TMP/fe.err"
is "$?" 5 "forkexec --follow-forks: the exec'd child's exit status"
s=$(session_of "$TMP/fe.err")
is "$(sql "select group_concat(n, ' ') from (select sum(i.ins) as n from interval i join thread t
	on t.session_id = i.session_id and t.tid = i.tid where i.session_id = $s
	group by t.tid order by t.started_at, t.tid)")" "13 67" \
	"forkexec --follow-forks: parent 13 and child 67 instructions (7 + 60 after the exec)"
is "$(sql "select count(distinct pid) from thread where session_id = $s")" 2 \
	"forkexec --follow-forks: two processes"

"$MICACTL" run --engine=valgrind -- "$ASM/threads" 2>"$TMP/thr.err"
s=$(session_of "$TMP/thr.err")
is "$(sql "select group_concat(n, ' ') from (select sum(ins) as n from interval
	where session_id = $s group by tid order by n)")" "113 406" \
	"threads: 113 and 406 instructions per thread"

# stop: micad stops recording, the program runs on (under valgrind) to its
# own end (sleeper goes on until the file it is given exists).
"$MICACTL" run --engine=valgrind -- "$ASM/sleeper" "$TMP/go" > "$TMP/stop.out" 2>"$TMP/stop.err" &
m=$!
i=0
while [ -z "$(session_of "$TMP/stop.err")" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
s=$(session_of "$TMP/stop.err")
"$MICACTL" stop "$s" 2>/dev/null
is "$?" 0 "stop of an engine session: accepted"
i=0
while [ "$(sql "select end_reason from session where id = $s")" = running ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
is "$(sql "select end_reason from session where id = $s")" detached \
	"stop: the session is recorded as detached"
touch "$TMP/go"
wait "$m"
i=0
while [ ! -s "$TMP/stop.out" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
is "$(cat "$TMP/stop.out")" done "stop: the program went on to its own end"

"$MICACTL" attach --engine=valgrind 1 2>"$TMP/attach.err"
is "$?" 2 "attach --engine=valgrind is refused"
grep -q "cannot attach to a running process" "$TMP/attach.err"
ok $? "attach --engine=valgrind: valgrind cannot attach"

"$MICACTL" shutdown > /dev/null 2>&1
wait "$daemon"

# ---- valgrind runs as the client ----
if [ "$(id -u)" -ne 0 ] || ! command -v useradd > /dev/null || ! command -v setpriv > /dev/null; then
	skip "valgrind as the client" "needs root, useradd and setpriv"
	done_testing
fi
user="micadv$$"
if ! useradd --no-create-home --shell /usr/sbin/nologin "$user"; then
	skip "valgrind as the client" "useradd $user failed"
	done_testing
fi
trap 'userdel "$user" 2>/dev/null; rm -rf "$TMP"' EXIT
uid=$(id -u "$user")
gid=$(id -g "$user")
chmod 755 "$TMP"
mkdir "$TMP/bin" "$TMP/vglib"
cp "$top_builddir/micactl" "$ASM/loop" "$TMP/bin/"
cp "$(readlink -f "$top_builddir/daemon/trace/vgtool/micadvg-amd64-linux")" "$TMP/vglib/"
for f in vgpreload_core-amd64-linux.so default.supp; do
	ln -s "$(readlink -f "$top_builddir/daemon/trace/vgtool/$f")" "$TMP/vglib/"
done
chmod -R a+rx "$TMP/bin" "$TMP/vglib"
SOCK="$TMP/sys/control.sock"
DB="$TMP/sys.db"
export MICAD_SOCKET="$SOCK"
MICAD_VALGRIND_LIB="$TMP/vglib" start_daemon --system
as_user() {
	setpriv --reuid="$uid" --regid="$gid" --init-groups "$@"
}
out=$(cd "$TMP" && as_user "$TMP/bin/micactl" run -q --engine=valgrind -- /usr/bin/id -u 2>"$TMP/id.err")
is "$out" "$uid" "--system: the program runs under valgrind with the client's uid ($uid)"
sed 's/^/# /' "$TMP/id.err" | head -5
out=$(cd "$TMP" && as_user "$TMP/bin/micactl" run -q --engine=valgrind -- /usr/bin/id -G 2>/dev/null)
is "$out" "$(id -G "$user")" "--system: and with the client's groups"
(cd "$TMP" && as_user "$TMP/bin/micactl" run --engine=valgrind -- "$TMP/bin/loop" 2>"$TMP/uloop.err")
grep -q "ended: 304 instructions traced" "$TMP/uloop.err"
ok $? "--system: the client's program is characterized (304 instructions)"
is "$(sqlite3 "$DB" "select uid || ' ' || engine from session order by id desc limit 1")" \
	"$uid valgrind" "--system: the session is the client's, engine valgrind"
as_user "$TMP/bin/micactl" shutdown > /dev/null 2>&1
kill "$daemon" 2>/dev/null
wait "$daemon" 2>/dev/null
done_testing
