/*
 * micad web UI: chart cards on uPlot (vendor/uplot, MIT): line and bar
 * charts sharing one interval axis (cursor synchronised, a drag selects a
 * range of intervals for every chart), bars, a canvas heatmap and
 * sparklines.  Each card has CSV and JSON download links of the data it
 * shows (the API's view endpoint), and each table a CSV of its cells.  A
 * sampled session's estimates get error bars (their 95% confidence
 * interval) and hollow points where a metric is not estimable.
 */
"use strict";

/* 16 colours told apart on white (no two reds or blues alike). */
const PALETTE = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989",
	"#0a7ea4", "#6e7781", "#fb8500", "#7ee787", "#00205b", "#ff8fa3",
	"#a0522d", "#00c2c7", "#b8a000", "#000000"];

/* Tick steps for byte axes: powers of two and their multiples by 3. */
const POW2_INCRS = [];
for (let k = 0; k < 50; k++)
	POW2_INCRS.push(2 ** k, 3 * 2 ** k);
POW2_INCRS.sort((a, b) => a - b);

const SUPERSCRIPT = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079";
/* pow2(18) = "2¹⁸" */
function pow2(k) {
	return "2" + String(k).split("").map((d) => SUPERSCRIPT[Number(d)]).join("");
}

const charts = {
	list: [],		/* the charts on the interval axis */
	all: [],		/* every uPlot instance, to destroy */
	onRange: null,		/* callback(from, to) when a range is dragged */
};

/* A card: title, plot area, a note, download links. */
function chartCard(parent, title, note, downloads) {
	const plot = el("div", { class: "plot" });
	const foot = el("div", { class: "foot" });
	for (const d of downloads || []) {
		foot.append(el("a", { href: d.href + "&format=csv", download: d.name + ".csv", text: "CSV" }));
		foot.append(el("a", { href: d.href, download: d.name + ".json", text: "JSON" }));
	}
	const card = el("section", { class: "card chart" },
		el("div", { class: "cardhead" }, el("h2", { text: title })),
		plot, note ? el("div", { class: "note", text: note }) : null, foot);
	parent.append(card);
	return { card, plot, foot };
}

/* "a","b""c" */
function csvCell(t) {
	return /[",\r\n]/.test(t) || /^[=+\-@]/.test(t) ? "\"" + (/^[=+\-@]/.test(t) ? "'" : "") +
		t.replace(/"/g, "\"\"") + "\"" : t;
}

/*
 * Download links for a table: CSV of the cells as shown (made in the
 * browser when clicked) and, when the data comes from one API call, its
 * JSON.  Added to the card's .foot (made if missing) or to where.
 */
function tableDownloads(card, table, name, jsonHref, where) {
	let foot = where || card.querySelector(":scope > .foot");
	if (!foot) {
		foot = el("div", { class: "foot" });
		card.append(foot);
	}
	const csv = el("a", { href: "#", download: name + ".csv", text: "CSV", class: "table-csv" });
	csv.addEventListener("click", () => {
		const lines = [...table.querySelectorAll("tr")].map((tr) =>
			[...tr.children].map((c) => csvCell(c.textContent.trim().replace(/\s+/g, " "))).join(","));
		csv.href = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
	});
	foot.append(csv);
	if (jsonHref)
		foot.append(el("a", { href: jsonHref, download: name + ".json", text: "JSON" }));
	table.dataset.download = name;
}

function plotWidth(div) {
	return Math.max(260, Math.floor(div.getBoundingClientRect().width) || 560);
}

function rangeHook(u) {
	const s = u.select;
	if (s.width < 2 || !charts.onRange)
		return;
	const lo = Math.ceil(u.posToVal(s.left, "x"));
	const hi = Math.floor(u.posToVal(s.left + s.width, "x"));
	u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
	if (hi >= lo)
		charts.onRange(lo, hi);
}

/*
 * The error bars of a chart's estimates, drawn on its canvas after uPlot
 * (hooks.draw): for each shown series with ci ({lo, hi, est} along x), a
 * bar with caps from lo to hi at each point that has both (a shaded band
 * instead where points are too dense for bars: more than BAND_POINTS),
 * and a hollow circle at the value where the metric is not estimable (est
 * false).  What was drawn is counted into the card (data-error-bars: the
 * points with an interval, data-ci-style: bars or band,
 * data-not-estimable), which the browser tests read.  order: the uPlot
 * series (after x) as indexes into series.
 */
const BAND_POINTS = 60;

/* "#1f6feb" with alpha a: "rgba(31,111,235,a)" */
function rgba(hex, a) {
	const n = parseInt(hex.slice(1), 16);
	return "rgba(" + (n >> 16 & 255) + "," + (n >> 8 & 255) + "," + (n & 255) + "," + a + ")";
}

function errorBars(card, x, series, order) {
	return (u) => {
		const ctx = u.ctx;
		const px = window.devicePixelRatio || 1;	/* uPlot's canvas pixels per CSS pixel */
		const band = x.length > BAND_POINTS;
		const has = (v) => v !== null && v !== undefined;
		let bars = 0, hollow = 0;
		ctx.save();
		ctx.beginPath();
		ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
		ctx.clip();
		order.forEach((si, j) => {
			const s = series[si], us = u.series[j + 1];
			if (!s.ci || !us.show)
				return;
			const color = s.color || PALETTE[si % PALETTE.length];
			ctx.strokeStyle = color;
			ctx.lineWidth = 1.3 * px;
			const cap = 4 * px;
			if (band) {
				/* Each run of points with an interval: along the
				 * highs, back along the lows. */
				ctx.fillStyle = rgba(color, 0.2);
				for (let k = 0; k < x.length;) {
					if (!has(s.ci.lo[k]) || !has(s.ci.hi[k])) {
						k++;
						continue;
					}
					let e = k;
					while (e + 1 < x.length && has(s.ci.lo[e + 1]) && has(s.ci.hi[e + 1]))
						e++;
					ctx.beginPath();
					for (let i = k; i <= e; i++)
						ctx.lineTo(u.valToPos(x[i], "x", true), u.valToPos(s.ci.hi[i], "y", true));
					for (let i = e; i >= k; i--)
						ctx.lineTo(u.valToPos(x[i], "x", true), u.valToPos(s.ci.lo[i], "y", true));
					ctx.closePath();
					ctx.fill();
					bars += e - k + 1;
					k = e + 1;
				}
			}
			for (let k = 0; k < x.length; k++) {
				const lo = s.ci.lo[k], hi = s.ci.hi[k], v = s.values[k];
				const cx = u.valToPos(x[k], "x", true);
				if (!band && has(lo) && has(hi)) {
					const y0 = u.valToPos(lo, "y", true), y1 = u.valToPos(hi, "y", true);
					ctx.beginPath();
					ctx.moveTo(cx, y0);
					ctx.lineTo(cx, y1);
					ctx.moveTo(cx - cap, y0);
					ctx.lineTo(cx + cap, y0);
					ctx.moveTo(cx - cap, y1);
					ctx.lineTo(cx + cap, y1);
					ctx.stroke();
					bars++;
				}
				if (s.ci.est[k] === false && v !== null && v !== undefined && !s.hollow) {
					ctx.beginPath();
					ctx.arc(cx, u.valToPos(v, "y", true), 4 * px, 0, 2 * Math.PI);
					ctx.fillStyle = "#fff";
					ctx.fill();
					ctx.stroke();
					hollow++;
				}
			}
		});
		ctx.restore();
		card.card.dataset.errorBars = String(bars);
		card.card.dataset.ciStyle = band ? "band" : "bars";
		card.card.dataset.notEstimable = String(hollow + series.filter((s) => s.hollow)
			.reduce((a, s) => a + s.values.filter((v) => v !== null && v !== undefined).length, 0));
	};
}

/* What a chart's estimates are, in words, under its note. */
function ciNote(card, series) {
	const withCi = series.filter((s) => s.ci);
	if (!withCi.length)
		return;
	let n = 0, no = 0;
	for (const s of withCi)
		for (let k = 0; k < s.values.length; k++) {
			if (s.ci.lo[k] !== null && s.ci.lo[k] !== undefined)
				n++;
			if (s.ci.est[k] === false && s.values[k] !== null && s.values[k] !== undefined && !s.hollow)
				no++;
		}
	for (const s of series)
		if (s.hollow)
			no += s.values.filter((v) => v !== null && v !== undefined).length;
	const text = "Sampled: " + (series[0].values.length > BAND_POINTS ? "the shaded bands" : "bars") +
		" are 95% confidence intervals of the estimates (" + fmtInt(n) +
		" with one; none with fewer than 2 bursts)." + (no ? " Hollow: " + fmtInt(no) +
		" not estimable (reuse distances beyond what a burst saw): no interval." : "");
	card.card.insertBefore(el("div", { class: "note ci-note", text }), card.foot);
}

/*
 * x: interval indexes; series: [{label, values, color}]; opts: yLabel,
 * yFmt (tick and legend formatter), stacked (bars stacked to 1), bars,
 * xLabel, xFmt, yRange [min, max], yFrom0 (y from 0 to the largest
 * value), log (y in log2 scale), yIncrs (tick steps).  A series may have
 * a dash pattern (dash: [on, off]), estimates (ci: {lo, hi, est} along
 * x: error bars, errorBars()) and be hollow (bars drawn as outlines: not
 * estimable).  What each chart drew goes to micad.chartInfo (the browser
 * tests read it).
 */
function xyChart(card, x, series, opts) {
	const o = opts || {};
	const yFmt = o.yFmt || fmtNum;
	let data = [x];
	const raw = series.map((s) => s.values);
	if (o.stacked) {
		/* Cumulative sums, drawn from the top band down so each band
		 * covers the one above it only where it should. */
		const cum = [];
		let acc = x.map(() => 0);
		for (const s of series) {
			acc = acc.map((a, i) => a + (s.values[i] || 0));
			cum.push(acc.slice());
		}
		data = data.concat(cum.slice().reverse());
	} else {
		data = data.concat(raw);
	}
	const order = o.stacked ? series.map((s, i) => i).reverse() : series.map((s, i) => i);
	const bars = o.bars || o.stacked ? uPlot.paths.bars({ size: [0.9, 60], align: 0 }) : undefined;
	const useries = [{ label: o.xLabel || "interval", value: (u, v) => v === null ? "\u2013" : (o.xFmt ? o.xFmt(v) : String(v)) }];
	for (const i of order) {
		const s = series[i];
		const color = s.color || PALETTE[i % PALETTE.length];
		useries.push({
			label: s.label,
			stroke: color,
			dash: s.dash,
			width: bars ? (s.hollow ? 1.5 : 0) : 1.5,
			fill: bars ? (s.hollow ? "rgba(255,255,255,0)" : color) : undefined,
			paths: bars,
			points: { show: x.length < 40 && !bars },
			value: (u, v, si, di) => {
				if (di === null || di === undefined)
					return "\u2013";
				const rv = raw[i][di];
				return rv === null || rv === undefined ? "\u2013" : yFmt(rv);
			},
		});
	}
	/* The y range takes in the error bars too. */
	const withCi = series.filter((s) => s.ci);
	let ciMin = Infinity, ciMax = -Infinity;
	for (const s of withCi)
		for (let k = 0; k < x.length; k++) {
			if (s.ci.lo[k] !== null && s.ci.lo[k] !== undefined)
				ciMin = Math.min(ciMin, s.ci.lo[k]);
			if (s.ci.hi[k] !== null && s.ci.hi[k] !== undefined)
				ciMax = Math.max(ciMax, s.ci.hi[k]);
		}
	const hasCi = ciMin <= ciMax;
	let yScale = o.yRange ? { range: o.yRange } : o.yFrom0 ?
		{ range: (u, mn, mx) => { const m = hasCi ? Math.max(mx, ciMax) : mx; return [0, m > 0 ? m * 1.08 : 1]; } } :
		(o.log ? { distr: 3, log: 2 } : {});
	if (hasCi && !o.yRange && !o.yFrom0 && !o.log)
		yScale = { range: (u, mn, mx) => uPlot.rangeNum(mn === null ? ciMin : Math.min(mn, ciMin),
			mx === null ? ciMax : Math.max(mx, ciMax), 0.1, true) };
	const u = new uPlot({
		width: plotWidth(card.plot),
		height: o.height || 240,
		scales: {
			x: { time: false, range: (u, mn, mx) => [mn - (bars ? 0.5 : 0), mx + (bars ? 0.5 : 0)] },
			y: yScale,
		},
		axes: [
			{ label: o.xLabel || "interval", values: (u, vals) => vals.map((v) => Number.isInteger(v) ? (o.xFmt ? o.xFmt(v) : String(v)) : "") },
			Object.assign({ label: o.yLabel, size: 64, values: (u, vals) => vals.map((v) => yFmt(v)) },
				o.yIncrs ? { incrs: o.yIncrs } : {}),
		],
		series: useries,
		cursor: Object.assign({ drag: { x: !o.noSelect, y: false, setScale: false } },
			o.noSync ? {} : { sync: { key: "micad" } }),
		hooks: Object.assign({ setSelect: [rangeHook] },
			withCi.length || series.some((s) => s.hollow) ? { draw: [errorBars(card, x, series, order)] } : {}),
		legend: { live: true },
	}, data, card.plot);
	ciNote(card, series);
	charts.all.push(u);
	if (!o.noSync)
		charts.list.push(u);
	micad.charts++;
	micad.chartInfo.push({
		title: card.card.querySelector("h2").textContent,
		series: series.map((s, i) => {
			let n = 0, last = null;
			s.values.forEach((v, k) => {
				if (v !== null && v !== undefined) {
					n++;
					last = x[k];
				}
			});
			const info = { label: s.label, color: useries[1 + order.indexOf(i)].stroke, points: n, last_x: last };
			if (s.ci) {
				info.ci = s.ci.lo.filter((v) => v !== null && v !== undefined).length;
				info.not_estimable = s.ci.est.filter((v) => v === false).length;
			}
			if (s.hollow)
				info.hollow = true;
			return info;
		}),
	});
	return u;
}

/* Intervals (columns) x buckets (rows), cells coloured by value in [0, max]. */
function heatmap(card, xs, rows, value, opts) {
	const o = opts || {};
	const W = plotWidth(card.plot), H = o.height || 240;
	const dpr = window.devicePixelRatio || 1;
	const c = el("canvas", { width: Math.round(W * dpr), height: Math.round(H * dpr) });
	c.style.width = W + "px";
	c.style.height = H + "px";
	const g = c.getContext("2d");
	g.scale(dpr, dpr);
	const left = 70, right = 92, top = 8, bottom = 38;
	const pw = W - left - right, ph = H - top - bottom;
	let max = 0;
	for (let i = 0; i < xs.length; i++)
		for (let r = 0; r < rows.length; r++)
			max = Math.max(max, value(i, r) || 0);
	const color = (t) => {
		/* white -> blue -> dark red, perceptually ordered enough */
		const stops = [[255, 255, 255], [110, 168, 254], [31, 111, 235], [130, 0, 40]];
		const f = Math.min(1, Math.max(0, t)) * (stops.length - 1);
		const k = Math.min(stops.length - 2, Math.floor(f)), w = f - k;
		const m = stops[k].map((a, j) => Math.round(a + (stops[k + 1][j] - a) * w));
		return "rgb(" + m.join(",") + ")";
	};
	const cw = pw / Math.max(1, xs.length), rh = ph / rows.length;
	for (let i = 0; i < xs.length; i++)
		for (let r = 0; r < rows.length; r++) {
			g.fillStyle = color(max ? (value(i, r) || 0) / max : 0);
			g.fillRect(left + i * cw, top + ph - (r + 1) * rh, Math.ceil(cw), Math.ceil(rh));
		}
	g.strokeStyle = "#98a2b3";
	g.strokeRect(left, top, pw, ph);
	g.fillStyle = "#1d2330";
	g.font = "11px system-ui, 'DejaVu Sans', sans-serif";
	g.textAlign = "right";
	g.textBaseline = "middle";
	const rstep = Math.ceil(rows.length / Math.max(1, Math.floor(ph / 14)));
	for (let r = 0; r < rows.length; r += rstep)
		g.fillText(rows[r], left - 4, top + ph - (r + 0.5) * rh);
	g.textAlign = "center";
	g.textBaseline = "top";
	const xstep = Math.ceil(xs.length / Math.max(1, Math.floor(pw / 50)));
	for (let i = 0; i < xs.length; i += xstep)
		g.fillText(String(xs[i]), left + (i + 0.5) * cw, top + ph + 4);
	g.fillText(o.xLabel || "interval", left + pw / 2, top + ph + 20);
	g.save();
	g.translate(12, top + ph / 2);
	g.rotate(-Math.PI / 2);
	g.fillText(o.yLabel || "", 0, 0);
	g.restore();
	/* colour scale */
	const lx = left + pw + 16;
	for (let k = 0; k < ph; k++) {
		g.fillStyle = color(1 - k / ph);
		g.fillRect(lx, top + k, 12, 1);
	}
	g.strokeRect(lx, top, 12, ph);
	g.fillStyle = "#1d2330";
	g.textAlign = "left";
	g.textBaseline = "top";
	g.fillText((o.fmt || fmtNum)(max), lx + 15, top);
	g.textBaseline = "bottom";
	g.fillText("0", lx + 15, top + ph);
	card.plot.replaceChildren(c);
	micad.charts++;
	return c;
}

function sparkline(values, w, h) {
	const dpr = window.devicePixelRatio || 1;
	const c = el("canvas", { width: Math.round(w * dpr), height: Math.round(h * dpr) });
	c.style.width = w + "px";
	c.style.height = h + "px";
	const g = c.getContext("2d");
	g.scale(dpr, dpr);
	const v = values.filter((x) => x !== null && x !== undefined);
	if (v.length < 2)
		return c;
	const mn = Math.min(...v), mx = Math.max(...v);
	g.strokeStyle = "#1f6feb";
	g.lineWidth = 1.2;
	g.beginPath();
	values.forEach((y, i) => {
		const px = (i / (values.length - 1)) * (w - 2) + 1;
		const py = h - 2 - (mx > mn ? ((y - mn) / (mx - mn)) * (h - 4) : (h - 4) / 2);
		if (i === 0)
			g.moveTo(px, py);
		else
			g.lineTo(px, py);
	});
	g.stroke();
	return c;
}

function setRangeAll(lo, hi) {
	for (const u of charts.list)
		u.setScale("x", { min: lo - 0.5, max: hi + 0.5 });
}

function destroyCharts() {
	for (const u of charts.all)
		u.destroy();
	charts.list = [];
	charts.all = [];
	micad.charts = 0;
	micad.chartInfo = [];
}
