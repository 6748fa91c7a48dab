#!/bin/sh
# The daemon's security rules with a real unprivileged user: a system micad
# (root) runs programs as the client, refuses to attach to another user's
# process, and lets a user see and stop only their own sessions.
. "$top_srcdir/tests/tracer_lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null; then
	skip "unprivileged-user checks" "needs root, useradd and setpriv"
	done_testing
fi

user="micadt$$"
useradd --no-create-home --shell /usr/sbin/nologin "$user" || {
	skip "unprivileged-user checks" "useradd $user failed"
	done_testing
}
trap 'userdel "$user" 2>/dev/null; rm -rf "$TMP"' EXIT
uid=$(id -u "$user")
gid=$(id -g "$user")

# Everything the user runs must be reachable by them.
chmod 755 "$TMP"
mkdir "$TMP/bin"
cp "$top_builddir/micactl" "$ASM/sleeper" "$ASM/loop" "$TMP/bin/"
chmod -R a+rx "$TMP/bin"
SOCK="$TMP/sys/control.sock"
DB="$TMP/sys.db"
export MICAD_SOCKET="$SOCK"
as_user() {
	setpriv --reuid="$uid" --regid="$gid" --init-groups "$@"
}

"$MICAD" serve --system --socket "$SOCK" --db "$DB" 2>"$TMP/daemon.log" &
daemon=$!
socket_or_dead() { [ -S "$SOCK" ] || ! kill -0 "$daemon" 2>/dev/null; }
wait_until 300 "micad serve --system to listen on $SOCK" socket_or_dead
is "$(stat -c %a "$SOCK")" 666 "--system: every user may connect to the socket"

# run executes as the client.
out=$(cd "$TMP" && as_user "$TMP/bin/micactl" run -q -- /usr/bin/id -u 2>"$TMP/id.err")
is "$out" "$uid" "run: the program runs with the client's uid ($uid), not root's"
out=$(cd "$TMP" && as_user "$TMP/bin/micactl" run -q -- /usr/bin/id -g 2>/dev/null)
is "$out" "$gid" "run: and with the client's gid"
out=$(cd "$TMP" && as_user "$TMP/bin/micactl" run -q -- /usr/bin/id -G 2>/dev/null)
is "$out" "$(id -G "$user")" "run: and with the client's supplementary groups"
is "$(sqlite3 "$DB" "select distinct uid from session")" "$uid" \
	"run: the sessions belong to the client's uid"

# attach to root's process: refused, with the rule.
sleep 60 &
rootproc=$!
as_user "$TMP/bin/micactl" attach "$rootproc" 2>"$TMP/eperm.err"
is "$?" 1 "attach to another user's process is refused"
grep -q "attach $rootproc refused: process $rootproc belongs to uid 0 and you are uid $uid" "$TMP/eperm.err"
ok $? "attach: says whose process it is and the rule"

# attach to the user's own process: allowed.
setpriv --reuid="$uid" --regid="$gid" --init-groups "$TMP/bin/sleeper" "$TMP/bin/own.go" \
	>"$TMP/own.out" &
own=$!
wait_until 120 "the user's sleeper to start" proc_named "$own" sleeper
as_user "$TMP/bin/micactl" attach -q "$own" 2>"$TMP/own.err" &
att=$!
wait_until 300 "micactl attach to trace the user's sleeper" traced_by "$own" '[1-9][0-9]*'
touch "$TMP/bin/own.go"
wait "$att"
is "$?" 0 "attach to one's own process is allowed"
sed 's/^/# /' "$TMP/own.err"
wait "$own"
is "$?" 7 "and the process ends normally"

# Sessions of others: invisible and unstoppable.
"$top_builddir/micactl" attach -b "$rootproc" 2>"$TMP/rootatt.err"
rs=$(sed -n 's/^micactl: session \([0-9]*\), pid .*/\1/p' "$TMP/rootatt.err")
as_user "$TMP/bin/micactl" stop "$rs" 2>"$TMP/stop.err"
is "$?" 1 "stop of another user's session is refused"
grep -q "session $rs belongs to uid 0: you (uid $uid) may stop only your own sessions" "$TMP/stop.err"
ok $? "stop: says whose session it is"
as_user "$TMP/bin/micactl" list >"$TMP/list.out"
grep -q "^ *$rs " "$TMP/list.out"
is "$?" 1 "list: a user does not see root's sessions"
n=$(grep -c "^ *[0-9]" "$TMP/list.out")
is "$n" 4 "list: the user sees their own 4 sessions"
"$top_builddir/micactl" list >"$TMP/rootlist.out"
n=$(grep -c "^ *[0-9]" "$TMP/rootlist.out")
is "$n" 5 "list: root sees every session"
as_user "$TMP/bin/micactl" shutdown 2>"$TMP/shut.err"
is "$?" 1 "shutdown by another user is refused"

kill -TERM "$daemon"
wait "$daemon"
is "$?" 0 "the system daemon stops cleanly"
kill -0 "$rootproc"
ok $? "root's attached process goes on after the daemon stops"
kill "$rootproc"
done_testing
