#!/bin/sh
# A sampled session's page in headless Chromium (issue 18), on the fixture
# of `tests/http_fixture --sample` (its comment computes every number by
# hand): the header says the session was sampled, by which event, weighted
# by what, and micad's note; the table of the session's estimates has each
# metric's value, 95% CI, half-width, relative half-width and bursts, and
# says which one is not estimable; the charts draw an error bar per
# estimate (counted by the drawing code into the card, and read back from
# the canvas's pixels: the bar's colour on the bar, none beside it) and
# the reuse histogram's not-estimable bucket hollow; the bars follow the
# chosen range; a single-interval thread's summary has a CI column; the
# sample-rate chart shows the samples the kernel lost; a step-mode session
# shows none of it.  No script error, CSP report or console error.
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

db=$tmp/sample.db
"$top_builddir/tests/http_fixture" "$db" --sample || {
	echo "Bail out! http_fixture --sample failed"
	exit 1
}
start_server --web "$top_srcdir/web"
art=$top_builddir/tests/browser-artifacts
mkdir -p "$art"

st() {
	echo "(() => { try { const s = JSON.parse(document.getElementById('test-status').textContent); return ($1); } catch (e) { return false; } })()"
}
drive() {
	name=$1
	shift
	python3 "$top_srcdir/tests/browser_cdp.py" --chrome "$chrome" --profile "$tmp/prof-$name" \
		--log "$tmp/$name.log" --size 1280,900 --timeout 60 "$@" 2>"$tmp/$name.err"
	ok $? "$name: Chromium ran every step $(sed 's/^/ /' "$tmp/$name.err" | head -c 300)"
}
console() {
	grep -E '^(error|warning) ' "$tmp/$1.log" || true
}
val() {
	cat "$tmp/$1" 2>/dev/null
}

# Page expressions.  row(M): the cells of the estimates table's row of
# metric M, joined with |.  card(T): the chart card whose title starts
# with T; its drawing counts.  pixel(T, I, V, DX): the colour on the
# canvas of card T at interval (or bucket) I and value V (DX CSS pixels to
# the right), "r,g,b,a": of the most opaque of the 5 pixels of the row
# around it (a 1.3 px line is spread over two; a copy of the canvas is
# read, made for reading).
row='(m) => [...document.querySelectorAll(`#estimates-table tr[data-metric="${m}"] td`)].map((td) => td.textContent).join("|")'
card='(t) => [...document.querySelectorAll(".chart")].find((c) => c.querySelector("h2").textContent.startsWith(t))'
counts="(t) => { const c = ($card)(t); return c ? [c.dataset.errorBars, c.dataset.notEstimable].join(',') : 'none'; }"
pixel="(t, i, v, dx) => { const c = ($card)(t); const u = charts.all.find((u) => c.contains(u.root)); const cv = document.createElement('canvas'); cv.width = u.ctx.canvas.width; cv.height = u.ctx.canvas.height; const g = cv.getContext('2d', { willReadFrequently: true }); g.drawImage(u.ctx.canvas, 0, 0); const d = g.getImageData(Math.round(u.valToPos(i, 'x', true) + (dx || 0) * devicePixelRatio) - 2, Math.round(u.valToPos(v, 'y', true)), 5, 1).data; let b = 0; for (let k = 4; k < 20; k += 4) if (d[k + 3] > d[b + 3]) b = k; return [d[b], d[b + 1], d[b + 2], d[b + 3]].join(','); }"
cinote="(t) => { const n = ($card)(t).querySelector('.ci-note'); return n ? n.textContent : ''; }"
ready="$(st 's.estimates && s.chartInfo && s.chartInfo.length >= 7')"

drive sample "go:$base/session.html?token=$tok#session=1&tid=600" \
	"wait:$ready" \
	"eval:$tmp/status=document.getElementById('test-status').textContent" \
	"eval:$tmp/sampling=document.getElementById('sampling').textContent" \
	"eval:$tmp/badge=document.getElementById('state').textContent" \
	"eval:$tmp/est_note=document.getElementById('estimates-note').textContent" \
	"eval:$tmp/row_mix=($row)('mix_mem_read')" \
	"eval:$tmp/row_ilp=($row)('ilp_256')" \
	"eval:$tmp/row_rb0=($row)('reuse_bucket_0')" \
	"eval:$tmp/row_rb2=($row)('reuse_bucket_2')" \
	"eval:$tmp/c_mix=($counts)('Instruction mix')" \
	"eval:$tmp/c_ilp=($counts)('ILP per window')" \
	"eval:$tmp/c_mis=($counts)('Branch misprediction')" \
	"eval:$tmp/c_reuse=($counts)('Reuse distance (')" \
	"eval:$tmp/n_mix=($cinote)('Instruction mix')" \
	"eval:$tmp/n_reuse=($cinote)('Reuse distance (')" \
	"eval:$tmp/n_foot=($card)('Memory footprint').querySelector('.note').textContent" \
	"eval:$tmp/px_bar=($pixel)('Instruction mix', 1, 0.37)" \
	"eval:$tmp/px_side=($pixel)('Instruction mix', 1, 0.37, 12)" \
	"eval:$tmp/px_filled=($pixel)('Reuse distance (', 1, 0.1)" \
	"eval:$tmp/px_hollow=($pixel)('Reuse distance (', 2, 0.05)" \
	"eval:$tmp/lost=document.getElementById('rate-lost').textContent" \
	"eval:$tmp/legend=[...document.querySelectorAll('#rate .u-legend th')].map((t) => t.textContent).join('|')" \
	"shot:$art/sample.png" "fullshot:$art/sample-full.png" \
	"layout:$tmp/sample.layout=#sampling|#estimates-table tbody tr|.chart .plot" \
	"eval:$tmp/filter=(document.getElementById('estimates-filter').value = 'mix', document.getElementById('estimates-filter').dispatchEvent(new Event('input')), document.getElementById('estimates-count').textContent)" \
	"eval:$tmp/range=(document.getElementById('from').value = '1', document.getElementById('apply').click(), 'ok')" \
	"wait:$(st 's.from === 1 && s.chartInfo.length >= 7')" \
	"wait:($counts)('Instruction mix') === '2,0'" \
	"eval:$tmp/c_mix2=($counts)('Instruction mix')" \
	"eval:$tmp/status2=document.getElementById('test-status').textContent"

status=$(val status)
has "$status" '"errors":[]' "no script error or CSP violation"
has "$(val sampling)" "Sampled session: the program ran natively, sampled by the event cpu-clock" \
	"header: sampled, by the event cpu-clock"
has "$(val sampling)" "weighted by time (bursts placed by a clock" "header: the weighting, time"
has "$(val sampling)" "no hardware PMU here (perf_event_open of PERF_TYPE_HARDWARE: ENOENT); sampling cpu-clock at 999 Hz" \
	"header: micad's note"
has "$(val badge)" "sampled" "a 'sampled' badge beside the state"
is "$(val est_note)" "every thread's and interval's 8 bursts pooled; U = 812.5 measured and W = 1625 warm-up instructions per burst; confidence level 95%" \
	"estimates: 8 bursts, U = 6500 / 8, W = 13000 / 8"
is "$(val row_mix)" "mix_mem_read|0.3231|[0.2381, 0.408]|±0.08496|26.3%|8|" \
	"estimates table: mix_mem_read 2100 / 6500, its CI (t(7) = 2.3646), half-width, relative half-width, 8 bursts"
is "$(val row_ilp)" "ilp_256|8|[-8.264, 24.26]|±16.26|203.3%|2|" "estimates table: ilp_256 8 -/+ 12.7062 x 1.28"
is "$(val row_rb0)" "reuse_bucket_0|0.2|[0, 1]|±1.271|635.3%|2|" "estimates table: reuse_bucket_0, clamped to [0, 1]"
is "$(val row_rb2)" "reuse_bucket_2|0.1|not estimable|±0.6353|635.3%|2|not estimable: reuse distances beyond what a burst saw (no interval)" \
	"estimates table: reuse_bucket_2 says it is not estimable, no CI"
has "$status" '"estimates":{"rows":4,"not_estimable":1}' "estimates table: 4 metrics, 1 not estimable"
is "$(val filter)" "1 of 4 metrics" "estimates filter: 'mix' leaves one row"
is "$(val c_mix)" "3,0" "instruction mix: 3 error bars drawn (mem_read in intervals 0, 1, 2), none hollow"
is "$(val c_ilp)" "1,0" "ILP: 1 error bar (window 256, interval 0)"
is "$(val c_mis)" "0,0" "mispredictions: no sums, no bar"
is "$(val c_reuse)" "1,1" "reuse histogram: bucket 0's bar, bucket 2 hollow (not estimable)"
has "$status" '{"label":"mem_read","color":"#1f6feb","points":3,"last_x":2,"ci":3,"not_estimable":0}' \
	"chart info: mem_read has 3 intervals"
has "$(val n_mix)" "bars are 95% confidence intervals of the estimates (3 with one" "instruction mix: its note says what the bars are"
has "$(val n_reuse)" "Hollow: 1 not estimable" "reuse histogram: its note says a bucket is not estimable"
has "$(val n_foot)" "a lower bound (no interval)" "footprint: a lower bound, said so"
# Blue: (31, 111, 235), blended with the grid line under it; blank: nothing
# drawn (alpha 0, the page's white shows).
blue() { awk -F, '{ print ($3 > $1 + 80 && $3 > $2 && $4 > 100) ? 0 : 1 }'; }
blank() { awk -F, '{ print ($4 < 20) ? 0 : 1 }'; }
ok "$(val px_bar | blue)" \
	"the canvas: mem_read's blue on its bar at interval 1, 0.37 inside [0, 0.93531] ($(val px_bar))"
ok "$(val px_side | blank)" \
	"the canvas: nothing 12 px beside the bar ($(val px_side))"
ok "$(val px_filled | blue)" \
	"the canvas: reuse bucket 1's bar filled ($(val px_filled))"
ok "$(val px_hollow | blank)" \
	"the canvas: reuse bucket 2's bar hollow inside ($(val px_hollow))"
is "$(val lost)" "Samples the kernel lost (the thread's buffer was full), dashed: tid 600: 50 (interval 1: 50)" \
	"sample rate: the lost samples, per thread and interval"
has "$(val legend)" "lost, tid 600" "sample rate: a lost series in the legend"
is "$(val c_mix2)" "2,0" "range 1-2: the bars follow it (2)"
has "$(val status2)" '"errors":[]' "after the range change: no error"
python3 "$top_srcdir/tests/layout_check.py" "$art/sample-full.png" "$tmp/sample.layout" \
	"inside:#sampling" "drawn:#sampling=3" "count:#estimates-table tbody tr=4" \
	"drawn:#estimates-table tbody tr=3" "below:#sampling,#estimates-table tbody tr" \
	"drawn:.chart .plot=3" >"$tmp/sample.lc" 2>&1
ok $? "sample-full.png: the header's sampling line, the estimates table below it, the charts drawn $(head -c 300 "$tmp/sample.lc" | tr '\n' ' ')"
is "$(console sample)" "" "no console error or warning"

# 70 intervals, too many for bars: a shaded band, the series' colour at a
# fifth of its opacity, between the bounds only.
drive band "go:$base/session.html?token=$tok#session=3" \
	"wait:$ready" \
	"eval:$tmp/b_style=($card)('Instruction mix').dataset.ciStyle + ',' + ($counts)('Instruction mix')" \
	"eval:$tmp/b_note=($cinote)('Instruction mix')" \
	"eval:$tmp/b_in=($pixel)('Instruction mix', 35.5, 0.35)" \
	"eval:$tmp/b_out=($pixel)('Instruction mix', 35.5, 0.45)" \
	"shot:$art/sample-band.png"
is "$(val b_style)" "band,71,0" "70 intervals: a band over the 70 intervals with an estimate (71 points: interval 0 has mix_mem_write's too)"
has "$(val b_note)" "Sampled: the shaded bands are 95% confidence intervals of the estimates (71 with one" \
	"the note says what the band is"
ok "$(val b_in | awk -F, '{ print ($3 > $1 + 80 && $4 >= 30 && $4 <= 90) ? 0 : 1 }')" \
	"the canvas: the band's translucent blue inside [0.214744, 0.385256] ($(val b_in))"
ok "$(val b_out | blank)" "the canvas: nothing above the band ($(val b_out))"
is "$(console band)" "" "band: no console error or warning"

# A thread with a single interval: its summary card has the CI column.
drive single "go:$base/session.html?token=$tok#session=1&tid=601" \
	"wait:$(st 's.summaryCard > 0')" \
	"eval:$tmp/s_head=[...document.querySelectorAll('#summary-card th')].map((t) => t.textContent).join('|')" \
	"eval:$tmp/s_mix=[...document.querySelectorAll('#summary-card tr[data-metric=\"mix_mem_read\"] td')].map((t) => t.textContent).join('|')" \
	"eval:$tmp/s_bursts=[...document.querySelectorAll('#summary-card tr')].find((r) => r.textContent.startsWith('bursts')).textContent"
is "$(val s_head)" "value||95% CI" "single interval: a 95% CI column"
is "$(val s_mix)" "mix: mem_read|60%|– (1 burst)" "single interval: mem_read 60%, one burst: no CI"
is "$(val s_bursts)" "bursts (cut short)1 (0)" "single interval: its bursts"
is "$(console single)" "" "single interval: no console error or warning"

# A step-mode session: no sampling line, no estimates, no bars.
drive step "go:$base/session.html?token=$tok#session=2" \
	"wait:$(st 's.summaryCard > 0')" \
	"eval:$tmp/t_hidden=[document.getElementById('sampling').hidden, document.getElementById('estimates').hidden, document.getElementById('profile').hidden].join(',')" \
	"eval:$tmp/t_head=[...document.querySelectorAll('#summary-card th')].map((t) => t.textContent).join('|')" \
	"eval:$tmp/t_status=document.getElementById('test-status').textContent"
is "$(val t_hidden)" "true,true,true" "step mode: no sampling line, no estimates, no profile"
is "$(val t_head)" "value|" "step mode: no CI column"
has "$(val t_status)" '"errors":[]' "step mode: no script error"

stop_server
done_testing
