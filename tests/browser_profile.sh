#!/bin/sh
# The profile view of a sample-mode session in headless Chromium, on the
# profile fixture (tests/profile_fixture.c: hot() 75% of 1000 samples,
# compute() 55% total, two threads, a C++ name with <, & and "): the
# sampling record is shown, the flame graph draws the hottest function,
# hovering a frame gives its counts and shares, the search highlights,
# clicking a frame zooms it to the full width, the sample-rate chart shows
# the lost samples, the hot-function table
# lists hot() first at 75%, the thread and time-range choices (the URL's,
# and a selection on the sample-rate chart) refilter both, names stay
# text; no script error, CSP report or console error.  Chromium is driven
# over the DevTools protocol by tests/browser_cdp.py; every wait is on a
# page condition with a deadline.  Screenshots: tests/browser-artifacts/
# profile-*.png of the build tree.
. "$top_srcdir/tests/http_lib.sh"

chrome=
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		chrome=$c
		break
	fi
done
[ -n "$chrome" ] || skip_all "Chromium is not installed (apt-get install chromium)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"

db=$tmp/profile.db
"$top_builddir/tests/profile_fixture" "$db" || {
	echo "Bail out! profile_fixture failed"
	exit 1
}
start_server --web "$top_srcdir/web"
art=$top_builddir/tests/browser-artifacts
mkdir -p "$art"

# st EXPR: a page expression over the parsed #test-status (false until set)
st() {
	echo "(() => { try { const s = JSON.parse(document.getElementById('test-status').textContent); return ($1); } catch (e) { return false; } })()"
}
# drive NAME STEP...: Chromium at 1280x800 (profile and log per NAME)
drive() {
	name=$1
	shift
	python3 "$top_srcdir/tests/browser_cdp.py" --chrome "$chrome" --profile "$tmp/prof-$name" \
		--log "$tmp/$name.log" --size 1280,800 --timeout 60 "$@" 2>"$tmp/$name.err"
	ok $? "$name: Chromium ran every step $(sed 's/^/ /' "$tmp/$name.err" | head -c 300)"
}
console() {
	grep -E '^(error|warning) ' "$tmp/$1.log" || true
}
val() {
	cat "$tmp/$1" 2>/dev/null
}

# Page expressions.  frame(NAME): the first frame of that name.
frame='(n) => [...document.querySelectorAll("#flame g.frame")].find((g) => g.getAttribute("name") === n)'
# width(NAME): its rect's width; 0 when it is not drawn (a frame narrower
# than a pixel is left out).
width="(n) => { const g = ($frame)(n); return g ? Number(g.querySelector('rect').getAttribute('width')) : 0; }"
labels='[...document.querySelectorAll("#flame .d3-flame-graph-label")].map((d) => d.textContent)'
hot_row='[...document.querySelectorAll("#hot-functions tbody tr:first-child td")].map((td) => td.textContent).join("|")'
fire="(n, type) => ($frame)(n).dispatchEvent(new MouseEvent(type, { bubbles: true }))"
highlighted='[...document.querySelectorAll("#flame g.frame")].filter((g) => g.querySelector("rect").getAttribute("fill").toLowerCase() === "#e600e6").map((g) => g.getAttribute("name")).join(",")'
# The sample-rate chart: select 1.5 s .. 2.0 s after the session's start
# (as a drag across it does).
select_range='(() => { const u = profileView.rate; const a = u.valToPos(1.5, "x"), b = u.valToPos(2.0, "x"); u.setSelect({ left: a, top: 0, width: b - a, height: 10 }); return "ok"; })()'

drive profile "go:$base/session.html?token=$tok#session=1" \
	"wait:$(st 's.profile && s.profile.rendered >= 1')" \
	"wait:$labels.includes('hot')" \
	"eval:$tmp/status1=document.getElementById('test-status').textContent" \
	"eval:$tmp/labels=$labels" \
	"eval:$tmp/hotrow=$hot_row" \
	"eval:$tmp/note=document.getElementById('profile-note').textContent" \
	"eval:$tmp/weighting=document.getElementById('profile-weighting').textContent" \
	"eval:$tmp/totals=document.getElementById('profile-totals').textContent" \
	"eval:$tmp/lost=document.getElementById('rate-lost').textContent" \
	"eval:$tmp/legend=[...document.querySelectorAll('#rate .u-legend th')].map((t) => t.textContent).join('|')" \
	"eval:$tmp/w_before=[($width)('all'), ($width)('compute'), ($width)('other')].join(',')" \
	"dom:$tmp/profile.dom" "shot:$art/profile.png" "fullshot:$art/profile-full.png" \
	"layout:$tmp/profile.layout=#rate|#flame|#hot-functions tbody tr" \
	"eval:$tmp/hover=(($fire)('hot', 'mouseover'), document.getElementById('flame-details').textContent)" \
	"eval:$tmp/search0=(document.getElementById('flame-search').value = 'hot', document.getElementById('flame-search').dispatchEvent(new Event('input')), 'ok')" \
	"wait:$highlighted === 'hot,hot'" \
	"eval:$tmp/search=document.getElementById('flame-details').textContent" \
	"shot:$art/profile-search.png" \
	"eval:$tmp/search1=(document.getElementById('flame-search').value = '', document.getElementById('flame-search').dispatchEvent(new Event('input')), 'ok')" \
	"wait:$highlighted === ''" \
	"eval:$tmp/search_cleared=document.getElementById('flame-details').textContent" \
	"eval:$tmp/click=($fire)('compute', 'click') || 'clicked'" \
	"wait:$(st 's.profile.zoomed === "compute"')" \
	"wait:($width)('compute') >= 0.99 * ($width)('all') && ($width)('other') < 1" \
	"eval:$tmp/w_after=[($width)('all'), ($width)('compute'), ($width)('other')].join(',')" \
	"shot:$art/profile-zoomed.png" \
	"eval:$tmp/select=$select_range" \
	"wait:$(st 's.profile.rendered >= 2')" \
	"wait:document.getElementById('profile-totals').textContent.startsWith('620 samples')" \
	"eval:$tmp/hash=location.hash" \
	"eval:$tmp/range=document.getElementById('profile-range').textContent" \
	"eval:$tmp/hotrow2=$hot_row"

python3 "$top_srcdir/tests/layout_check.py" "$art/profile-full.png" "$tmp/profile.layout" \
	"count:#flame=1" "atleast:#flame=600x100" "inside:#flame" "drawn:#flame=3" "inside:#rate" \
	"drawn:#rate=3" "below:#rate,#flame" "inside:#hot-functions tbody tr" \
	"drawn:#hot-functions tbody tr=3" >"$tmp/profile.lc" 2>&1
ok $? "profile-full.png: the rate chart, the flame graph below it and the hot functions in place, drawn $(head -c 300 "$tmp/profile.lc" | tr '\n' ' ')"
status=$(val status1)
has "$status" '"errors":[]' "no script error or CSP violation"
has "$status" '"profile":{"rendered":1,"frames":13,' "flame graph: 13 frames drawn"
has "$(val labels)" '"hot"' "flame graph: the hottest function's name is drawn"
has "$(val labels)" 'Box<int&, \"s\">::operator<(Box const&) const' "flame graph: the C++ name drawn as text"
is "$(val hotrow)" "hot|prof|750|75.00%|750|75.00%" "hot functions: hot() first, 750 samples, 75% self and total"
has "$(val note)" "event in effect cpu-clock — no hardware PMU here (perf_event_open of PERF_TYPE_HARDWARE: ENOENT)" \
	"the event in effect and the note are shown"
has "$(val weighting)" "weighted by time" "the weighting is shown"
is "$(val totals)" "1,000 samples in 6 intervals, 3 lost" "totals of the whole session"
is "$(val lost)" "Samples the kernel lost (the thread's buffer was full), dashed: tid 500: 3 (interval 2: 3)" \
	"sample rate: thread 500 lost 3 samples in interval 2, said under the chart"
is "$(val legend)" "seconds|tid 500|tid 501|lost, tid 500" "sample rate: a dashed series of thread 500's lost samples, none for 501"
w=$(val w_before)
ok "$(echo "$w" | awk -F, '{ r = $2 / $1; print (r > 0.54 && r < 0.56) ? 0 : 1 }')" \
	"before zooming: compute is 55% of the width ($w)"
has "$(val hover)" "hot — /usr/bin/prof: 550 samples (55.00% of all), self 550 (55.00%)" \
	"hover on hot (under compute): its counts and shares"
is "$(val search)" "search “hot”: 750 of 1,000 samples (75.00%)" "search 'hot': both hot frames highlighted, 75% said"
is "$(val search_cleared)" "" "search cleared: nothing highlighted, nothing said"
w=$(val w_after)
ok "$(echo "$w" | awk -F, '{ print ($2 >= 0.99 * $1 && $3 < 1) ? 0 : 1 }')" \
	"click on compute: it zooms to the full width, other collapses ($w)"
has "$(val hash)" "psince=1700000101.25" "a selection on the rate chart: the range is kept in the URL"
has "$(val range)" "all threads, 1.50–2.00 s" "the chosen range is shown"
is "$(val hotrow2)" "hot|prof|460|74.19%|460|74.19%" "hot functions of the range: 460 of 620"
dom=$(cat "$tmp/profile.dom")
has "$dom" '<td class="fn">Box&lt;int&amp;, "s"&gt;::operator&lt;(Box const&amp;) const</td>' \
	"hot functions: the C++ name is text, not markup"
is "$(console profile)" "" "no console error or warning"

# The thread and range from the URL.
drive thread "go:$base/session.html?token=$tok#session=1&ptid=501" \
	"wait:$(st 's.profile && s.profile.rendered >= 1')" \
	"wait:$labels.includes('hot')" \
	"eval:$tmp/t_hotrow=$hot_row" \
	"eval:$tmp/t_sel=document.getElementById('profile-thread').value" \
	"eval:$tmp/t_totals=document.getElementById('profile-totals').textContent"
is "$(val t_sel)" "501" "ptid=501 from the URL: the thread is selected"
is "$(val t_totals)" "340 samples in 2 intervals" "thread 501: 340 samples"
is "$(val t_hotrow)" "hot|prof|200|58.82%|200|58.82%" "thread 501: hot() 200 of 340"
is "$(console thread)" "" "thread view: no console error or warning"

# A step-mode session shows no profile card.
drive step "go:$base/session.html?token=$tok#session=3" \
	"wait:$(st 's.page === "session" && s.tid')" \
	"eval:$tmp/s_hidden=document.getElementById('profile').hidden" \
	"eval:$tmp/s_status=document.getElementById('test-status').textContent"
is "$(val s_hidden)" "true" "a step-mode session: no profile card"
has "$(val s_status)" '"errors":[]' "a step-mode session: no script error"

stop_server
done_testing
