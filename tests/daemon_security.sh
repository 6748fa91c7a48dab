#!/bin/sh
# The system daemon against two unprivileged users (issue 17): each probe
# that once made a root micad read root's files, trace what the kernel
# forbids, run setuid programs as root, signal root's processes, hang for
# everyone, or talk to an impostor, is tried here and must fail the way
# strace and the kernel fail.
. "$top_srcdir/tests/tracer_lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null ||
   ! command -v python3 >/dev/null || ! command -v sqlite3 >/dev/null; then
	skip "unprivileged-user security probes" "needs root, useradd, setpriv, python3, sqlite3"
	done_testing
fi

ua="micsa$$"
ub="micsb$$"
useradd --no-create-home --shell /usr/sbin/nologin "$ua" &&
	useradd --no-create-home --shell /usr/sbin/nologin "$ub" || {
	userdel "$ua" 2>/dev/null
	skip "unprivileged-user security probes" "useradd failed"
	done_testing
}
uida=$(id -u "$ua"); gida=$(id -g "$ua")
uidb=$(id -u "$ub"); gidb=$(id -g "$ub")
daemon=
bgpids=
cleanup() {
	[ -n "$bgpids" ] && kill $bgpids 2>/dev/null
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	pkill -u "$uida" 2>/dev/null; pkill -u "$uidb" 2>/dev/null
	rm -rf "/tmp/micad-$uida" "/tmp/micad-$uidb"
	for d in /sys/fs/cgroup/memory/micadt$$ /sys/fs/cgroup/unified/micadt$$ \
		 /sys/fs/cgroup/micadt$$; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	userdel "$ua" 2>/dev/null; userdel "$ub" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

CTL="$top_srcdir/tests/ctl_client.py"
# A python every user may run (not root's pyenv shims).
PY=$(command -v /usr/bin/python3 || command -v python3)
chmod 755 "$TMP"
mkdir "$TMP/bin"
cp "$top_builddir/micactl" "$ASM/loop" "$ASM/sleeper" "$top_builddir/tests/cprog/sec_probe" \
	"$CTL" "$TMP/bin/"
chmod -R a+rx "$TMP/bin"
mkdir -m 1777 "$TMP/run"	# the probes' go and done files
SECRET="$TMP/secret"
echo "TOPSECRET-$$-xyzzy" >"$SECRET"
chmod 600 "$SECRET"
SOCK="$TMP/sys/control.sock"
DB="$TMP/sys.db"
export MICAD_SOCKET="$SOCK"
as_a() { setpriv --reuid="$uida" --regid="$gida" --init-groups "$@"; }
as_b() { setpriv --reuid="$uidb" --regid="$gidb" --init-groups "$@"; }
# The same for background commands, whose $! must be the command's own pid
# (a function in the background runs in a subshell of its own).
SPA="setpriv --reuid=$uida --regid=$gida --init-groups"
SPB="setpriv --reuid=$uidb --regid=$gidb --init-groups"
# wait_for SECONDS COMMAND...: tests/wait.sh's wait_until COMMAND; its
# status.  SECONDS is what an idle machine needs: the deadline is ten
# times that, and at least 120 s (a loaded machine is that much slower).
wait_for() {
	_s=$(($1 * 10))
	shift
	[ "$_s" -ge 120 ] || _s=120
	wait_until "$_s" "$*" "$@"
}
# started_as PID UID: PID is sec_probe running as UID (setpriv has exec'd)
started_as() {
	wait_for 10 sh -c "grep -q '^Uid:	$2	' /proc/$1/status &&
		[ \"\$(readlink /proc/$1/exe)\" = '$TMP/bin/sec_probe' ]"
}
# none_running SETPRIV...: none of that user's sessions runs any more (the
# quota of two counts a session until its worker is gone)
none_running() { ! "$@" "$TMP/bin/micactl" list 2>/dev/null | grep -q " running "; }
ms_now() { echo $(($(date +%s%N) / 1000000)); }
# ms_of COMMAND...: how long COMMAND took, in ms (its output discarded)
ms_of() {
	_t0=$(ms_now)
	"$@" >/dev/null 2>&1
	echo $(($(ms_now) - _t0))
}
no_secret() {	# no_secret FILE NAME: the secret's bytes are nowhere in FILE
	! grep -q "TOPSECRET" "$1"
	ok $? "$2"
}

# The daemon: with a hard limit on open files below the users' (their
# programs must get their own limits, not micad's), two sessions per user.
(ulimit -n 512; exec "$MICAD" serve --system --socket "$SOCK" --db "$DB" --no-http \
	--max-sessions-per-user 2) 2>"$TMP/daemon.log" &
daemon=$!
wait_for 10 test -S "$SOCK"
ok $? "the system micad listens"

# ---- 1. Files: the daemon reads none that a client names ----

cd "$TMP" || exit 1
as_a "$PY" "$TMP/bin/ctl_client.py" send "$SOCK" --fds op=run "arg=$TMP/bin/loop" \
	"config_path=$SECRET" >"$TMP/p1a.out" 2>&1
no_secret "$TMP/p1a.out" "config_path of a root-only file: not read (no bytes in the reply)"
is "$(sqlite3 "$DB" "SELECT count(*) FROM session WHERE config LIKE '%TOPSECRET%'")" 0 \
	"config_path: and none in the session's config column"
grep -q "op=end" "$TMP/p1a.out"
ok $? "config_path without the text: the session runs with the default configuration"

printf 'analysis_type: itypes\nitypes_spec_file: %s\n' "$SECRET" >"$TMP/p1b.conf"
as_a "$PY" "$TMP/bin/ctl_client.py" send "$SOCK" --fds op=run "arg=$TMP/bin/loop" \
	"config_path=$TMP/p1b.conf" "config=$(cat "$TMP/p1b.conf")" >"$TMP/p1b.out" 2>&1
grep -q "was not sent with the configuration" "$TMP/p1b.out"
ok $? "itypes_spec_file the client did not send: refused, said why"
no_secret "$TMP/p1b.out" "itypes_spec_file of a root-only file: no bytes in the reply"
is "$(sqlite3 "$DB" "SELECT count(*) FROM itypes_group WHERE name LIKE '%TOPSECRET%'")" 0 \
	"itypes_spec_file: no group named after the secret"

as_a "$TMP/bin/micactl" run -q -c "$TMP/p1b.conf" -- "$TMP/bin/loop" >"$TMP/p1c.out" 2>&1
is "$?" 127 "micactl run -c naming a spec file the user cannot read fails"
grep -q "Permission denied" "$TMP/p1c.out"
ok $? "and says the user may not read it"
no_secret "$TMP/p1c.out" "and shows none of its bytes"

mkfifo "$TMP/fifo"
for spec in /dev/zero "$TMP/fifo"; do
	printf 'analysis_type: itypes\nitypes_spec_file: %s\n' "$spec" >"$TMP/p1d.conf"
	chmod 644 "$TMP/p1d.conf"
	t=$(ms_of as_a timeout 20 "$TMP/bin/micactl" run -q -c "$TMP/p1d.conf" -- "$TMP/bin/loop")
	as_a timeout 20 "$TMP/bin/micactl" run -q -c "$TMP/p1d.conf" -- "$TMP/bin/loop" \
		>"$TMP/p1d.out" 2>&1
	grep -q "not a regular file" "$TMP/p1d.out"
	ok $? "itypes_spec_file $spec: refused as not a regular file"
	[ "$t" -lt 10000 ]
	ok $? "itypes_spec_file $spec: refused at once (${t} ms), nothing waits or grows"
done

# A relative spec file resolves from the configuration's directory, read
# by micactl as the user, also under a root daemon.
mkdir "$TMP/ua" && chown "$uida:$gida" "$TMP/ua"
as_a sh -c "printf '0, 0, SPECIAL, mem_read\n1, 0, CATEGORY, BINARY\n' >'$TMP/ua/my.spec'; printf 'analysis_type: itypes\nitypes_spec_file: my.spec\n' >'$TMP/ua/mica.conf'"
as_a "$TMP/bin/micactl" run -c "$TMP/ua/mica.conf" -- "$TMP/bin/loop" 2>"$TMP/p1e.err"
is "$?" 0 "a relative itypes_spec_file works under a root daemon"
s=$(sed -n 's/^micactl: session \([0-9]*\), pid .*/\1/p' "$TMP/p1e.err")
is "$(sqlite3 "$DB" "SELECT group_concat(name, ',') FROM (SELECT name FROM itypes_group WHERE session_id = ${s:-0} ORDER BY grp)")" \
	"mem_read,BINARY,other" "and its groups are the ones in the user's spec file"

# ---- 2. The kernel's rules, as for strace -p ----

$SPA "$TMP/bin/sec_probe" nodump "$TMP/run/nodump.go" &
nd=$!
bgpids="$bgpids $nd"
started_as "$nd" "$uida"
wait_for 10 sh -c "[ \"\$(stat -c %u /proc/$nd/status)\" = 0 ]"
ok $? "the probe made itself not dumpable (/proc/PID/status belongs to root)"
as_a timeout 10 strace -p "$nd" -o /dev/null >/dev/null 2>"$TMP/strace1.err"
grep -q "Operation not permitted" "$TMP/strace1.err"
strace_refused=$?
as_a "$TMP/bin/micactl" attach "$nd" 2>"$TMP/p2a.err"
r=$?
sed 's/^/# /' "$TMP/p2a.err"
if [ "$strace_refused" -eq 0 ]; then
	[ "$r" -ne 0 ]
	ok $? "attach to a non-dumpable process is refused, as strace -p is"
	grep -q "not dumpable" "$TMP/p2a.err"
	ok $? "and says the process is not dumpable"
else
	skip "attach to a non-dumpable process" "strace -p was not refused here"
	skip "non-dumpable: the message" "strace -p was not refused here"
fi
is "$(sed -n 's/^TracerPid:\t//p' "/proc/$nd/status")" 0 "the non-dumpable process is not traced"
touch "$TMP/run/nodump.go"
wait "$nd"
is "$?" 0 "and ends normally"

setpriv --reuid="$uida" --regid="$gida" --init-groups --inh-caps=+net_bind_service \
	--ambient-caps=+net_bind_service "$TMP/bin/sec_probe" wait "$TMP/run/caps.go" &
cp=$!
bgpids="$bgpids $cp"
started_as "$cp" "$uida"
wait_for 10 grep -q "^CapPrm:.*[1-9a-f]" "/proc/$cp/status"
if grep -q "^CapPrm:.*[1-9a-f]" "/proc/$cp/status" 2>/dev/null; then
	as_a timeout 10 strace -p "$cp" -o /dev/null >/dev/null 2>"$TMP/strace2.err"
	grep -q "Operation not permitted" "$TMP/strace2.err"
	ok $? "strace -p of a process holding a capability is refused (the reference)"
	as_a "$TMP/bin/micactl" attach "$cp" 2>"$TMP/p2b.err"
	[ "$?" -ne 0 ]
	ok $? "micactl attach to it is refused too"
	grep -q "holds capabilities you do not" "$TMP/p2b.err"
	r=$?
	ok $r "and says it holds capabilities the user lacks"
	[ $r -eq 0 ] || sed 's/^/# /' "$TMP/p2b.err"
	is "$(sed -n 's/^TracerPid:\t//p' "/proc/$cp/status")" 0 "the capable process is not traced"
else
	for n in 1 2 3 4; do skip "capability-holding process probe $n" "setpriv could not give it a capability"; done
fi
touch "$TMP/run/caps.go"
wait "$cp"

cp "$TMP/bin/sec_probe" "$TMP/bin/suid_probe"
chown root:root "$TMP/bin/suid_probe"
chmod 4755 "$TMP/bin/suid_probe"
direct=$(as_a "$TMP/bin/suid_probe" euid "$SECRET")
if [ "$direct" = "euid=0 read=yes" ]; then
	out=$(as_a "$TMP/bin/micactl" run -q -- "$TMP/bin/suid_probe" euid "$SECRET" 2>"$TMP/p2c.err")
	is "$out" "euid=$uida read=no" "a setuid-root program run by a user runs with the user's euid"
	out=$(as_a "$TMP/bin/micactl" run -q -- /bin/sh -c "exec $TMP/bin/suid_probe euid $SECRET" \
		2>>"$TMP/p2c.err")
	is "$out" "euid=$uida read=no" "and so when a traced program execs it"
	out=$(as_a strace -f -o /dev/null "$TMP/bin/suid_probe" euid "$SECRET" 2>/dev/null)
	is "$out" "euid=$uida read=no" "(as under strace, the reference)"
else
	for n in 1 2 3; do skip "setuid probe $n" "setuid bits do not work here ($direct)"; done
fi

# ---- 3. A pid reused between the request and the attach ----
#
# The worker waits on the database (root holds a write lock), meanwhile the
# user's process dies and a process takes its pid (ns_last_pid); then the
# worker goes on.  The process that took the pid is left untouched: root's
# because the tracer has the user's credentials, the user's own because the
# pidfd taken at the request no longer matches.

# lock_db: hold a write lock on $DB until $TMP/unlock exists
lock_db() {
	rm -f "$TMP/unlock" "$TMP/locked"
	python3 -c "
import os, sqlite3, time
c = sqlite3.connect('$DB', timeout=30, isolation_level=None)
c.execute('BEGIN EXCLUSIVE')
open('$TMP/locked', 'w').close()
for i in range(600):
    if os.path.exists('$TMP/unlock'):
        break
    time.sleep(0.05)
c.execute('ROLLBACK')
" &
	locker=$!
	wait_for 20 test -e "$TMP/locked"
}
# reuse_pid PID OWNER...: start 'sec_probe wait $TMP/run/reuse.go' as OWNER (a
# setpriv prefix, or nothing for root) with pid PID; its pid, or nothing
reuse_pid() {
	_want=$1; shift
	for _try in 1 2 3 4 5 6 7 8 9 10; do
		echo $((_want - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null || return
		"$@" "$TMP/bin/sec_probe" wait "$TMP/run/reuse.go" >/dev/null 2>&1 &
		_p=$!
		[ "$_p" = "$_want" ] && { echo "$_p"; return; }
		kill "$_p" 2>/dev/null; wait "$_p" 2>/dev/null
	done
}

for owner in root user; do
	wait_for 30 none_running $SPA
	rm -f "$TMP/run/victim.go"* "$TMP/run/reuse.go"*
	$SPA "$TMP/bin/sec_probe" wait "$TMP/run/victim.go" &
	victim=$!
	started_as "$victim" "$uida"
	lock_db
	$SPA "$TMP/bin/micactl" attach -b "$victim" >/dev/null 2>"$TMP/race.err" &
	att=$!
	wait_for 20 grep -q "attach pid $victim (worker" "$TMP/daemon.log"
	kill -KILL "$victim"
	wait "$victim" 2>/dev/null
	if [ "$owner" = root ]; then
		taker=$(reuse_pid "$victim")
		[ -n "$taker" ] && started_as "$taker" 0
	else
		taker=$(reuse_pid "$victim" setpriv --reuid="$uida" --regid="$gida" --init-groups)
		[ -n "$taker" ] && started_as "$taker" "$uida"
	fi
	touch "$TMP/unlock"
	wait "$locker"
	if [ -z "$taker" ]; then
		wait "$att"
		skip "pid reuse by a $owner process" "could not give pid $victim to a new process"
		skip "pid reuse by a $owner process: untouched" "no pid reuse"
		skip "pid reuse by a $owner process: ends normally" "no pid reuse"
		continue
	fi
	wait "$att"
	is "$?" 1 "pid $victim reused by a $owner process before the attach: micactl attach fails"
	is "$(sed -n 's/^TracerPid:\t//p' "/proc/$taker/status")" 0 \
		"the $owner process that took pid $victim is not traced"
	touch "$TMP/run/reuse.go"
	wait_for 20 test -e "$TMP/run/reuse.go.done"
	ok $? "the $owner process that took pid $victim ends by itself, unharmed"
	sed 's/^/# /' "$TMP/race.err"
done
grep -q "the process you named has exited" "$TMP/race.err"
ok $? "a pid reused by the user's own process: the pidfd check refuses it, and says why"

# ---- 4. Impostors: micactl trusts no socket another user could own ----

as_b mkdir -m 0777 "/tmp/micad-$uida"
$SPB "$PY" "$TMP/bin/ctl_client.py" fake-server "/tmp/micad-$uida/control.sock" \
	"/tmp/micad-$uida/stolen" >/dev/null 2>&1 &
fake=$!
bgpids="$bgpids $fake"
wait_for 10 test -S "/tmp/micad-$uida/control.sock"
as_b ln -s "$TMP/ua/victim" "/tmp/micad-$uida/control.sock.log"
as_a sh -c "echo mine >'$TMP/ua/victim'"
(cd "$TMP/ua" && as_a env -u XDG_RUNTIME_DIR -u MICAD_SOCKET SECRET_TOKEN=hunter2 \
	"$TMP/bin/micactl" run -- /bin/true) 2>"$TMP/p4a.err"
[ "$?" -ne 0 ]
ok $? "a socket directory planted by another user: micactl refuses it"
grep -q "belongs to uid $uidb, not to you" "$TMP/p4a.err"
ok $? "and says whose it is"
[ ! -s "/tmp/micad-$uida/stolen" ]
ok $? "the impostor received nothing (no environment, no fds)"
is "$(cat "$TMP/ua/victim")" "mine" "auto-start wrote no log through the planted link"
kill "$fake" 2>/dev/null
rm -rf "/tmp/micad-$uida"

mkdir -m 0755 "$TMP/fk"
"$PY" "$TMP/bin/ctl_client.py" fake-server "$TMP/fk/control.sock" "$TMP/fk/stolen" \
	"$uidb:$gidb" >/dev/null 2>&1 &
fake=$!
bgpids="$bgpids $fake"
wait_for 10 test -S "$TMP/fk/control.sock"
MICAD_SOCKET="$TMP/fk/control.sock" as_a "$TMP/bin/micactl" run -- /bin/true 2>"$TMP/p4b.err"
[ "$?" -ne 0 ]
ok $? "a daemon running as another user: micactl refuses it"
grep -q "it runs as uid $uidb, neither root nor you" "$TMP/p4b.err"
ok $? "and says the server's uid"
[ ! -s "$TMP/fk/stolen" ]
ok $? "that server received nothing"
kill "$fake" 2>/dev/null

# ---- 5. Nobody can hang the daemon for the others ----

list_ms() { ms_of as_b timeout 30 "$TMP/bin/micactl" list; }
wait_for 30 none_running $SPA
big=$(head -c 100000 /dev/zero | tr '\0' x)
(cd "$TMP" && for i in 0 1 2 3 4 5 6 7 8 9; do export "BIG$i=$big"; done &&
	as_a timeout 60 "$TMP/bin/micactl" run -q -- /bin/true) 2>"$TMP/p5a.err"
r=$?
is "$r" 0 "a 1 MB request (a large environment) runs"
[ $r -eq 0 ] || sed 's/^/# /' "$TMP/p5a.err"
t=$(list_ms)
[ "$t" -lt 2000 ]
ok $? "after it, another user's micactl list answers in ${t} ms (< 2 s)"

$SPA "$PY" "$TMP/bin/ctl_client.py" drip "$SOCK" 30 >"$TMP/drip.out" &
drip=$!
bgpids="$bgpids $drip"
wait_for 10 grep -q connected "$TMP/drip.out"
t=$(list_ms)
[ "$t" -lt 2000 ]
ok $? "while a client drips its request, another user's list answers in ${t} ms"
wait_for 20 grep -q "dropped by the daemon" "$TMP/drip.out"
ok $? "and the dripping client is dropped at the request deadline"
wait "$drip" 2>/dev/null

sqlite3 "$DB" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
	INSERT INTO session (mode, command, uid, config, settings, started_at, end_reason)
	SELECT 'run', printf('%0300d', i), $uida, '', '{}', 1.0, 'exited' FROM n"
$SPA "$PY" "$TMP/bin/ctl_client.py" noread "$SOCK" 30 >"$TMP/noread.out" &
noread=$!
bgpids="$bgpids $noread"
wait_for 10 grep -q sent "$TMP/noread.out"
t=$(list_ms)
[ "$t" -lt 2000 ]
ok $? "while a client never reads its 6 MB list, another user's list answers in ${t} ms"
kill "$noread" 2>/dev/null

rm -f "$TMP/run/q"*
wait_for 30 none_running $SPA
for q in 1 2; do
	$SPA "$TMP/bin/sec_probe" wait "$TMP/run/q$q.go" &
	eval "qp$q=\$!"
	eval "started_as \$qp$q $uida"
done
bgpids="$bgpids $qp1 $qp2"
as_a "$TMP/bin/micactl" attach -b "$qp1" 2>/dev/null &&
	as_a "$TMP/bin/micactl" attach -b "$qp2" 2>/dev/null
ok $? "a user runs two sessions (the --max-sessions-per-user of this daemon)"
$SPA "$TMP/bin/sec_probe" wait "$TMP/run/q3.go" &
qp3=$!
bgpids="$bgpids $qp3"
started_as "$qp3" "$uida"
as_a "$TMP/bin/micactl" attach -b "$qp3" 2>"$TMP/quota.err"
[ "$?" -ne 0 ]
ok $? "a third session of that user is refused"
grep -q "have 2 sessions running, the most this micad allows one user" "$TMP/quota.err"
ok $? "and the refusal says the quota"
out=$(cd "$TMP" && as_b "$TMP/bin/micactl" run -q -- /bin/echo other-user-ran 2>/dev/null)
is "$out" "other-user-ran" "meanwhile the other user still gets a session"
touch "$TMP/run/q1.go" "$TMP/run/q2.go" "$TMP/run/q3.go"
wait_for 30 none_running $SPA
ok $? "the user's sessions end with their programs"

# ---- 6. The client's limits and control group ----

out=$(cd "$TMP" && as_a sh -c "ulimit -n 77; ulimit -t 777; exec '$TMP/bin/micactl' run -q -- /bin/sh -c 'echo \$(ulimit -n) \$(ulimit -t)'" 2>/dev/null)
is "$out" "77 777" "a program run through micad gets the client's lowered limits (ulimit -n, -t)"
out=$(cd "$TMP" && as_a sh -c "ulimit -n 400; exec '$TMP/bin/micactl' run -q -- /bin/sh -c 'ulimit -Hn'" 2>"$TMP/lim400.err")
is "$out" 400 "a client hard limit below micad's (512) is the program's"
[ "$out" = 400 ] || sed 's/^/# /' "$TMP/lim400.err"
# Above micad's: given where root may raise a hard limit (CAP_SYS_RESOURCE
# in the bounding set), else micad's (never more than the client's), said.
want=$(as_a sh -c 'echo $(ulimit -n) $(ulimit -Hn)')
out=$(cd "$TMP" && as_a "$TMP/bin/micactl" run -q -- /bin/sh -c 'echo $(ulimit -n) $(ulimit -Hn)' 2>"$TMP/lim.err")
capbnd=$(sed -n 's/^CapBnd:\t//p' /proc/self/status)
if [ $(( 0x$capbnd >> 24 & 1 )) -eq 1 ]; then
	is "$out" "$want" "and the client's open-files limit above micad's 512"
else
	is "$out" "512 512" "no CAP_SYS_RESOURCE here: a client limit above micad's 512 gets 512"
	grep -q "your hard limit of open files (resource 7) is above micad's" "$TMP/lim.err"
	ok $? "and micactl says so"
fi

for h in memory unified; do
	root=/sys/fs/cgroup/$h
	[ "$h" = unified ] && [ ! -d "$root" ] && root=/sys/fs/cgroup
	if ! mkdir "$root/micadt$$" 2>/dev/null; then
		skip "the client's $h cgroup" "cannot create a cgroup in $root"
		continue
	fi
	out=$(cd "$TMP" && sh -c "echo \$\$ >'$root/micadt$$/cgroup.procs' && exec setpriv --reuid=$uida --regid=$gida --init-groups '$TMP/bin/micactl' run -q -- /bin/cat /proc/self/cgroup" 2>"$TMP/cg.err")
	echo "$out" | grep -Eq "^[0-9]+:($h|):/micadt$$\$"
	ok $? "a program run through micad is in the client's $h cgroup"
	[ $? -eq 0 ] || { echo "$out" | sed 's/^/# /'; sed 's/^/# /' "$TMP/cg.err"; }
done

kill -TERM "$daemon"
wait "$daemon"
is "$?" 0 "the system daemon stops cleanly"
daemon=
done_testing
