#!/bin/sh
# The manual pages (doc/) and the programs agree: every option that
# 'micad --help', 'micactl --help', their commands' --help and 'micactl
# mca --help' print is documented (a tag of an OPTIONS section) in the
# corresponding page, and every option a page documents is one that --help
# prints; every command has its subsection; every mica.conf key and
# analysis micad knows is in mica.conf(5), and nothing else is.
. "$top_srcdir/tests/tracer_lib.sh"
MICACTL="$top_builddir/micactl"
DOC="$top_srcdir/doc"

# help_tokens: the options named in a help text (stdin), outside quotes
# ('micactl mca -mcpu' quotes another command), one per line.
help_tokens() {
	sed "s/'[^']*'//g" |
		grep -oE '(^|[[:space:],(\[|])--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[[:space:],(\[|]*//' | sort -u
}

# man_options PAGE: the options of the tags (.TP) of PAGE's OPTIONS
# sections, one per line.
man_options() {
	awk '
		/^\.SH/ { inopt = ($0 ~ /OPTIONS/); prev = ""; next }
		inopt && prev == ".TP" { print }
		{ prev = $0 }
	' "$1" | sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/^\.[A-Z]* //' -e 's/"//g' |
		grep -oE '(^|[[:space:],(\[|])--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[[:space:],(\[|]*//' | sort -u
}

# help_commands: the commands a top-level --help lists (stdin).
help_commands() {
	awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 }
	     on && /^  [a-z]+  / { print $1 }'
}

# check_page PAGE NAME MENTIONS HELP-FILE: both directions between the
# options of HELP-FILE and PAGE.  MENTIONS: options the help names that
# are not this command's (they are left out of the first direction).
check_page() {
	page=$1 name=$2 mentions=$3 help=$4
	help_tokens <"$help" >"$TMP/help.opts"
	man_options "$page" >"$TMP/man.opts"
	[ -s "$TMP/help.opts" ] && [ -s "$TMP/man.opts" ]
	ok $? "$name: --help and $(basename "$page") both list options"
	missing=
	for o in $(cat "$TMP/help.opts"); do
		case " $mentions " in *" $o "*) continue ;; esac
		grep -qx -- "$o" "$TMP/man.opts" || missing="$missing $o"
	done
	is "$missing" "" "$name: every option --help prints is documented in $(basename "$page")"
	extra=
	for o in $(cat "$TMP/man.opts"); do
		[ "$o" = --help ] && continue	# --help printed the text
		grep -qx -- "$o" "$TMP/help.opts" || extra="$extra $o"
	done
	is "$extra" "" "$name: every option $(basename "$page") documents is printed by --help"
}

# check_commands PAGE PROG HELP-FILE: a subsection '.SS "PROG COMMAND"'
# for each command.
check_commands() {
	missing=
	n=0
	for c in $(help_commands <"$3"); do
		n=$((n + 1))
		grep -qE "^\.SS \"?$2 $c\"?\$" "$1" || missing="$missing $c"
	done
	[ "$n" -ge 4 ]
	ok $? "$2 --help lists its commands ($n)"
	is "$missing" "" "$2: every command has its subsection in $(basename "$1")"
}

for prog in micad micactl; do
	"$top_builddir/$prog" --help >"$TMP/$prog.help" 2>&1
	cmds=$(help_commands <"$TMP/$prog.help")
	cp "$TMP/$prog.help" "$TMP/$prog.all"
	for c in $cmds; do
		[ "$prog $c" = "micactl mca" ] && continue
		"$top_builddir/$prog" "$c" --help >>"$TMP/$prog.all" 2>&1
	done
done
"$MICACTL" mca --help >"$TMP/mca.help" 2>&1

check_commands "$DOC/micad.8" micad "$TMP/micad.help"
check_commands "$DOC/micactl.1" micactl "$TMP/micactl.help"
check_page "$DOC/micad.8" "micad and its commands" "" "$TMP/micad.all"
# micactl export's help says its mica format is what micad's --mica-out
# writes.
check_page "$DOC/micactl.1" "micactl and its commands" "--mica-out" "$TMP/micactl.all"
# '-opt=VALUE' stands for any of llvm-mca's options.
check_page "$DOC/micactl-mca.1" "micactl mca" "-opt" "$TMP/mca.help"

# mica.conf(5): the keys (.TP tags of KEYS) and analyses (of ANALYSES)
# are exactly those micad names when it refuses an unknown one.
man_tags() {	# man_tags PAGE SECTION: the first word of each .TP tag there
	awk -v want="$2" '
		/^\.SH/ { sec = $0; sub(/^\.SH +/, "", sec); gsub(/"/, "", sec)
			  on = (sec == want); prev = ""; next }
		on && prev == ".TP" { print }
		{ prev = $0 }
	' "$1" | sed -e 's/\\f[BIRP]//g' -e 's/^\.[A-Z]* //' | awk '{ print $1 }' | sort -u
}
echo 'pc=0x400000 sz=3' >"$TMP/t.trace"
printf 'no_such_key: 1\n' >"$TMP/key.conf"
"$MICAD" replay -q --no-db -c "$TMP/key.conf" "$TMP/t.trace" 2>"$TMP/key.err"
keys=$(sed -n 's/.*unknown config parameter .* (known: \(.*\))$/\1/p' "$TMP/key.err" |
	tr -d ' ' | tr ',' '\n' | sort -u)
[ -n "$keys" ]
ok $? "micad names the keys it knows when it refuses one"
is "$(echo $keys)" "$(echo $(man_tags "$DOC/mica.conf.5" KEYS))" \
	"mica.conf(5) documents exactly the keys micad knows"
printf 'analysis_type: no_such_analysis\n' >"$TMP/type.conf"
"$MICAD" replay -q --no-db -c "$TMP/type.conf" "$TMP/t.trace" 2>"$TMP/type.err"
types=$(sed -n 's/.*unknown analysis type .* (valid: \(.*\), or a comma list.*/\1/p' \
	"$TMP/type.err" | tr -d ' ' | tr ',' '\n' | sort -u)
[ -n "$types" ]
ok $? "micad names the analyses it knows when it refuses one"
is "$(echo $types)" "$(echo $(man_tags "$DOC/mica.conf.5" ANALYSES))" \
	"mica.conf(5) documents exactly the analyses micad knows"

done_testing
