#!/bin/sh
# The manual pages in doc/ are clean roff: mandoc -Tlint and groff -ww
# report nothing (every warning and style message counts), man(1) renders
# each from the tree, and every reference to one of micad's pages names a
# page and section that exist.
. "$top_srcdir/tests/tracer_lib.sh"
DOC="$top_srcdir/doc"
PAGES="micad.8 micactl.1 micactl-mca.1 mica.conf.5 micad-http.7 micad-sql.7"

for p in $PAGES; do
	[ -f "$DOC/$p" ]
	ok $? "doc/$p exists"
done

if command -v mandoc >/dev/null; then
	for p in $PAGES; do
		mandoc -Tlint -Wstyle "$DOC/$p" >"$TMP/lint" 2>&1
		is "$(cat "$TMP/lint")" "" "mandoc -Tlint: doc/$p has no message"
	done
else
	skip "mandoc -Tlint" "mandoc is not installed (apt-get install mandoc)"
fi

if command -v groff >/dev/null; then
	for p in $PAGES; do
		groff -man -Tutf8 -ww -z "$DOC/$p" >"$TMP/groff" 2>&1
		is "$(cat "$TMP/groff")" "" "groff -ww: doc/$p has no warning"
	done
else
	skip "groff -ww" "groff is not installed (apt-get install groff-base)"
fi

if command -v man >/dev/null; then
	for p in $PAGES; do
		name=${p%.*}
		MANWIDTH=80 man -l "$DOC/$p" 2>"$TMP/man.err" | col -b >"$TMP/man.out"
		grep -q "^NAME" "$TMP/man.out" && grep -q "^ *$name - " "$TMP/man.out" &&
			[ ! -s "$TMP/man.err" ]
		ok $? "man -l doc/$p renders its NAME line"
	done
else
	skip "man -l" "man is not installed (apt-get install man-db)"
fi

# References NAME(SECTION) to micad's own pages, from every page.
bad=
for p in $PAGES; do
	refs=$(sed -n 's/^\.BR \(mica[a-z.\\-]*\) (\([1-8]\)).*/\1.\2/p' "$DOC/$p" | sed 's/\\-/-/g')
	for r in $refs; do
		[ -f "$DOC/$r" ] || bad="$bad $p->$r"
	done
done
is "$bad" "" "every reference to a micad page names one in doc/"
done_testing
