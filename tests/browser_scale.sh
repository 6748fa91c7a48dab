#!/bin/sh
# The web UI's issue-22 cases in headless Chromium (tests/browser_cdp.py),
# each read from the page (its #test-status, the DOM, the charts' pixels),
# never from a screenshot's size:
# * the instruction mix of groups that overlap (150% in all): a line per
#   group, every group's colour drawn in the chart (stacked to 100%, the
#   last groups were cut off);
# * simulated IPC over a range of 2,000 intervals reaches the range's last
#   interval (it stopped at the 1,000th);
# * the misprediction legend: a colour of its own for each predictor
#   (GAg/4, GAg/8 and GAg/12 alike before);
# * the overview of a 3,000-interval thread (server buckets), and a drag
#   across it choosing the range of the charts;
# * a thread of a single interval: a summary card, no charts;
# * a session that failed to start: why, and no request error;
# * every table shown with rows has a download link;
# * the layout at 1280 px (two chart columns) and 800 px (one column; the
#   session list, the MGSim table and the page no wider than the window).
# Screenshots in tests/browser-artifacts/: scale-*.png.
. "$top_srcdir/tests/http_lib.sh"

chrome=
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		chrome=$c
		break
	fi
done
[ -n "$chrome" ] || skip_all "Chromium is not installed (apt-get install chromium)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed (it drives Chromium)"

art=$top_builddir/tests/browser-artifacts
mkdir -p "$art"
db=$tmp/ui.db
"$top_builddir/tests/http_fixture" "$db" --ui || { echo "Bail out! http_fixture --ui failed"; exit 1; }
start_server --web "$top_srcdir/web"

# st EXPR: a page expression over the parsed #test-status (false until set)
st() {
	echo "(() => { try { const s = JSON.parse(document.getElementById('test-status').textContent); return ($1); } catch (e) { return false; } })()"
}
status_js="document.getElementById('test-status').textContent"
# drive NAME SIZE STEP...
drive() {
	name=$1
	size=$2
	shift 2
	python3 "$top_srcdir/tests/browser_cdp.py" --chrome "$chrome" --profile "$tmp/prof-$name" \
		--log "$tmp/$name.log" --size "$size" --timeout 120 "$@" 2>"$tmp/$name.err"
	ok $? "$name: Chromium ran every step $(head -c 300 "$tmp/$name.err")"
}
console() {
	grep -E '^(error|warning) ' "$tmp/$1.log" || true
}
# jq-less: the value of a JS expression over the saved status.
sj() {
	python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print($2)" "$tmp/$1" 2>&1
}

# Pixels of each series' colour in a chart's canvas, by title:
# {"label": count, ...}.
pixels_js() {
	echo "(() => { const card = [...document.querySelectorAll('.card.chart')].find((c) => c.querySelector('h2').textContent === '$1');
	const info = JSON.parse(document.getElementById('test-status').textContent).chartInfo.find((c) => c.title === '$1');
	const cv = card.querySelector('canvas'); const g = cv.getContext('2d');
	const d = g.getImageData(0, 0, cv.width, cv.height).data; const out = {};
	for (const s of info.series) {
		const h = s.color.replace('#', ''); const rgb = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
		let n = 0;
		for (let i = 0; i < d.length; i += 4)
			if (Math.abs(d[i] - rgb[0]) < 30 && Math.abs(d[i + 1] - rgb[1]) < 30 && Math.abs(d[i + 2] - rgb[2]) < 30 && d[i + 3] > 200)
				n++;
		out[s.label] = n;
	}
	return JSON.stringify(out); })()"
}

ready='s.page === "session" && s.chartInfo && s.chartInfo.length >= 8'
# tables_js NAME: the tables shown with rows, each with whether its card
# has a CSV download link.
tables_js() {
	echo "eval:$tmp/tables.$1=JSON.stringify([...document.querySelectorAll('main table.grid')].filter((t) => t.offsetParent !== null && t.querySelector('tbody tr')).map((t) => [t.id || t.className, !!t.closest('.card').querySelector('a.table-csv')]))"
}
# tables_ok NAME: 'ok' when there are tables and each has its link.
tables_ok() {
	python3 -c 'import json, sys; t = json.load(open(sys.argv[1])); print("ok" if t and all(x[1] for x in t) else t)' "$tmp/tables.$1"
}
drive wide 1280,800 "go:$base/session.html?token=$tok#session=1&tid=700&from=1000&to=2999" \
	"wait:$(st "$ready")" "eval:$tmp/wide.status=$status_js" \
	"eval:$tmp/mix.px=$(pixels_js 'Instruction mix')" \
	"eval:$tmp/layout.wide=JSON.stringify([...document.querySelectorAll('#charts .card.chart:not(.overview)')].slice(0, 3).map((c) => { const r = c.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top)]; }))" \
	"fullshot:$art/scale-session.png" \
	"eval:$tmp/drag=(() => { const u = charts.all[0]; const l = u.valToPos(100, 'x'), r = u.valToPos(400, 'x'); u.setSelect({ left: l, width: r - l, top: 0, height: 10 }); return 'dragged'; })()" \
	"wait:$(st "s.from < 1000 && $ready")" "eval:$tmp/dragged.status=$status_js" \
	"eval:$tmp/hash=location.hash" "shot:$art/scale-session-dragged.png"
is "$(sj wide.status 's["errors"]')" "[]" "no script error"
is "$(console wide)" "" "no console error or warning"

# The instruction mix: 5 groups (150%), each a line of its own colour.
is "$(sj wide.status '[(x["label"], x["points"], x["last_x"]) for c in s["chartInfo"] if c["title"] == "Instruction mix" for x in c["series"]]')" \
	"[('mem_read', 2000, 2999), ('arithmetic', 2000, 2999), ('sse', 2000, 2999), ('fp', 2000, 2999), ('other', 2000, 2999)]" \
	"instruction mix: every group is a series over the whole range"
is "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sorted(k for k, v in d.items() if v < 100))' "$tmp/mix.px")" "[]" \
	"instruction mix: every group's colour is drawn ($(cat "$tmp/mix.px"))"
is "$(sj wide.status '[c for c in s["chartInfo"] if c["title"] == "Instruction mix"][0]["series"][3]["color"] != [c for c in s["chartInfo"] if c["title"] == "Instruction mix"][0]["series"][4]["color"]')" \
	True "... in colours of their own"

# Simulated IPC reaches the last interval of a 2,000-interval range.
is "$(sj wide.status '[(x["points"], x["last_x"]) for c in s["chartInfo"] if c["title"] == "Simulated IPC" for x in c["series"]]')" \
	"[(2000, 2999)]" "simulated IPC: 2,000 points, the line reaches interval 2999"

# The misprediction legend tells the predictors apart.
is "$(sj wide.status 'len(set(x["color"] for c in s["chartInfo"] if c["title"].startswith("Branch mispred") for x in c["series"]))')" \
	12 "misprediction legend: 12 predictors, 12 colours"
is "$(sj wide.status 'sorted(x["label"] for c in s["chartInfo"] if c["title"].startswith("Branch mispred") for x in c["series"] if x["label"].startswith("GAg"))')" \
	"['GAg/12', 'GAg/4', 'GAg/8']" "... GAg/4, GAg/8 and GAg/12 each named"

# The overview and its brush.
is "$(sj wide.status '(s["overview"]["from"], s["overview"]["to"], s["overview"]["buckets"], s["overview"]["width"])')" \
	"(0, 2999, 600, 5)" "overview: the whole thread (0-2999) in 600 buckets of 5"
is "$(sj dragged.status '(abs(s["from"] - 100) <= 5, abs(s["to"] - 400) <= 5)')" "(True, True)" \
	"a drag across the overview chooses the range (about 100-400: $(sj dragged.status '(s["from"], s["to"])'))"
has "$(cat "$tmp/hash")" "from=" "... kept in the URL ($(cat "$tmp/hash"))"

# Layout.
is "$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(c[0][1] == c[1][1] and c[1][0] > c[0][0] and c[2][1] > c[0][1])' "$tmp/layout.wide")" \
	True "1280 px: charts in two columns ($(cat "$tmp/layout.wide"))"

# A single-interval thread: a summary card.
drive single 1280,800 "go:$base/session.html?token=$tok#session=2" \
	"wait:$(st 's.page === "session" && s.summaryCard > 0')" "eval:$tmp/single.status=$status_js" \
	"dom:$tmp/single.dom" "$(tables_js single)" "shot:$art/scale-single.png"
is "$(sj single.status '(s["charts"], s["errors"])')" "(0, [])" "one interval: no chart, no error"
has "$(cat "$tmp/single.dom")" 'The whole run in one interval' "... a summary card instead"
has "$(cat "$tmp/single.dom")" '<td>ILP, window 256</td><td class="num">4.8</td>' "... with the values (ILP 600 / 125)"
is "$(tables_ok single)" ok "... and a CSV download ($(cat "$tmp/tables.single"))"

# A session that failed to start.
drive failed 1280,800 "go:$base/session.html?token=$tok#session=3" \
	"wait:$(st 's.page === "session" && s.error')" "eval:$tmp/failed.status=$status_js" \
	"eval:$tmp/failed.text=document.getElementById('session-error').hidden ? 'hidden' : document.getElementById('session-error').textContent" \
	"shot:$art/scale-failed.png"
is "$(cat "$tmp/failed.text")" "The session failed: cannot run '/nonexistent/prog': No such file or directory" \
	"a failed session says why"
is "$(sj failed.status 's["errors"]')" "[]" "... and makes no failing request (no 'parameter tid')"
stop_server

# 800 px, with the MGSim table (the hand-checked fixture).
make_fixture
start_server --web "$top_srcdir/web" --live 3
drive narrow 800,800 "go:$base/?token=$tok" "wait:$(st 's.page === "index" && s.sessions >= 1')" \
	"eval:$tmp/index.w=JSON.stringify([document.documentElement.scrollWidth, Math.round(document.getElementById('sessions').getBoundingClientRect().right), Math.round(document.querySelector('main .card').getBoundingClientRect().right)])" \
	"$(tables_js index)" "shot:$art/scale-index-800.png" \
	"go:$base/session.html#session=1&tid=100" "wait:$(st 's.page === "session" && s.mgsim')" \
	"eval:$tmp/session.w=JSON.stringify([document.documentElement.scrollWidth, Math.round(document.getElementById('mgsim-table').getBoundingClientRect().right), Math.round(document.getElementById('mgsim').getBoundingClientRect().right)])" \
	"eval:$tmp/layout.narrow=JSON.stringify([...document.querySelectorAll('#charts .card.chart')].slice(0, 2).map((c) => Math.round(c.getBoundingClientRect().left)))" \
	"$(tables_js session)" "fullshot:$art/scale-session-800.png"
is "$(python3 -c 'import json, sys; w = json.load(open(sys.argv[1])); print(w[0] <= 800 and w[1] <= w[2])' "$tmp/index.w")" True \
	"800 px: the session list fits (page, table right edge, card right edge: $(cat "$tmp/index.w"))"
is "$(python3 -c 'import json, sys; w = json.load(open(sys.argv[1])); print(w[0] <= 800 and w[1] <= w[2])' "$tmp/session.w")" True \
	"800 px: the MGSim table fits (page, table right edge, card right edge: $(cat "$tmp/session.w"))"
is "$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(c[0] == c[1])' "$tmp/layout.narrow")" True \
	"800 px: charts in one column ($(cat "$tmp/layout.narrow"))"
is "$(tables_ok index)" ok "the session list has a CSV download ($(cat "$tmp/tables.index"))"
is "$(tables_ok session)" ok "the MGSim table has a CSV download ($(cat "$tmp/tables.session"))"
stop_server
done_testing
