#!/bin/sh
# The web UI in headless Chromium against a real server serving the
# fixture sessions: the browser trades the URL's token for the cookie,
# the pages render their charts (the page writes the count and every
# error, CSP violation included, into #test-status), the numbers on the
# pages are the fixture's (read from the DOM), Chromium's console shows
# no error, and target data stays text.  Screenshots are checked against
# the layout the page should have (tests/layout_check.py: the elements at
# their places, each chart and table row drawn), not only kept; they are
# in tests/browser-artifacts/ of the build tree.  Chromium is driven over
# the DevTools protocol (tests/browser_cdp.py), and every read waits for
# the page to report the state it needs, however slow the machine.
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

command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed (it drives Chromium)"

# st EXPR: a page expression over the parsed #test-status (false until set)
st() {
	echo "(() => { try { const s = JSON.parse(document.getElementById('test-status').textContent); return ($1); } catch (e) { return false; } })()"
}
status_js="document.getElementById('test-status').textContent"

# browse URL WHAT CONDITION [PROFILE]: load URL at 1280x800, wait until
# the page's CONDITION (JS) holds, then read #test-status ($status), the
# DOM ($dom), a screenshot of the viewport ($art/WHAT.png), one of the
# whole page ($art/WHAT-full.png) and the layout of the elements the
# checks name ($tmp/WHAT.layout); console output in $tmp/WHAT.log.
layout_sel='#heading|#summary|#charts > section.card:has(canvas)|#charts canvas|#mgsim-table|#mgsim-table tbody tr|#sessions|#sessions tbody tr|header|#banner'
browse() {
	rm -f "$tmp/$2.status" "$tmp/$2.dom"
	python3 "$top_srcdir/tests/browser_cdp.py" --chrome "$chrome" --profile "$tmp/${4:-profile}" \
		--log "$tmp/$2.log" --size 1280,800 --timeout 120 "go:$1" "wait:$3" \
		"eval:$tmp/$2.status=$status_js" "dom:$tmp/$2.dom" "shot:$art/$2.png" \
		"fullshot:$art/$2-full.png" "layout:$tmp/$2.layout=$layout_sel" 2>"$tmp/$2.err"
	ok $? "$2: Chromium loaded the page and it reached its state $(head -c 300 "$tmp/$2.err" | tr '\n' ' ')"
	status=$(cat "$tmp/$2.status" 2>/dev/null)
	dom=$(cat "$tmp/$2.dom" 2>/dev/null)
}

# layout WHAT PNG CHECK...: tests/layout_check.py on a screenshot
layout() {
	what=$1 png=$2
	shift 2
	python3 "$top_srcdir/tests/layout_check.py" "$art/$png" "$tmp/$what.layout" "$@" >"$tmp/$what.lc" 2>&1
}

console_errors() {	# console_errors WHAT: what Chromium reported at level error or warning
	grep -E '^(error|warning) ' "$tmp/$1.log" || true
}

# The session list, reached with the token in the URL (303 + cookie).
browse "$base/?token=$tok" index "$(st 's.page === "index" && s.total === 2')"
has "$status" '"page":"index","sessions":2,"total":2' "session list: uid 1000's 2 sessions rendered"
has "$status" '"errors":[]' "session list: no script error"
is "$(console_errors index)" "" "session list: no console error or CSP report"
has "$dom" '<td class="cmd" title="./prog &quot;a b&quot; &lt;x&gt; &amp; '"'"'y'"'"' \ é">./prog "a b" &lt;x&gt; &amp; '"'"'y'"'"' \ é</td>' \
	"command line shown as text, not markup"
hasnt "$dom" 'root-daemon' "root's session is not shown to uid 1000"
is "$(grep -o '<a href="session.html#session=[0-9]*">' "$tmp/index.dom" | tr -d '\n')" \
	'<a href="session.html#session=3"><a href="session.html#session=1">' \
	"session list: the links of uid 1000's sessions 3 and 1, newest first"
layout index index.png "count:#sessions=1" "count:#sessions tbody tr=2" "inside:#sessions tbody tr" \
	"atleast:#sessions tbody tr=600x10" "disjoint:#sessions tbody tr" "drawn:#sessions tbody tr=3"
ok $? "index.png: the table and its 2 rows in the 1280x800 viewport, drawn $(head -c 300 "$tmp/index.lc" | tr '\n' ' ')"

# A finished session: 8 charts (ILP, mix, mispredictions, registers,
# strides, footprint, reuse histogram, heatmap) and the MGSim table.
browse "$base/session.html?token=$tok#session=1&tid=100" session \
	"$(st 's.page === "session" && s.tid === "100" && s.charts === 8 && s.mgsim')"
has "$status" '"charts":8,' "session page: 8 charts rendered"
has "$status" '"errors":[]' "session page: no script error"
is "$(console_errors session)" "" "session page: no console error or CSP report"
has "$dom" '<td class="name" title="' "MGSim counter table rendered"
has "$dom" '>n_exec_insns</td><td>instructions</td><td class="num">6,000</td><td class="num">3,000</td>' \
	"MGSim table: n_exec_insns 6000, last interval's delta 3000"
has "$dom" 'pl_eff </span><b>0.75</b>' "MGSim derived pl_eff of the last interval"
has "$dom" 'href="api/sessions/1/views/ilp_per_window?tid=100&amp;from=0&amp;to=2&amp;limit=100000&amp;format=csv"' \
	"CSV download link under the ILP chart"
is "$(grep -o '<section class="card[^"]*"><div class="cardhead"><h2>[^<]*' "$tmp/session.dom" |
	sed 's/.*<h2>//' | head -n 8 | wc -l | tr -d ' ')" 8 "session page: 8 chart cards with a title in the DOM"
layout session session-full.png "count:#charts > section.card:has(canvas)=8" "atleast:#charts > section.card:has(canvas)=300x150" \
	"disjoint:#charts > section.card:has(canvas)" "inside:#charts > section.card:has(canvas)" "drawn:#charts canvas=3" \
	"below:#summary,#charts > section.card:has(canvas)" "below:#charts > section.card:has(canvas),#mgsim-table" \
	"count:#mgsim-table tbody tr=21" "drawn:#mgsim-table tbody tr=3"
ok $? "session-full.png: 8 charts side by side without overlap, each drawn, below the summary, the 21 MGSim rows below them $(head -c 300 "$tmp/session.lc" | tr '\n' ' ')"
layout session session.png "inside:#heading" "drawn:#heading=2"
ok $? "session.png: the heading in the 1280x800 viewport, drawn $(head -c 300 "$tmp/session.lc" | tr '\n' ' ')"

# The range in the URL: only intervals 1-2, thread 100.
browse "$base/session.html?token=$tok#session=1&tid=100&from=1&to=2" range \
	"$(st 's.page === "session" && s.tid === "100" && s.from === 1 && s.charts === 8')"
has "$status" '"charts":8,' "range from the URL: charts rendered"
has "$dom" 'Reuse distance (intervals 1–2)' "range from the URL is applied"
has "$status" '"tid":"100","from":1,"to":2' "the page's state is the URL's range"
has "$dom" '<input id="from" type="number" min="0" size="7">' "the range inputs are there"

# A running session: live MGSim snapshot, polled.
browse "$base/session.html?token=$tok#session=3" live \
	"$(st 's.page === "session" && s.mgsim && s.mgsim.source === "live"')"
has "$status" '"errors":[]' "live session page: no script error"
has "$dom" '<span class="badge">live</span>' "live session: MGSim table shows the live snapshot"
has "$dom" '>n_exec_insns</td><td>instructions</td><td class="num">1,007</td>' "live counter value"
is "$(console_errors live)" "" "live session page: no console error"

# Without a token, the page says how to get in.
browse "$base/index.html" noauth \
	"document.body.textContent.includes(\"open the URL that 'micactl ui' prints\")" fresh-profile
has "$dom" "open the URL that 'micactl ui' prints" "no token: the page explains"
hasnt "$dom" '<td class="cmd"' "no token: no session shown"

stop_server
done_testing
