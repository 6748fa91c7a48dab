#!/bin/sh
# Files and terminal output (issue 17): an output file (--mica-out's files,
# -o, --record, --dump-events, micactl export -o) is never written through
# a symbolic link planted at its path; a new results database and its -wal
# and -shm files are 0600, an existing one keeps its mode; a traced
# program's command line reaches micactl list, status and query and the
# daemon's log escaped (control bytes, invalid UTF-8, backslashes).
. "$top_srcdir/tests/tracer_lib.sh"
MICACTL="$top_builddir/micactl"
umask 022	# what would make SQLite's own files world-readable

# wait_cmd CMD...: tests/wait.sh's wait_until CMD, for at most 300 s.
wait_cmd() {
	wait_until 300 "$*" "$@"
}

# refused NAME ERRFILE LINK: the refusal of LINK is in ERRFILE and the file
# it names ($TMP/victim) is untouched.
refused() {
	grep -qF "refusing to write '$3': it is a symbolic link (remove it, or choose another path)" \
		"$2"
	r=$?
	ok $r "$1: a symbolic link at the output path is refused, with the reason"
	[ $r -eq 0 ] || sed 's/^/# /' "$2"
	is "$(cat "$TMP/victim")" "precious" "$1: the file the link names is unchanged"
	[ -L "$3" ]
	ok $? "$1: the link itself is left alone"
}

echo precious >"$TMP/victim"
conf="$TMP/mica.conf"
printf 'analysis_type: all\ninterval_size: full\n' >"$conf"

# --mica-out: a full-mode file (created at the end, O_TRUNC) and an
# interval-mode one (truncated at the start, then appended to).
mkdir "$TMP/mo" "$TMP/mo-int"
ln -s ../victim "$TMP/mo/ilp_full_int_pin.out"
"$MICAD" run -q --no-db -c "$conf" --mica-out "$TMP/mo" -o /dev/null -- "$ASM/loop" 2>"$TMP/mo.err"
refused "--mica-out (full)" "$TMP/mo.err" "$TMP/mo/ilp_full_int_pin.out"
[ -s "$TMP/mo/stride_full_int_pin.out" ]
ok $? "--mica-out: the other MICA files are written"
printf 'analysis_type: ilp\ninterval_size: 200\n' >"$TMP/int.conf"
ln -s ../victim "$TMP/mo-int/ilp_phases_int_pin.out"
"$MICAD" run -q --no-db -c "$TMP/int.conf" --mica-out "$TMP/mo-int" -o /dev/null -- "$ASM/loop" \
	2>"$TMP/mo-int.err"
refused "--mica-out (interval)" "$TMP/mo-int.err" "$TMP/mo-int/ilp_phases_int_pin.out"

# -o, --record, --dump-events: the same refusal, and micad fails.
ln -s victim "$TMP/link"
"$MICAD" run -q --no-db -o "$TMP/link" -- "$ASM/loop" 2>"$TMP/o.err"
[ $? -ne 0 ]
ok $? "-o: micad fails"
refused "-o" "$TMP/o.err" "$TMP/link"
"$MICAD" run -q --no-db --record "$TMP/link" -o /dev/null -- "$ASM/loop" 2>"$TMP/rec.err"
[ $? -ne 0 ]
ok $? "--record: micad fails"
refused "--record" "$TMP/rec.err" "$TMP/link"
"$MICAD" run -q --no-db --dump-events "$TMP/link" -o /dev/null -- "$ASM/loop" 2>"$TMP/dump.err"
[ $? -ne 0 ]
ok $? "--dump-events: micad fails"
refused "--dump-events" "$TMP/dump.err" "$TMP/link"
# A dangling link would have had its target created.
ln -s nowhere "$TMP/dangling"
"$MICAD" run -q --no-db -o "$TMP/dangling" -- "$ASM/loop" 2>/dev/null
[ ! -e "$TMP/nowhere" ]
ok $? "-o: nothing is created through a dangling link"
# A plain existing file is still overwritten (fopen's "w").
echo old >"$TMP/counts"
"$MICAD" run -q --no-db -o "$TMP/counts" -- "$ASM/loop" 2>/dev/null
grep -q "304 instructions (E)" "$TMP/counts" && ! grep -q old "$TMP/counts"
ok $? "-o: an existing regular file is overwritten as before"

# New databases are 0600 under umask 022; an existing one keeps its mode.
DB="$TMP/run.db"
"$MICAD" run -q --db "$DB" -o /dev/null -- "$ASM/loop" 2>"$TMP/db.err"
is "$(stat -c %a "$DB" 2>&1)" 600 "micad run --db: a new database is 0600"
: >"$TMP/old.db"
chmod 644 "$TMP/old.db"
"$MICAD" run -q --db "$TMP/old.db" -o /dev/null -- "$ASM/loop" 2>/dev/null
is "$(stat -c %a "$TMP/old.db")" 644 "micad run --db: an existing database keeps its mode"
ln -s run-linked.db "$TMP/dbl"
"$MICAD" run -q --db "$TMP/dbl" -o /dev/null -- "$ASM/loop" 2>/dev/null
is "$(stat -c %a "$TMP/run-linked.db" 2>&1)" 600 \
	"micad run --db LINK: the new file the link names is 0600 too"

# micactl export -o: csv (a file) and mica (files in a directory).
s=$(sqlite3 "$DB" "select max(id) from session")
"$MICACTL" export "$s" --format csv --db "$DB" -o "$TMP/link" 2>"$TMP/exp.err"
[ $? -ne 0 ]
ok $? "export -o: micactl fails"
refused "export --format csv -o" "$TMP/exp.err" "$TMP/link"
mkdir "$TMP/exp"
"$MICACTL" export "$s" --db "$DB" -o "$TMP/exp" 2>/dev/null
f=$(ls "$TMP/exp" | head -n 1)
rm -rf "$TMP/exp"
mkdir "$TMP/exp"
ln -s ../victim "$TMP/exp/$f"
"$MICACTL" export "$s" --db "$DB" -o "$TMP/exp" 2>"$TMP/expm.err"
refused "export --format mica -o DIR ($f)" "$TMP/expm.err" "$TMP/exp/$f"

# The daemon (the system one as root): a new database is 0600, and so are
# its -wal and -shm while a session writes it; the command line of a
# session is escaped.
SOCK="$TMP/s/control.sock"
SDB="$TMP/sys.db"
export MICAD_SOCKET="$SOCK"
system=
[ "$(id -u)" -eq 0 ] && system=--system	# the system daemon must be root
"$MICAD" serve $system --socket "$SOCK" --db "$SDB" --http 127.0.0.1:0 2>"$TMP/daemon.log" &
daemon=$!
wait_cmd test -S "$SOCK"
ok $? "micad serve $system listens"

esc=$(printf '\033')
cr=$(printf '\r')
ff=$(printf '\377')
nl='
'
go="$TMP/go"
fake="    99  run     exited        0  fake"	# a row of its own if the newline got out
"$MICACTL" run -q -- "$ASM/sleeper" "$go" "${esc}[31mRED" "a${cr}b" \
	"x${nl}$fake" "$ff" 'back\slash' 'café' \
	>/dev/null 2>"$TMP/run.err" &
m=$!
want="$ASM/sleeper $go \\x1b[31mRED a\\x0db x\\x0a$fake \\xff back\\\\slash café"
wait_cmd test -e "$SDB-wal" -a -e "$SDB-shm"
is "$(stat -c %a "$SDB" "$SDB-wal" "$SDB-shm" 2>&1 | tr '\n' ' ')" "600 600 600 " \
	"serve $system --db: the new database, its -wal and -shm are 0600"
list_running() {
	"$MICACTL" list >"$TMP/list.out" && grep -q ' running ' "$TMP/list.out"
}
wait_cmd list_running
grep -qF -- "$want" "$TMP/list.out"
r=$?
ok $r "micactl list: the command line is escaped"
[ $r -eq 0 ] || sed 's/^/# /' "$TMP/list.out"
! grep -q "$esc" "$TMP/list.out" && ! grep -q "$cr" "$TMP/list.out" && \
	! LC_ALL=C grep -q "$ff" "$TMP/list.out"
ok $? "micactl list: no raw ESC, CR or invalid UTF-8 byte"
is "$(wc -l <"$TMP/list.out")" 2 "micactl list: a newline in an argument makes no row of its own"
"$MICACTL" status >"$TMP/status.out"
grep -qxF -- "command:       $want" "$TMP/status.out"
ok $? "micactl status: the command line is escaped"
! grep -q "$esc" "$TMP/status.out"
ok $? "micactl status: no raw ESC"
touch "$go"
wait "$m"
is "$?" 7 "the traced program ends by itself"
wait_cmd grep -q ') ended$' "$TMP/daemon.log"
grep -qF -- "run $want (worker " "$TMP/daemon.log"
ok $? "daemon log: the session's start line is escaped"
grep -qF -- "($want) ended" "$TMP/daemon.log"
ok $? "daemon log: its end line too"
! grep -q "$esc" "$TMP/daemon.log" && ! LC_ALL=C grep -q "$ff" "$TMP/daemon.log"
ok $? "daemon log: no raw ESC or invalid UTF-8 byte"
"$MICACTL" query --db "$SDB" "select command from session" >"$TMP/query.out"
grep -qF -- "$want" "$TMP/query.out" && ! grep -q "$esc" "$TMP/query.out"
ok $? "micactl query (table): the command line is escaped"
"$MICACTL" query --db "$SDB" -f csv "select command from session" >"$TMP/query.csv"
grep -q "$esc" "$TMP/query.csv"
ok $? "micactl query -f csv to a file: the bytes as stored"

kill -TERM "$daemon"
wait "$daemon"
is "$?" 0 "the daemon stops cleanly"

done_testing
