#!/bin/sh
# The web UI in headless Chromium against a real server serving the
# fixture sessions: the browser trades the URL's token for the cookie,
# the pages render their charts (the page writes the count and every
# error, CSP violation included, into #test-status, read with --dump-dom),
# Chromium's console shows no error, and target data stays text.
# Screenshots are kept in tests/browser-artifacts/ of the build tree.
# (Each Chromium run is a new browser session and the cookie is a session
# cookie, so every visit starts from the ?token= URL, as a user would.)
. "$top_srcdir/tests/http_lib.sh"

chrome=
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		chrome=$c
		break
	fi
done
[ -n "$chrome" ] || skip_all "Chromium is not installed (apt-get install chromium)"

make_fixture
start_server --web "$top_srcdir/web" --live 3
art=$top_builddir/tests/browser-artifacts
mkdir -p "$art"

# browse URL WHAT [PROFILE]: dump the DOM after the page settled (virtual
# time), then take a 1280x800 screenshot; console output in $tmp/WHAT.log.
# The profile (cookies) is kept between calls.
browse() {
	prof=$tmp/${3:-profile}
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$prof" --window-size=1280,800 --virtual-time-budget=8000 \
		--enable-logging=stderr --v=0 --dump-dom "$1" >"$tmp/$2.dom" 2>"$tmp/$2.log"
	dom=$(cat "$tmp/$2.dom")
	status=$(sed -n 's/.*<pre id="test-status"[^>]*>\([^<]*\)<\/pre>.*/\1/p' "$tmp/$2.dom")
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$prof" --window-size=1280,800 --virtual-time-budget=8000 \
		--screenshot="$art/$2.png" "$1" >/dev/null 2>&1
}

console_errors() {
	grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' "$tmp/$1.log" |
		grep -v -E 'DevTools|dbus' || true
}

# The session list, reached with the token in the URL (303 + cookie).
browse "$base/?token=$tok" index
has "$status" '"page":"index","sessions":2,"total":2' "session list: uid 1000's 2 sessions rendered"
has "$status" '"errors":[]' "session list: no script error"
is "$(console_errors index)" "" "session list: no console error or CSP report"
has "$dom" '<td class="cmd" title="./prog &quot;a b&quot; &lt;x&gt; &amp; '"'"'y'"'"' \ é">./prog "a b" &lt;x&gt; &amp; '"'"'y'"'"' \ é</td>' \
	"command line shown as text, not markup"
hasnt "$dom" 'root-daemon' "root's session is not shown to uid 1000"
ok $([ -s "$art/index.png" ]; echo $?) "screenshot kept: tests/browser-artifacts/index.png"

# A finished session: 8 charts (ILP, mix, mispredictions, registers,
# strides, footprint, reuse histogram, heatmap) and the MGSim table.
browse "$base/session.html?token=$tok#session=1&tid=100" session
has "$status" '"charts":8,' "session page: 8 charts rendered"
has "$status" '"errors":[]' "session page: no script error"
is "$(console_errors session)" "" "session page: no console error or CSP report"
has "$dom" '<td class="name" title="' "MGSim counter table rendered"
has "$dom" '>n_exec_insns</td><td>instructions</td><td class="num">6,000</td><td class="num">3,000</td>' \
	"MGSim table: n_exec_insns 6000, last interval's delta 3000"
has "$dom" 'pl_eff </span><b>0.75</b>' "MGSim derived pl_eff of the last interval"
has "$dom" 'href="api/sessions/1/views/ilp_per_window?tid=100&amp;from=0&amp;to=2&amp;limit=100000&amp;format=csv"' \
	"CSV download link under the ILP chart"
ok $([ -s "$art/session.png" ]; echo $?) "screenshot kept: tests/browser-artifacts/session.png"

# The range in the URL: only intervals 1-2, thread 100.
browse "$base/session.html?token=$tok#session=1&tid=100&from=1&to=2" range
has "$status" '"charts":8,' "range from the URL: charts rendered"
has "$dom" 'Reuse distance (intervals 1–2)' "range from the URL is applied"
has "$status" '"tid":"100","from":1,"to":2' "the page's state is the URL's range"

# A running session: live MGSim snapshot, polled.
browse "$base/session.html?token=$tok#session=3" live
has "$status" '"errors":[]' "live session page: no script error"
has "$dom" '<span class="badge">live</span>' "live session: MGSim table shows the live snapshot"
has "$dom" '>n_exec_insns</td><td>instructions</td><td class="num">1,007</td>' "live counter value"
is "$(console_errors live)" "" "live session page: no console error"

# Without a token, the page says how to get in.
browse "$base/index.html" noauth fresh-profile
has "$dom" "open the URL that 'micactl ui' prints" "no token: the page explains"

stop_server
done_testing
