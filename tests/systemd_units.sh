#!/bin/sh
# The systemd units in contrib/systemd/ are valid (systemd-analyze verify,
# which also finds the manual pages they name), start the daemon the right
# way, and keep the programs micad runs alive.
. "$top_srcdir/tests/tracer_lib.sh"

if ! command -v systemd-analyze >/dev/null; then
	skip "systemd units verify" "systemd-analyze is not installed"
	done_testing
fi
# Documentation= names micad's manual pages: systemd-analyze runs man(1)
# on each, here on doc/'s pages (installed, they are in the system's).
for m in "$top_srcdir"/doc/*.[1-8]; do
	mkdir -p "$TMP/man/man${m##*.}"
	ln -s "$m" "$TMP/man/man${m##*.}/"
done
MANPATH=$TMP/man
export MANPATH
for u in micad.service micad.socket user/micad.service user/micad.socket; do
	mkdir -p "$TMP/$(dirname "$u")"
	sed -e "s|@bindir@|$top_builddir|g" -e "s|@docdir@|$top_srcdir|g" \
		"$top_srcdir/contrib/systemd/$u.in" > "$TMP/$u"
done
(cd "$TMP" && systemd-analyze verify ./micad.service ./micad.socket) >"$TMP/sys.err" 2>&1
is "$?" 0 "systemd-analyze verify: the system units are valid"
sed 's/^/# /' "$TMP/sys.err"
mkdir -m 700 "$TMP/run"
(cd "$TMP/user" && XDG_RUNTIME_DIR="$TMP/run" systemd-analyze --user verify ./micad.service ./micad.socket) >"$TMP/user.err" 2>&1
is "$?" 0 "systemd-analyze verify: the per-user units are valid"
sed 's/^/# /' "$TMP/user.err"
grep -q "^ExecStart=$top_builddir/micad serve --system$" "$TMP/micad.service"
ok $? "the system service runs 'micad serve --system'"
grep -q "^KillMode=process$" "$TMP/micad.service"
ok $? "stopping the service signals micad only (the programs it runs go on)"
grep -q "^ListenStream=/run/micad/control.sock$" "$TMP/micad.socket" &&
	grep -q "^SocketMode=0666$" "$TMP/micad.socket"
ok $? "the system socket is /run/micad/control.sock, open to all users"
grep -q "^ListenStream=%t/micad/control.sock$" "$TMP/user/micad.socket" &&
	grep -q "^SocketMode=0600$" "$TMP/user/micad.socket"
ok $? "the per-user socket is private, where micactl looks first"
done_testing
