#!/bin/sh
# micad serve and micactl run/attach/stop/list/status/shutdown: the program
# runs as the client (cwd, environment, stdio, exit status, signals), exact
# counts, errors, stop, SIGTERM and kill -9 of the daemon, auto-start.
. "$top_srcdir/tests/tracer_lib.sh"
MICACTL="$top_builddir/micactl"
SOCK="$TMP/s/control.sock"
DB="$TMP/results.db"

start_daemon() {	# start_daemon: micad serve on $SOCK and $DB, pid in $daemon
	rm -f "$SOCK"	# left by a killed daemon: wait for the new one's
	"$MICAD" serve --socket "$SOCK" --db "$DB" --http 127.0.0.1:0 2>>"$TMP/daemon.log" &
	daemon=$!
	wait_until 300 "micad serve to listen on $SOCK" socket_or_dead
}
socket_or_dead() { [ -S "$SOCK" ] || ! kill -0 "$daemon" 2>/dev/null; }

# traced_prog NAME: a process running NAME below the daemon is traced
# (sets $prog_pid)
traced_prog() {
	for p in $(pgrep -x "$1"); do
		q=$p
		while [ "${q:-0}" -gt 1 ] && [ "$q" != "$daemon" ]; do
			q=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$q/status" 2>/dev/null)
		done
		if [ "$q" = "$daemon" ] && grep -q '^TracerPid:[[:space:]]*[1-9]' "/proc/$p/status" 2>/dev/null; then
			prog_pid=$p
			return 0
		fi
	done
	return 1
}

# db_free FILE: no process has FILE open
db_free() {
	! ls -l /proc/[0-9]*/fd/ 2>/dev/null | grep -q -- "-> $1\$"
}

# session_of FILE: the session number from micactl's "session N, pid P" line
session_of() {
	sed -n 's/^micactl: session \([0-9]*\), pid .*/\1/p' "$1" | head -n 1
}

sql() {
	sqlite3 -cmd ".timeout 5000" "$DB" "$1"
}

export MICAD_SOCKET="$SOCK"
start_daemon
[ -S "$SOCK" ]
ok $? "micad serve listens on --socket"
is "$(stat -c %a "$SOCK")" 600 "the per-user socket is private (0600)"
is "$(stat -c %a "$TMP/s")" 700 "and so is its directory (0700)"

# Exact counts through the daemon (tests/asm/loop.S is hand-counted: 304).
"$MICACTL" run -- "$ASM/loop" 2>"$TMP/loop.err"
is "$?" 0 "run: exit status 0 passed on"
grep -q "^micactl: session [0-9]* ended: 304 instructions traced" "$TMP/loop.err"
ok $? "run: 304 instructions traced in tests/asm/loop, as hand-counted"
s_loop=$(session_of "$TMP/loop.err")
[ -n "$s_loop" ] && [ "$s_loop" -gt 0 ]
ok $? "run: the session has a database id ($s_loop)"
is "$(sql "select end_reason || ' ' || exit_status || ' ' || mode from session where id = $s_loop")" \
	"exited 0 run" "run: the session row says exited, status 0, mode run"
is "$(sql "select sum(ins) from interval where session_id = $s_loop")" 304 \
	"run: the intervals hold the 304 instructions"

# End to end through the daemon: micactl run, then micactl export --format
# mica equals micad replay of a recorded trace of the same program with
# the same configuration, byte for byte (branches.S: static, no stack or
# heap, so every address is the same in both runs), for full and
# interval mode.
for mode in full 200; do
	d="$TMP/e2e-$mode"
	mkdir -p "$d/export" "$d/replay"
	printf 'analysis_type: all\ninterval_size: %s\n' "$mode" >"$d/mica.conf"
	"$MICACTL" run -c "$d/mica.conf" -- "$ASM/branches" 2>"$d/run.err"
	is "$?" 5 "e2e $mode: micactl run passes the exit status (5)"
	s_e2e=$(session_of "$d/run.err")
	"$MICACTL" export "$s_e2e" --format mica --db "$DB" -o "$d/export" 2>"$d/export.err"
	ok $? "e2e $mode: micactl export $s_e2e --format mica"
	"$MICAD" run -q --no-db --record "$d/trace" -o /dev/null -- "$ASM/branches"
	"$MICAD" replay -q --no-db -c "$d/mica.conf" --mica-out "$d/replay" "$d/trace" 2>"$d/replay.err"
	ok $? "e2e $mode: micad replay of a recorded trace"
	n=$(ls "$d/replay" | wc -l)
	diff -r "$d/export" "$d/replay" >"$d/diff" 2>&1
	r=$?
	[ "$n" -ge 7 ] && [ $r -eq 0 ]
	ok $? "e2e $mode: the export equals the replay's $n MICA files byte for byte"
	[ $r -eq 0 ] || sed 's/^/# /' "$d/diff" | head -20
done

# Exit status and stdout of the program reach the client.
"$MICACTL" run -q -- "$ASM/sleeper" >"$TMP/sleeper.out" 2>"$TMP/sleeper.err"
is "$?" 7 "run: the program's exit status (7) is micactl's"
is "$(cat "$TMP/sleeper.out")" "done" "run: the program writes to micactl's stdout"

# The program runs in the client's directory with the client's environment
# and stdin.
mkdir -p "$TMP/wd"
out=$(cd "$TMP/wd" && MICAD_TEST_VAR=xyzzy "$MICACTL" run -q -- /bin/sh -c 'pwd; echo "$MICAD_TEST_VAR"' 2>/dev/null)
is "$out" "$TMP/wd
xyzzy" "run: the program gets the client's working directory and environment"
out=$(cd "$TMP/wd" && umask 027 && "$MICACTL" run -q -- /bin/sh -c 'umask' 2>/dev/null)
is "$out" "0027" "run: the program gets the client's umask"
out=$(printf 'from stdin' | "$MICACTL" run -q -- /bin/cat 2>/dev/null)
is "$out" "from stdin" "run: the program reads the client's stdin"

# Errors.
"$MICACTL" run -q -- "$TMP/no-such-program" 2>"$TMP/enoent.err"
is "$?" 127 "run: a program that cannot start gives 127"
grep -q "cannot run '$TMP/no-such-program': No such file or directory" "$TMP/enoent.err"
ok $? "run: and says why, on micactl's stderr"
"$MICACTL" stop 999999 2>"$TMP/stop.err"
is "$?" 1 "stop of an unknown session fails"
grep -q "session 999999 is not running here" "$TMP/stop.err"
ok $? "stop: says the session is not running"
"$MICACTL" status 999999 2>"$TMP/status.err"
is "$?" 1 "status of an unknown session fails"
grep -q "no session 999999" "$TMP/status.err"
ok $? "status: says there is no such session"
pid=4000000
while kill -0 "$pid" 2>/dev/null; do pid=$((pid + 1)); done
"$MICACTL" attach "$pid" 2>"$TMP/esrch.err"
is "$?" 1 "attach to a missing pid fails"
grep -q "attach $pid refused: no process $pid" "$TMP/esrch.err"
ok $? "attach: says there is no such process"
"$MICACTL" attach abc 2>/dev/null
is "$?" 2 "attach: a pid that is not a number is a usage error"
MICAD_SOCKET="$TMP/nowhere.sock" "$MICACTL" run -- "$ASM/loop" 2>"$TMP/unreach.err"
is "$?" 127 "run: an unreachable daemon gives 127"
grep -q "cannot reach micad at '$TMP/nowhere.sock': No such file or directory" "$TMP/unreach.err"
ok $? "run: and names the socket"

# Ctrl-C goes to the program: it dies of SIGINT, micactl exits 130.
"$MICACTL" run -q -- "$ASM/spinner" >/dev/null 2>"$TMP/int.err" &
m=$!
wait_until 300 "the spinner to run, traced, under the daemon" traced_prog spinner
kill -INT "$m"
wait "$m"
is "$?" 130 "run: SIGINT to micactl reaches the program (exit 128+2)"

# attach --background, status, stop: the target goes on.
# (sleeper runs until $TMP/att.go exists: attach may be slow under ASan.)
"$ASM/sleeper" "$TMP/att.go" >"$TMP/att.out" &
target=$!
wait_until 120 "the sleeper to start" proc_named "$target" sleeper
"$MICACTL" attach -b "$target" 2>"$TMP/att.err"
is "$?" 0 "attach -b returns once the session started"
s_att=$(session_of "$TMP/att.err")
"$MICACTL" status >"$TMP/status.out"
grep -q "^pid: *$target$" "$TMP/status.out"
ok $? "status lists the running session with its pid"
grep -q "^state: *running$" "$TMP/status.out"
ok $? "status: state running"
"$MICACTL" list >"$TMP/list.out"
grep -q "^ *$s_att  attach  running .* $target " "$TMP/list.out"
ok $? "list shows the live session"
# The web UI's address, and the live view of the session through it.
url=$("$MICACTL" ui)
echo "$url" | grep -Eq '^http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{64}$'
ok $? "ui: prints the web UI's URL with a 64-hex-digit token ($url)"
base=${url%%/\?token=*}
token=${url##*token=}
if command -v curl >/dev/null; then
	code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/sessions")
	is "$code" 401 "ui: the API refuses a request without the token"
	live_count() {
		curl -s -H "Authorization: Bearer $token" "$base/api/sessions/$s_att" >"$TMP/live.json"
		grep -q '"live":{"state":"running","instructions":[1-9]' "$TMP/live.json"
	}
	wait_until 300 "the API to show instructions traced in session $s_att" live_count
	r=$?
	ok $r "ui: the API shows the running session's live instruction count"
	[ $r -eq 0 ] || { sed 's/^/# /' "$TMP/live.json"; echo; }
else
	skip "ui: the API refuses a request without the token" "curl is not installed"
	skip "ui: the API shows the running session's live instruction count" "curl is not installed"
fi
"$MICACTL" stop "$s_att" 2>/dev/null
is "$?" 0 "stop: accepted"
touch "$TMP/att.go"
wait "$target"
is "$?" 7 "stop: the target finishes by itself with its own status"
is "$(cat "$TMP/att.out")" "done" "stop: the target's output is intact"
ended() { [ "$(sql "select end_reason from session where id = $1")" != running ]; }
wait_until 300 "session $s_att to be recorded as ended" ended "$s_att"
is "$(sql "select end_reason from session where id = $s_att")" detached \
	"stop: the session is recorded as detached"

# SIGTERM to the daemon: sessions detached, intervals written, exit 0.
"$ASM/sleeper" "$TMP/term.go" >"$TMP/term.out" &
target=$!
wait_until 120 "the sleeper to start" proc_named "$target" sleeper
"$MICACTL" attach -b "$target" 2>"$TMP/term.err"
s_term=$(session_of "$TMP/term.err")
[ -n "$s_term" ] || { sed 's/^/# /' "$TMP/term.err"; tail -5 "$TMP/daemon.log" | sed 's/^/# /'; }
wait_until 120 "the sleeper to be traced" traced_by "$target" '[1-9][0-9]*'
kill -TERM "$daemon"
wait "$daemon"
is "$?" 0 "SIGTERM: the daemon exits 0"
[ ! -e "$SOCK" ]
ok $? "SIGTERM: the socket is removed"
touch "$TMP/term.go"
wait "$target"
is "$?" 7 "SIGTERM: the traced process goes on to its own end"
got=$(sql "select end_reason from session where id = $s_term" 2>&1)
is "$got" detached "SIGTERM: the session is recorded as detached"
[ "$got" = detached ] || { echo "# session $s_term"; sql "select id, end_reason from session" | sed 's/^/# /'; sed 's/^/# /' "$TMP/term.err"; }

# kill -9 of the daemon in the middle of a run: the file is intact, holds
# the committed intervals, and the next daemon marks the session cut-off.
start_daemon
"$MICACTL" run --interval 1000 -- "$ASM/spinner" >/dev/null 2>"$TMP/k9.err" &
m=$!
has_session() { [ -n "$(session_of "$TMP/k9.err")" ]; }
wait_until 300 "micactl to name its session" has_session
s_k9=$(session_of "$TMP/k9.err")
twenty() { [ "$(sql "select count(*) from interval where session_id = $s_k9" 2>/dev/null)" -ge 20 ]; }
wait_until 600 "20 intervals of session $s_k9 in the database" twenty
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
wait "$m" 2>/dev/null
wait_until 120 "every process of the killed daemon to close the database" db_free "$DB"
is "$(sql 'pragma integrity_check')" ok "kill -9: the database passes integrity_check"
n=$(sql "select count(*) from interval where session_id = $s_k9")
[ "$n" -ge 20 ]
ok $? "kill -9: the committed intervals are there ($n)"
is "$(sql "select count(*) from interval where session_id = $s_k9 and ins != 1000")" 0 \
	"kill -9: each committed interval holds 1000 instructions"
start_daemon
"$MICACTL" list >"$TMP/list2.out"
grep -q "^ *$s_k9  run     cut-off " "$TMP/list2.out"
r=$?
ok $r "kill -9: the next daemon marks the session cut-off"
[ $r -eq 0 ] || { sed 's/^/# /' "$TMP/list2.out"; tail -5 "$TMP/daemon.log" | sed 's/^/# /'; }

"$MICACTL" shutdown
wait "$daemon"
is "$?" 0 "shutdown: the daemon exits 0"

# micad run --http: the same API beside a foreground session, live.
if command -v curl >/dev/null; then
	"$MICAD" run -q --db "$TMP/http.db" --http=127.0.0.1:0 -- "$ASM/spinner" \
		>/dev/null 2>"$TMP/http.err" &
	m=$!
	wait_until 300 "micad run to print its web UI's URL" in_file "web UI and API" "$TMP/http.err"
	url=$(sed -n 's/^micad: web UI and API: //p' "$TMP/http.err")
	echo "$url" | grep -Eq '^http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{64}$'
	ok $? "run --http: prints the URL with the token ($url)"
	live_http() {
		curl -s -H "Authorization: Bearer ${url##*token=}" "${url%%/\?token=*}/api/sessions/1" \
			>"$TMP/http.json"
		grep -q '"live":{"state":"running","instructions":[1-9][0-9]*,"intervals":[0-9][0-9]*,"mgsim":true}' \
			"$TMP/http.json"
	}
	wait_until 300 "the API to show the session live with instructions" live_http
	ok $? "run --http: the running session is live, with MGSim counters"
	kill "$(cat /proc/$m/task/$m/children | tr -d ' ')"
	wait "$m"
	is "$?" 143 "run --http: the program's end (SIGTERM) ends micad run"
	"$MICAD" run -q --no-db --http -- "$ASM/loop" 2>"$TMP/http-nodb.err"
	is "$?" 127 "run --http --no-db: refused"
	grep -q "cannot go with --no-db" "$TMP/http-nodb.err"
	ok $? "run --http --no-db: says why"
else
	for n in 1 2 3 4 5; do skip "run --http check $n" "curl is not installed"; done
fi

# Auto-start: no daemon, no MICAD_SOCKET: micactl starts one for the user.
unset MICAD_SOCKET
mkdir -p "$TMP/xdg" "$TMP/data"
chmod 700 "$TMP/xdg"
XDG_RUNTIME_DIR="$TMP/xdg" XDG_DATA_HOME="$TMP/data" "$MICACTL" run -- "$ASM/loop" 2>"$TMP/spawn.err"
is "$?" 0 "auto-start: micactl run works with no daemon running"
grep -q "^micactl: started micad for uid $(id -u) (socket $TMP/xdg/micad/control.sock" "$TMP/spawn.err"
ok $? "auto-start: says it started micad and where"
grep -q "ended: 304 instructions traced" "$TMP/spawn.err"
ok $? "auto-start: the session ran"
[ -f "$TMP/data/micad/results.db" ]
ok $? "auto-start: the daemon uses the per-user database"
XDG_RUNTIME_DIR="$TMP/xdg" "$MICACTL" --version >/dev/null
XDG_RUNTIME_DIR="$TMP/xdg" "$MICACTL" run --no-spawn -- "$ASM/loop" 2>/dev/null
is "$?" 0 "auto-start: the started daemon keeps serving"
XDG_RUNTIME_DIR="$TMP/xdg" "$MICACTL" shutdown
is "$?" 0 "auto-start: shutdown stops it"
no_socket() { [ ! -e "$TMP/xdg/micad/control.sock" ]; }
wait_until 120 "the auto-started daemon to remove its socket" no_socket
XDG_RUNTIME_DIR="$TMP/xdg" "$MICACTL" run --no-spawn -- "$ASM/loop" 2>"$TMP/nospawn.err"
is "$?" 127 "--no-spawn: no daemon, no run"
grep -q "start it with 'micad serve'" "$TMP/nospawn.err"
ok $? "--no-spawn: says how to start the daemon"

done_testing
