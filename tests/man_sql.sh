#!/bin/sh
# micad-sql(7) documents the results database as schema.sql defines it:
# a subsection (.SS) for every table and view and for nothing else, each
# with an example query on its table or view; every example query of the
# page runs (micactl query) on four databases (the HTTP tests' fixtures
# in step and sample mode, the profile fixture, and a real micad run) and
# returns rows on at least one of them.
. "$top_srcdir/tests/tracer_lib.sh"
MICACTL="$top_builddir/micactl"
PAGE="$top_srcdir/doc/micad-sql.7"

grep -oE 'CREATE (TABLE|VIEW) IF NOT EXISTS [a-z_]+' "$top_srcdir/schema.sql" |
	awk '{ print $NF }' | sort >"$TMP/schema"
sed -n 's/^\.SS "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$PAGE" | sort >"$TMP/page"
[ "$(wc -l <"$TMP/schema")" -ge 40 ]
ok $? "schema.sql defines tables and views ($(wc -l <"$TMP/schema"))"
is "$(comm -23 "$TMP/schema" "$TMP/page" | tr '\n' ' ')" "" \
	"every table and view of schema.sql has its subsection in micad-sql(7)"
is "$(comm -13 "$TMP/schema" "$TMP/page" | tr '\n' ' ')" "" \
	"every subsection of micad-sql(7) is a table or view of schema.sql"

# The page's example queries, one "SECTION<TAB>SQL" line each (the roff
# escapes undone, the query's lines joined).
awk '
	function deroff(s) {
		gsub(/\\-/, "-", s); gsub(/\\\(aq/, "\047", s); gsub(/\\\(dq/, "\"", s)
		gsub(/\\&/, "", s); gsub(/\\e/, "\\", s)
		return s
	}
	/^\.S[HS] / { name = $0; sub(/^\.S[HS] +/, "", name); gsub(/"/, "", name); next }
	/^\.EX/ { inex = 1; next }
	/^\.EE/ { inex = 0; next }
	inex {
		line = deroff($0)
		if (!inq && line ~ /^\$ micactl query /) {
			rest = line
			sub(/^\$ micactl query (--[a-z]+ [a-z]+ )?/, "", rest)
			q = substr(rest, 1, 1); sql = substr(rest, 2); inq = 1
		} else if (inq) {
			sql = sql " " line
		} else {
			next
		}
		if ((i = index(sql, q)) > 0) {
			sql = substr(sql, 1, i - 1); gsub(/  +/, " ", sql)
			print name "\t" sql; inq = 0
		}
	}
' "$PAGE" >"$TMP/examples"

missing=
for t in $(cat "$TMP/schema"); do
	awk -F '\t' -v t="$t" '$1 == t' "$TMP/examples" |
		grep -qiE "(FROM|JOIN) $t( |\$)" || missing="$missing $t"
done
is "$missing" "" "every subsection has an example query on its table or view"

"$top_builddir/tests/http_fixture" "$TMP/step.db" &&
	"$top_builddir/tests/http_fixture" "$TMP/sample.db" --sample &&
	"$top_builddir/tests/profile_fixture" "$TMP/profile.db"
ok $? "the fixture databases are built"
"$MICAD" run -q --db "$TMP/run.db" --mcpu skylake --interval 2000 \
	-- "$top_builddir/tests/cprog/static_prog" >/dev/null 2>"$TMP/run.err"
is "$?" 0 "micad run writes a real session (static_prog, intervals of 2000)"
sed 's/^/# /' "$TMP/run.err"

n=0 failed= empty=
while IFS='	' read -r name sql; do
	n=$((n + 1))
	rows=0
	for db in step sample profile run; do
		if ! "$MICACTL" query --format csv --db "$TMP/$db.db" "$sql" \
			>"$TMP/out" 2>"$TMP/err"; then
			failed="$failed [$name on $db: $(cat "$TMP/err")]"
			continue
		fi
		rows=$((rows + $(wc -l <"$TMP/out") - 1))
	done
	[ "$rows" -gt 0 ] || empty="$empty [$name: $sql]"
done <"$TMP/examples"
[ "$n" -ge "$(wc -l <"$TMP/schema")" ]
ok $? "micad-sql(7) has an example query per table and view ($n)"
is "$failed" "" "every example query runs on every database"
is "$empty" "" "every example query returns rows from at least one database"
done_testing
