#!/bin/sh
# micactl query: a read-only connection (every kind of write refused with a
# clear message, the database unchanged), SQLite's own message for bad
# SQL, an aligned table, and CSV and JSON that parse, with awkward text
# (a command line holding a comma, quotes, a tab) intact.
. "$top_srcdir/tests/tracer_lib.sh"

MICACTL="$top_builddir/micactl"
DB="$TMP/q.db"
trace="$TMP/a,b \"c\"	d.trace"
cp "$top_srcdir/tests/mica/ppm2.trace" "$trace"
"$MICAD" replay -q --db "$DB" -c "$top_srcdir/tests/mica/PPM-2.conf" "$trace" > /dev/null
ok $? "a session to query"

query() {
	"$MICACTL" query --db "$DB" "$@"
}

for sql in "DELETE FROM session" "INSERT INTO session (mode, command, uid, config, settings, started_at) VALUES ('run', 'x', 0, '', '{}', 0)" \
	   "UPDATE session SET command = 'x'" "DROP VIEW metric" "CREATE TABLE t (x)" "PRAGMA user_version = 7"; do
	query "$sql" > /dev/null 2> "$TMP/err"
	is "$?" 1 "refused: $sql"
	grep -q "^micactl: micactl query is read-only: " "$TMP/err"
	ok $? "refused with the read-only message: $(cat "$TMP/err")"
done
is "$(query --format csv "SELECT count(*) || ' ' || (SELECT count(*) FROM interval) FROM session" | tail -n 1)" "1 1" \
	"the database is unchanged"
is "$(query --format csv 'PRAGMA user_version' | tail -n 1)" 4 "the schema version is unchanged"

# Reals with as many digits as reading them back exactly takes (up to 17):
# 0.1 + 0.2 is not 0.3, and 1/3 needs 16 digits.
is "$(query --format csv "SELECT 0.1 + 0.2 AS a, 1.0 / 3 AS b, 0.25 AS c, 1e300 * 3 AS d" | tail -n 1)" \
	"0.30000000000000004,0.3333333333333333,0.25,3e+300" \
	"csv: reals read back exactly (17 significant digits at most)"
query --format csv "SELECT 0.1 + 0.2 AS a" | tail -n 1 | awk '{ exit !($1 == 0.1 + 0.2 && $1 != 0.3) }'
ok $? "... the CSV value is the same double"

query "SELEC 1" > /dev/null 2> "$TMP/err"
is "$?" 1 "bad SQL: exit 1"
is "$(cat "$TMP/err")" 'micactl: near "SELEC": syntax error' "bad SQL: SQLite's own message"
query "SELECT * FROM nope" > /dev/null 2> "$TMP/err"
is "$(cat "$TMP/err")" 'micactl: no such table: nope' "unknown table: SQLite's own message"
query "SELECT 1; SELECT 2" > /dev/null 2> "$TMP/err"
is "$?" 1 "two statements: refused"
query "SELECT 1" --format xml > /dev/null 2>&1
is "$?" 2 "unknown format: usage error"
"$MICACTL" query --db "$TMP/none.db" "SELECT 1" > /dev/null 2> "$TMP/err"
is "$?" 1 "missing database: exit 1"

# The table: a header, dashes, numbers right-aligned, text left-aligned.
query "SELECT 7 AS n, 'ab' AS word, 0.5 AS x UNION ALL SELECT 1234, NULL, 2.25" > "$TMP/table"
printf '   n  word     x\n----  ----  ----\n   7  ab     0.5\n1234        2.25\n' > "$TMP/table.want"
cmp -s "$TMP/table" "$TMP/table.want"
ok $? "table: aligned columns"
sed 's/^/# /' "$TMP/table"

query --format csv "SELECT id, command, mode FROM session" > "$TMP/s.csv"
query --format json "SELECT id, command, started_at, ended_at, exit_status, end_reason FROM session" > "$TMP/s.json"
query --format json "SELECT * FROM misprediction_rate ORDER BY history, organization" > "$TMP/m.json"
query --format json "SELECT * FROM session WHERE id = 99" > "$TMP/empty.json"
if command -v python3 > /dev/null; then
	python3 - "$TMP" "$trace" > "$TMP/py.out" 2>&1 <<'PY'
import csv, json, sys
tmp, trace = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(tmp + '/s.csv', newline='')))
assert rows == [['id', 'command', 'mode'], ['1', trace, 'replay']], rows
s = json.load(open(tmp + '/s.json'))
assert len(s) == 1 and s[0]['id'] == 1 and s[0]['command'] == trace, s
assert isinstance(s[0]['started_at'], float) and s[0]['ended_at'] >= s[0]['started_at']
assert s[0]['exit_status'] is None and s[0]['end_reason'] == 'replayed'
m = json.load(open(tmp + '/m.json'))
assert len(m) == 12
g = [r for r in m if r['organization'] == 'GAg' and r['history'] == 4][0]
assert g['misses'] == 2 and g['branches'] == 6 and abs(g['rate'] - 1 / 3) < 1e-15, g
assert json.load(open(tmp + '/empty.json')) == []
print('ok')
PY
	ok $? "CSV and JSON parse and hold the values (text with a comma, quotes and a tab intact)"
	sed 's/^/# /' "$TMP/py.out" | tail -3
else
	skip "CSV and JSON parse" "python3 not found"
fi
done_testing
