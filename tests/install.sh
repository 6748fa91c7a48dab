#!/bin/sh
# 'make install DESTDIR=D' puts every file where the build was configured
# to put it: the programs, the manual pages (which man(1) then finds), the
# web UI (every file of web/), the valgrind engine's tool where it was
# built, the systemd units, the bash completions, the sample mica.conf and
# itypes spec and the README; 'make uninstall DESTDIR=D' takes them all
# away again.
#
# Then the installed micad is run where it was configured to live, with no
# environment variable or option saying where its files are: in a mount
# namespace of its own, D's tree is bind-mounted at the prefix, and the
# copies micad would otherwise fall back to (the source tree's web/, the
# build tree's valgrind tool) are hidden.  It must serve the installed web
# UI (a marked copy) and trace with the installed tool.  As a control, the
# same run with an empty directory at the prefix serves no UI and finds
# no tool: what was found came from the prefix.
. "$top_srcdir/tests/tracer_lib.sh"
: "${MAKE:=make}"

dest=$TMP/dest
# Not the parent make's flags: its jobserver is not ours, nor its TESTS.
(cd "$top_builddir" && MAKEFLAGS= $MAKE install DESTDIR="$dest") >"$TMP/install.out" 2>&1
ok $? "make install DESTDIR=... succeeds"
tail -n 20 "$TMP/install.out" | grep -i 'error' | sed 's/^/# /'

# installed FILE [SOURCE]: FILE exists under DESTDIR (and has SOURCE's bytes)
installed() {
	if [ -n "${2-}" ]; then
		cmp -s "$dest$1" "$2"
	else
		[ -f "$dest$1" ]
	fi
}

for p in micad micactl; do
	[ -x "$dest$inst_bindir/$p" ]
	ok $? "$inst_bindir/$p is installed, executable"
done

missing=
for m in micad.8 micactl.1 micactl-mca.1 mica.conf.5 micad-http.7 micad-sql.7; do
	installed "$inst_mandir/man${m##*.}/$m" "$top_srcdir/doc/$m" || missing="$missing $m"
done
is "$missing" "" "the six manual pages are installed under $inst_mandir/manN"
if command -v man >/dev/null; then
	is "$(man -M "$dest$inst_mandir" -w micad-sql 2>&1)" "$dest$inst_mandir/man7/micad-sql.7" \
		"man finds micad-sql(7) in the installed tree"
else
	skip "man finds the installed pages" "man is not installed (apt-get install man-db)"
fi

# Every file of web/ (its README is for developers), byte for byte.
missing=
n=0
for f in $(cd "$top_srcdir/web" && find . -type f ! -name README.md | sed 's|^\./||'); do
	n=$((n + 1))
	installed "$inst_pkgdatadir/web/$f" "$top_srcdir/web/$f" || missing="$missing $f"
done
[ "$n" -ge 10 ]
ok $? "web/ has files to install ($n)"
is "$missing" "" "every file of web/ is installed in $inst_pkgdatadir/web"

if [ -x "$top_builddir/daemon/trace/vgtool/micadvg-amd64-linux" ]; then
	vgtool=yes
	[ -x "$dest$inst_pkglibexecdir/valgrind/micadvg-amd64-linux" ] &&
		[ -e "$dest$inst_pkglibexecdir/valgrind/vgpreload_core-amd64-linux.so" ] &&
		[ -e "$dest$inst_pkglibexecdir/valgrind/default.supp" ]
	ok $? "the valgrind tool is installed in $inst_pkglibexecdir/valgrind, with valgrind's preload library and suppressions"
else
	vgtool=no
	[ ! -e "$dest$inst_pkglibexecdir/valgrind/micadvg-amd64-linux" ]
	ok $? "no valgrind tool is installed (this build has none)"
fi

installed "$inst_systemdsystemunitdir/micad.service" && installed "$inst_systemdsystemunitdir/micad.socket" &&
	installed "$inst_systemduserunitdir/micad.service" && installed "$inst_systemduserunitdir/micad.socket"
ok $? "the system and per-user systemd units are installed"
grep -qx "ExecStart=$inst_bindir/micad serve --system" "$dest$inst_systemdsystemunitdir/micad.service"
ok $? "the system service starts the installed micad"

if [ -n "$inst_bashcompletiondir" ]; then
	installed "$inst_bashcompletiondir/micad" "$top_srcdir/contrib/completion/micad" &&
		installed "$inst_bashcompletiondir/micactl" "$top_srcdir/contrib/completion/micactl"
	ok $? "the bash completions are installed in $inst_bashcompletiondir"
else
	skip "the bash completions are installed" "configured --without-bash-completion-dir"
fi
installed "$inst_docdir/examples/mica.conf" "$top_srcdir/contrib/sample/mica.conf" &&
	installed "$inst_docdir/examples/itypes.spec" "$top_srcdir/contrib/sample/itypes.spec" &&
	installed "$inst_docdir/README.md" "$top_srcdir/README.md"
ok $? "the sample mica.conf and itypes.spec and the README are installed in $inst_docdir"

# ---- the installed micad, where it belongs ----

# The installed UI's index page, marked: only this copy says so.
marker="<!-- installed copy: tests/install.sh -->"
echo "$marker" >>"$dest$inst_pkgdatadir/web/index.html"

# run_at_prefix MODE OUT: in a mount namespace, with the source tree's
# web/ and the build tree's tool hidden and at the prefix either the
# DESTDIR tree (MODE installed) or an empty directory (MODE masked), start
# the installed micad serve, fetch / through the address 'micactl ui'
# prints, and run tests/asm/loop with the valgrind engine.  Results in
# OUT.*.
cat >"$TMP/at_prefix.sh" <<'EOF'
set -u
mode=$1 out=$2
mount --make-rprivate / &&
mount -t tmpfs micad-test "$top_srcdir/web" || exit 3
if [ -d "$top_builddir/daemon/trace/vgtool" ]; then
	mount -t tmpfs micad-test "$top_builddir/daemon/trace/vgtool" || exit 3
fi
if [ "$mode" = installed ]; then
	mount --bind "$dest$inst_prefix" "$inst_prefix" || exit 3
else
	mount -t tmpfs micad-test "$inst_prefix" || exit 3
fi
bin=$dest$inst_bindir
mkdir -m 700 "$out.s"
"$bin/micad" serve --socket "$out.s/control.sock" --db "$out.db" --http 127.0.0.1:0 \
	2>"$out.serve.err" &
pid=$!
. "$top_srcdir/tests/wait.sh"
sock_or_dead() { [ -S "$out.s/control.sock" ] || ! kill -0 "$pid" 2>/dev/null; }
wait_until 300 "micad serve's socket" sock_or_dead
url=$("$bin/micactl" ui --no-spawn --socket "$out.s/control.sock" 2>"$out.ui.err")
base=${url%%/\?token=*}
curl -sS --max-time 20 -o "$out.index" -w '%{http_code}' "$base/" >"$out.code" 2>"$out.curl.err"
kill "$pid"
wait "$pid"
"$bin/micad" run -q --no-db --engine=valgrind -o "$out.counts" -- "$ASM/loop" \
	>/dev/null 2>"$out.vg.err"
echo $? >"$out.vg.rc"
EOF

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	skip "the installed micad at its prefix" "needs root and unshare -m (a mount namespace)"
	done_testing
fi
if ! command -v curl >/dev/null; then
	skip "the installed micad at its prefix" "curl is not installed (apt-get install curl)"
	done_testing
fi
# The prefix needs a directory to mount on (distcheck's does not exist
# before its install step): made here and removed again.
made_prefix=
if [ ! -d "$inst_prefix" ]; then
	made_prefix=$inst_prefix
	mkdir -p "$inst_prefix"
fi
export dest inst_prefix inst_bindir ASM top_srcdir top_builddir
for mode in installed masked; do
	unshare -m sh "$TMP/at_prefix.sh" "$mode" "$TMP/$mode"
	is "$?" 0 "the installed micad ran in a mount namespace, $mode prefix"
done
[ -n "$made_prefix" ] && rmdir "$made_prefix"

is "$(cat "$TMP/installed.code")" 200 "at its prefix, the installed micad serves / (GET: 200)"
tail -n 1 "$TMP/installed.index" | grep -qxF "$marker"
ok $? "... the installed index.html, with no --web-root nor source tree to fall back to"
sed 's/^/# serve: /' "$TMP/installed.serve.err" | head -n 5
is "$(cat "$TMP/masked.code")" 404 "with nothing at the prefix, the same micad has no web UI (404)"
if [ "$vgtool" = yes ]; then
	is "$(cat "$TMP/installed.vg.rc") $(counts "$TMP/installed.counts" "[0-9]*")" "0 304 304" \
		"at its prefix, micad run --engine=valgrind runs the installed tool (tests/asm/loop: 304 instructions)"
	sed 's/^/# valgrind engine: /' "$TMP/installed.vg.err" | head -n 5
	is "$(cat "$TMP/masked.vg.rc")" 127 "with nothing at the prefix, --engine=valgrind finds no tool (exit 127)"
	grep -q "valgrind tool is not in $inst_pkglibexecdir/valgrind" "$TMP/masked.vg.err"
	ok $? "... and says where it looked: $(head -c 300 "$TMP/masked.vg.err")"
fi

(cd "$top_builddir" && MAKEFLAGS= $MAKE uninstall DESTDIR="$dest") >"$TMP/uninstall.out" 2>&1
ok $? "make uninstall DESTDIR=... succeeds"
is "$(cd "$dest" && find . ! -type d | sort | tr '\n' ' ')" "" \
	"make uninstall leaves no file or link behind"
done_testing
