/*
 * micad web UI, one session: summary (and why it failed, if it did),
 * thread and interval-range selector (kept in the URL hash:
 * #session=N&tid=T&from=A&to=B), an overview of the whole thread
 * (downsampled by the server: min, max and mean per bucket; drag across it
 * to choose the range), the per-interval charts of the MICA analyses over
 * the range, the reuse-distance histogram and heatmap, the MGSim counter
 * table, or a summary card when the thread has a single interval;
 * refreshed every 2 s while the session runs.  A sampled session says so
 * in its header (the event, the weighting, the note), lists its estimates
 * over the whole session, and its charts draw each estimate's 95%
 * confidence interval as an error bar (hollow where it is not estimable).
 */
"use strict";

const MAX_INTERVALS = 2000;	/* shown at once; older ones via from/to */
const DEFAULT_WINDOW = 500;	/* the range shown first: the latest intervals */
const OVERVIEW_BUCKETS = 600;
let state = hashState();
let session = null;
let threads = [];
let lastIntervals = -1;
let pollTimer = null;
let strideLe = "64";

const sid = () => encodeURIComponent(state.session || "");
const base = () => "api/sessions/" + sid();
const sampled = () => !!session && session.engine === "sample";

function cols(view) {
	const out = {};
	view.columns.forEach((c, i) => { out[c] = view.rows.map((r) => r[i]); });
	out.length = view.rows.length;
	return out;
}

/* Group rows into series keyed by key(row i), values on the interval axis. */
function pivot(c, xs, keyOf, valOf) {
	const pos = new Map(xs.map((x, i) => [x, i]));
	const series = new Map();
	for (let i = 0; i < c.length; i++) {
		const k = keyOf(i);
		if (!series.has(k))
			series.set(k, xs.map(() => null));
		const p = pos.get(c.interval[i]);
		if (p !== undefined)
			series.get(k)[p] = valOf(i);
	}
	return series;
}

function viewQuery(name) {
	return base() + "/views/" + name + "?tid=" + encodeURIComponent(state.tid) +
		"&from=" + state.from + "&to=" + state.to + "&limit=100000";
}

/* Every row of a view over the range, page after page. */
async function viewRows(name) {
	const v = await api(viewQuery(name));
	while (v.next_offset !== null) {
		const more = await api(viewQuery(name) + "&offset=" + v.next_offset);
		v.rows.push(...more.rows);
		v.next_offset = more.next_offset;
	}
	return v;
}

function summary(s) {
	document.getElementById("title").textContent = "session " + s.id + ": " + s.command;
	document.title = "micad: session " + s.id;
	document.getElementById("heading").textContent = "Session " + s.id;
	document.getElementById("state").replaceChildren(stateBadge(s));
	const end = s.ended_at || (s.running ? Date.now() / 1000 : null);
	const items = [
		["command", s.command], ["mode", s.mode], ["pid", s.pid === null ? "\u2013" : s.pid], ["uid", s.uid],
		["started (UTC)", fmtTime(s.started_at)],
		["duration", end ? fmtDuration(end - s.started_at) : "\u2013"],
		["exit status", s.exit_status === null ? "\u2013" : s.exit_status],
		["threads", fmtInt(s.threads)],
		["intervals", fmtInt(s.live ? s.live.intervals : s.intervals)],
		["instructions", fmtInt(s.live ? s.live.instructions : s.instructions)],
		["analyses", (s.analyses || []).filter((a) => a !== "sched").join(", ") || "\u2013"],
		["engine", s.engine || "step"],
	];
	/* Why the session failed, why results are missing (issue 20). */
	if (s.error)
		items.push(["error", s.error]);
	if (s.incomplete)
		items.push(["incomplete", s.incomplete]);
	document.getElementById("summary").replaceChildren(...items.map(([k, v]) =>
		el("div", {}, el("span", { class: "muted", text: k + " " }), el("b", { text: String(v) }))));
	document.getElementById("live").textContent = s.live ? "live: " + s.live.state : "";
	samplingHeader(s);
	/* Why a session ended in error, as micad reported it. */
	const err = document.getElementById("session-error");
	err.hidden = !s.error;
	err.textContent = s.error ? "The session failed: " + s.error : "";
}

/* A sampled session says so under its summary: the event that sampled
 * it, what its estimates are weighted by, and micad's note. */
function samplingHeader(s) {
	const d = document.getElementById("sampling");
	const on = s.engine === "sample";
	d.hidden = !on;
	if (!on) {
		d.replaceChildren();
		return;
	}
	document.getElementById("state").append(el("span", { class: "state sampled-badge", text: "sampled" }));
	const why = s.weighting === "instructions" ? "bursts placed by retired-instruction counts" :
		s.weighting === "time" ? "bursts placed by a clock: slow code weighs more than its share of instructions" :
		"unknown";
	d.replaceChildren(
		el("b", { text: "Sampled session" }), ": the program ran natively, sampled by the event ",
		el("b", { class: "event", text: s.sample_event || "?" }),
		"; MICA's metrics are estimates from stepped bursts, each with its 95% confidence interval, weighted by ",
		el("b", { class: "weighting", text: s.weighting || "?" }), " (" + why + ").",
		s.sample_note ? el("div", { class: "note", text: s.sample_note }) : null);
}

/*
 * The estimates of a sampled session over its whole run (GET
 * .../estimates: every thread's and interval's bursts pooled), one row per
 * metric; a metric not estimable (a reuse distance beyond what a burst
 * saw) says so and has no interval.
 */
async function renderEstimates() {
	const card = document.getElementById("estimates");
	if (!sampled()) {
		card.hidden = true;
		micad.estimates = null;
		return;
	}
	card.hidden = false;
	const e = await api(base() + "/estimates");
	const pct = (v) => v === null || v === undefined ? "\u2013" : fmtNum(v * 100) + "%";
	document.getElementById("estimates-note").textContent = "every thread's and interval's " +
		fmtInt(e.n_bursts) + " bursts pooled; U = " + fmtNum(e.U) + " measured and W = " + fmtNum(e.W) +
		" warm-up instructions per burst; confidence level " + fmtNum(e.level * 100) + "%";
	let notEstimable = 0;
	const rows = (e.estimates || []).map((m) => {
		let ci, note = "";
		if (!m.estimable) {
			ci = "not estimable";
			note = "not estimable: reuse distances beyond what a burst saw (no interval)";
			notEstimable++;
		} else if (m.ci_low === null || m.ci_high === null) {
			ci = "\u2013";
			note = m.n_bursts < 2 ? "fewer than 2 bursts: no interval" : "no interval";
		} else {
			ci = "[" + fmtNum(m.ci_low) + ", " + fmtNum(m.ci_high) + "]";
		}
		return el("tr", { "data-metric": m.metric, class: m.estimable ? "" : "not-estimable" },
			el("td", { class: "metric", text: m.metric }),
			el("td", { class: "num", text: fmtNum(m.value) }),
			el("td", { class: "num ci", text: ci }),
			el("td", { class: "num", text: m.se === null ? "\u2013" : "\u00b1" + fmtNum(m.half_width) }),
			el("td", { class: "num", text: pct(m.rel_half_width) }),
			el("td", { class: "num", text: fmtInt(m.n_bursts) }),
			el("td", { class: "muted", text: note }));
	});
	document.querySelector("#estimates-table tbody").replaceChildren(...rows);
	filterEstimates();
	const dl = document.getElementById("estimates-downloads");
	if (!dl.childElementCount)
		tableDownloads(card, document.getElementById("estimates-table"), "micad-session-" +
			state.session + "-estimates", base() + "/estimates", dl);
	micad.estimates = { rows: rows.length, not_estimable: notEstimable };
}

function filterEstimates() {
	const f = document.getElementById("estimates-filter").value.trim().toLowerCase();
	const rows = [...document.querySelectorAll("#estimates-table tbody tr")];
	let shown = 0;
	for (const tr of rows) {
		tr.hidden = !!f && !tr.dataset.metric.toLowerCase().includes(f);
		shown += !tr.hidden;
	}
	document.getElementById("estimates-count").textContent = (f ? shown + " of " : "") + rows.length +
		(rows.length === 1 ? " metric" : " metrics");
}

/*
 * A sampled session's estimates of each metric over the range, along xs
 * (GET .../series: {lo, hi, est} per interval), fetched side by side;
 * an empty map for a step-mode session.
 */
async function ciSeries(names, xs) {
	const out = new Map();
	if (!sampled())
		return out;
	const pos = new Map(xs.map((x, i) => [x, i]));
	await Promise.all([...new Set(names)].map(async (m) => {
		let s;
		try {
			s = await api(base() + "/series?metric=" + encodeURIComponent(m) + "&tid=" +
				encodeURIComponent(state.tid) + "&from=" + state.from + "&to=" + state.to);
		} catch (e) {
			if (e.status === 404)
				return;
			throw e;
		}
		const t = s.threads[0];
		if (!t || !t.ci_low)
			return;
		const c = { lo: xs.map(() => null), hi: xs.map(() => null), est: xs.map(() => null) };
		t.interval.forEach((iv, k) => {
			const p = pos.get(iv);
			if (p === undefined)
				return;
			c.lo[p] = t.ci_low[k];
			c.hi[p] = t.ci_high[k];
			c.est[p] = t.estimable[k];
		});
		out.set(m, c);
	}));
	return out;
}

function threadSelector() {
	const sel = document.getElementById("thread");
	sel.replaceChildren(...threads.map((t) => el("option", { value: t.tid,
		text: "tid " + t.tid + (t.tid === t.pid ? "" : " (pid " + t.pid + ")") +
			" \u2013 " + fmtInt(t.intervals) + " intervals" })));
	sel.value = state.tid;
}

function currentThread() {
	return threads.find((t) => String(t.tid) === String(state.tid));
}

function clampRange() {
	const t = currentThread();
	if (!t || t.intervals === 0)
		return;
	const first = t.first_interval, last = t.last_interval;
	let from = state.from === undefined || state.from === "" ? NaN : Number(state.from);
	let to = state.to === undefined || state.to === "" ? NaN : Number(state.to);
	if (Number.isNaN(to) || to > last) to = last;
	if (Number.isNaN(from) || from < first) from = Math.max(first, to - DEFAULT_WINDOW + 1);
	if (from > to) from = to;
	if (to - from + 1 > MAX_INTERVALS) from = to - MAX_INTERVALS + 1;
	state.from = from;
	state.to = to;
	document.getElementById("from").value = from;
	document.getElementById("to").value = to;
	setHashState(state);
}

async function renderCharts() {
	const parent = document.getElementById("charts");
	destroyCharts();
	parent.replaceChildren();
	const t = currentThread();
	if (!t || t.intervals === 0) {
		parent.append(el("section", { class: "card wide", text: !t ? (session && session.error ?
			"No thread was traced." : "No thread recorded yet.") :
			"No finished interval for this thread yet." }));
		return;
	}
	if (t.intervals === 1) {
		await summaryCard(parent, t);
		return;
	}
	if (t.last_interval - t.first_interval + 1 > DEFAULT_WINDOW)
		await overviewCard(parent, t);
	const names = ["ilp_per_window", "instruction_mix", "misprediction_rate", "register_traffic",
		"stride_cdf", "footprint_bytes", "reuse_distance"];
	const views = await Promise.all(names.map((n) => viewRows(n).then(cols)));
	const [ilp, mix, mis, reg, str, foot, reuse] = views;
	const xs = [];
	for (let i = Number(state.from); i <= Number(state.to); i++)
		xs.push(i);
	const dl = (n) => [{ href: viewQuery(n), name: "micad-session-" + state.session + "-" + n }];
	const pct = (v) => fmtNum(v * 100) + "%";
	const les = [...new Set(str.le)].sort((a, b) => a - b);
	if (les.length && !les.map(String).includes(strideLe))
		strideLe = String(les[Math.min(2, les.length - 1)]);
	/* A sampled session: the estimates' intervals of what the charts
	 * draw, named as the metric view names them. */
	const mixName = (i) => mix.grp_name[i] || ("group " + mix.grp[i]);
	const mixMetric = new Map();
	for (let i = 0; i < mix.length; i++)
		mixMetric.set(mixName(i), "mix_" + (mix.grp_name[i] || mix.grp[i]));
	const ci = await ciSeries([
		...ilp.analysis.map((a, i) => a + "_" + ilp.window[i]),
		...mixMetric.values(),
		...mis.organization.map((o, i) => "mispredict_" + o + "_" + mis.history[i]),
		...(reg.length ? ["avg_register_operands", "avg_degree_of_use"] : []),
		...[...new Set(str.kind)].map((k) => "stride_" + k + "_le_" + strideLe),
	], xs);
	const withCi = (metric, s) => Object.assign(s, ci.has(metric) ? { ci: ci.get(metric) } : {});

	if (ilp.length) {
		const s = pivot(ilp, xs, (i) => ilp.analysis[i] + " " + ilp.window[i], (i) => ilp.ilp[i]);
		xyChart(chartCard(parent, "ILP per window size", "instructions per cycle of an ideal machine with that many instructions in flight", dl("ilp_per_window")),
			xs, [...s].map(([k, v]) => withCi(k.replace(" ", "_"), { label: "window " + k.split(" ")[1] + (k.startsWith("ilp_one") ? " (ilp_one)" : ""), values: v })),
			{ yLabel: "ILP (insns / cycle)" });
	}
	if (mix.length) {
		/* Groups overlap (an instruction can read memory and be
		 * arithmetic): one line per group, never stacked, so that each
		 * stays visible with its own value. */
		const s = pivot(mix, xs, mixName, (i) => mix.fraction[i]);
		xyChart(chartCard(parent, "Instruction mix", "share of the interval's instructions in each itypes group; groups overlap, so the shares need not add up to 100%", dl("instruction_mix")),
			xs, [...s].map(([k, v]) => withCi(mixMetric.get(k), { label: k, values: v })),
			{ yLabel: "share of insns", yFmt: pct, yFrom0: true });
	}
	if (mis.length) {
		const s = pivot(mis, xs, (i) => mis.organization[i] + "/" + mis.history[i], (i) => mis.rate[i]);
		/* A colour of its own per predictor (the legend shows colours,
		 * not dashes), a dash per history length besides. */
		const hists = [...new Set(mis.history)].sort((a, b) => a - b);
		const dashes = [undefined, [6, 3], [2, 2], [8, 3, 2, 3]];
		xyChart(chartCard(parent, "Branch misprediction rate per predictor", "PPM predictors: organisation / history bits (dash: history length); mispredictions per conditional branch", dl("misprediction_rate")),
			xs, [...s].map(([k, v], i) => {
				const h = k.split("/")[1];
				return withCi("mispredict_" + k.replace("/", "_"), { label: k, values: v,
					color: PALETTE[i % PALETTE.length], dash: dashes[hists.indexOf(Number(h)) % dashes.length] });
			}),
			{ yLabel: "mispredicted (%)", yFmt: pct });
	}
	if (reg.length) {
		const s1 = pivot(reg, xs, () => "a", (i) => reg.avg_operands[i]).get("a");
		const s2 = pivot(reg, xs, () => "a", (i) => reg.avg_degree_of_use[i]).get("a");
		xyChart(chartCard(parent, "Register traffic", "register operands read per instruction, and reads of each written value (degree of use)", dl("register_traffic")),
			xs, [withCi("avg_register_operands", { label: "operands / instruction", values: s1 }),
				withCi("avg_degree_of_use", { label: "uses / value", values: s2 })],
			{ yLabel: "average count" });
	}
	if (str.length) {
		const c = chartCard(parent, "Memory access strides", "probability that the distance to the previous access (same instruction: local; any: global) is at most the chosen size", dl("stride_cdf"));
		const sel = el("select", {}, ...les.map((le) => el("option", { value: le, text: "\u2264 " + fmtBytes(le) })));
		sel.value = strideLe;
		sel.addEventListener("change", () => { strideLe = sel.value; render(); });
		c.card.querySelector(".cardhead").append(el("label", { class: "muted" }, "stride ", sel));
		const s = pivot(str, xs, (i) => String(str.le[i]) === strideLe ? str.kind[i] : null, (i) => str.probability[i]);
		s.delete(null);
		xyChart(c, xs, [...s].map(([k, v]) => withCi("stride_" + k + "_le_" + strideLe, { label: k.replace("_", " "), values: v })),
			{ yLabel: "P(stride \u2264 " + fmtBytes(Number(strideLe)) + ")", yFmt: pct, yRange: [0, 1] });
	}
	if (foot.length) {
		const keys = [["data_block_bytes", "data (blocks)"], ["data_page_bytes", "data (pages)"],
			["insn_block_bytes", "instructions (blocks)"], ["insn_page_bytes", "instructions (pages)"]];
		xyChart(chartCard(parent, "Memory footprint", "distinct bytes touched in the interval, counted in whole blocks and pages" +
			(sampled() ? "; sampled: what the bursts touched, a lower bound (no interval)" : ""), dl("footprint_bytes")),
			xs, keys.map(([k, label]) => ({ label, values: pivot(foot, xs, () => "a", (i) => foot[k][i]).get("a") })),
			{ yLabel: "bytes", yFmt: fmtBytes, yIncrs: POW2_INCRS });
	}
	if (reuse.length) {
		const nb = Math.max(...reuse.bucket) + 1;
		const counts = new Array(nb).fill(0);
		const refsBy = new Map();
		for (let i = 0; i < reuse.length; i++) {
			counts[reuse.bucket[i]] += reuse.count[i];
			refsBy.set(reuse.interval[i], reuse.refs[i]);
		}
		let refs = 0;
		for (const v of refsBy.values())
			refs += v;
		const bucketLabel = (b) => b === 0 ? "<2" : (b >= 18 ? "\u2265" + pow2(18) : pow2(b));
		const fractions = counts.map((c) => refs ? c / refs : null);
		let hist = [{ label: "fraction of reads", values: fractions }];
		if (sampled()) {
			/* The range's bursts pooled per bucket: its interval, or
			 * hollow where a bucket is beyond what a burst saw. */
			const e = await api(base() + "/estimates?tid=" + encodeURIComponent(state.tid) +
				"&from=" + state.from + "&to=" + state.to);
			const byName = new Map((e.estimates || []).map((m) => [m.metric, m]));
			const est = fractions.map((v, b) => byName.get("reuse_bucket_" + b) || null);
			const no = (b) => est[b] !== null && !est[b].estimable;
			hist = [{ label: "fraction of reads", values: fractions.map((v, b) => no(b) ? null : v),
				ci: { lo: est.map((m) => m && m.estimable ? m.ci_low : null),
					hi: est.map((m) => m && m.estimable ? m.ci_high : null),
					est: est.map((m) => m ? m.estimable : null) } },
			{ label: "not estimable", values: fractions.map((v, b) => no(b) ? v : null), hollow: true,
				color: PALETTE[0] }];
		}
		xyChart(chartCard(parent, "Reuse distance (intervals " + state.from + "\u2013" + state.to + ")",
			"data reads by LRU stack distance in blocks (bucket [2^k, 2^(k+1))), over the selected intervals; cold reads not shown",
			dl("reuse_distance")),
			counts.map((c, b) => b), hist,
			{ xLabel: "reuse distance (blocks)", xFmt: bucketLabel, yLabel: "fraction of reads", yFmt: pct, bars: true, noSelect: true, noSync: true });
		const pos = new Map(xs.map((x, i) => [x, i]));
		const grid = xs.map(() => new Array(nb).fill(0));
		for (let i = 0; i < reuse.length; i++) {
			const p = pos.get(reuse.interval[i]);
			if (p !== undefined)
				grid[p][reuse.bucket[i]] = reuse.fraction[i];
		}
		const hc = chartCard(parent, "Reuse distance per interval", "colour: fraction of the interval's reads in each distance bucket", dl("reuse_distance"));
		hc.card.classList.add("heat");
		heatmap(hc, xs, Array.from({ length: nb }, (v, b) => bucketLabel(b)), (i, r) => grid[i][r],
			{ xLabel: "interval", yLabel: "reuse distance (blocks)", fmt: pct });
	}
	/* The live scheduling model (absent in older sessions). */
	let sched = null;
	try {
		/* As many as the range holds (at most MAX_INTERVALS): the line
		 * reaches the range's last interval. */
		sched = await api(base() + "/sched?tid=" + encodeURIComponent(state.tid) +
			"&from=" + state.from + "&to=" + state.to + "&limit=" + MAX_INTERVALS);
	} catch (e) {
		sched = null;
	}
	if (sched && sched.intervals.length) {
		const c = { length: sched.intervals.length, interval: sched.intervals.map((r) => r.index) };
		const s = pivot(c, xs, () => "ipc", (i) => sched.intervals[i].ipc);
		xyChart(chartCard(parent, "Simulated IPC", "instructions per cycle of the " + sched.cpu +
			" pipeline model fed this thread's instructions (no cache misses or branch mispredictions)",
			[{ href: base() + "/views/metric?tid=" + encodeURIComponent(state.tid) + "&from=" +
				state.from + "&to=" + state.to + "&limit=100000", name: "micad-session-" + state.session + "-metrics" }]),
			xs, [{ label: sched.cpu, values: s.get("ipc") }], { yLabel: "IPC (simulated)" });
	}
	const missing = [[ilp, "ILP (ilp)"], [mix, "instruction mix (itypes)"],
		[mis, "branch mispredictions (ppm)"], [reg, "register traffic (reg)"],
		[str, "strides (stride)"], [foot, "footprint (memfootprint)"],
		[reuse, "reuse distance (memstackdist)"]].filter(([v]) => !v.length).map(([, n]) => n);
	if (!(sched && sched.intervals.length))
		missing.push("simulated IPC (the scheduling model)");
	if (missing.length)
		parent.append(el("section", { class: "card wide muted", text: "No data in intervals " +
			state.from + "\u2013" + state.to + " of this thread for: " + missing.join(", ") +
			" (not enabled in the session's mica.conf, or not recorded by this micad)." }));
	if (sched && sched.hot_blocks && sched.hot_blocks.length)
		hotBlocks(parent, sched);
}

/* The scheduling model's hottest basic blocks, each with its report. */
function hotBlocks(parent, sched) {
	const bound = (r) => {
		const b = [["issue width", r.bound_issue], ["ports", r.bound_ports], ["dependencies", r.bound_deps]];
		b.sort((x, y) => y[1] - x[1]);
		return b[0][1] ? b[0][0] : "\u2013";
	};
	const rows = sched.hot_blocks.map((h) => {
		const r = h.report || {};
		const cyc = r.iterations ? r.total_cycles / r.iterations : null;
		const insns = (r.instruction_info || []).map((ii) => ii.text + "    ; " + ii.uops +
			" uop" + (ii.uops === 1 ? "" : "s") + ", latency " + ii.latency).join("\n");
		return el("tr", {},
			el("td", { class: "num", text: String(h.rank) }),
			el("td", { class: "addr" }, h.address + "\u2013" + h.end_address,
				h.function ? el("div", { class: "fn", title: h.function.module,
					text: h.function.symbol + "+0x" + Number(h.function.offset).toString(16) }) : null),
			el("td", { class: "num", text: fmtInt(h.instructions) }),
			el("td", { class: "num", text: fmtInt(h.executions) }),
			el("td", { class: "num", text: fmtInt(h.instructions * h.executions) }),
			el("td", { class: "num", text: fmtNum(cyc) }),
			el("td", { class: "num", text: fmtNum(r.ipc) }),
			el("td", { text: bound(r) }),
			el("td", {}, el("details", {}, el("summary", { text: "code" }), el("pre", { text: insns }))));
	});
	const head = ["#", "block", "instructions", "executions", "instructions run",
		"cycles / iteration", "IPC", "bound by", "report"].map((h, i) =>
		el("th", { class: i === 1 || i >= 7 ? "" : "num", text: h }));
	const table = el("table", { class: "grid hot" }, el("thead", {}, el("tr", {}, ...head)),
		el("tbody", {}, ...rows));
	const card = el("section", { class: "card wide" },
		el("div", { class: "cardhead" }, el("h2", { text: "Hottest basic blocks (simulated " +
			sched.cpu + ")" }), el("span", { class: "muted",
			text: "whole session, all threads; each block analysed alone as a loop of " +
			((sched.hot_blocks[0].report || {}).iterations || "?") + " iterations" })),
		el("div", { class: "scroll" }, table));
	parent.append(card);
	tableDownloads(card, table, "micad-session-" + state.session + "-hot-blocks",
		base() + "/sched?limit=0");
}

/*
 * A thread with a single interval (a run shorter than one interval, or
 * interval_size: full): its values in a table, not charts of one point.
 */
async function summaryCard(parent, t) {
	const q = base() + "/intervals?tid=" + encodeURIComponent(state.tid) + "&limit=1";
	const iv = (await api(q)).intervals[0];
	let sched = null;
	try {
		sched = await api(base() + "/sched?tid=" + encodeURIComponent(state.tid) + "&limit=1");
	} catch (e) {
		sched = null;
	}
	const pct = (v) => v === null || v === undefined ? "\u2013" : fmtNum(v * 100) + "%";
	/* [what, value, the metric's name (its estimate in a sampled
	 * session), its formatter] */
	const rows = [["instructions (E)", fmtInt(iv.ins)], ["interval", iv.index + (iv.full ? " (whole run)" : iv.final ? " (the run's remainder)" : "")]];
	if (iv.n_bursts !== null && iv.n_bursts !== undefined)
		rows.push(["bursts (cut short)", fmtInt(iv.n_bursts) + " (" + fmtInt(iv.aborted_bursts) + ")"]);
	for (const l of iv.ilp || [])
		rows.push(["ILP, window " + l.window + (l.analysis === "ilp_one" ? " (ilp_one)" : ""), fmtNum(l.ilp),
			l.analysis + "_" + l.window, fmtNum]);
	for (const g of iv.itypes || [])
		rows.push(["mix: " + (g.name || "group " + g.group), pct(g.fraction), "mix_" + (g.name || g.group), pct]);
	if (iv.ppm) {
		rows.push(["conditional branches", fmtInt(iv.ppm.branches)]);
		for (const p of iv.ppm.predictors)
			rows.push(["mispredicted, " + p.organization + "/" + p.history, pct(p.rate),
				"mispredict_" + p.organization + "_" + p.history, pct]);
	}
	if (iv.reg) {
		rows.push(["register operands / instruction", fmtNum(iv.reg.avg_operands), "avg_register_operands", fmtNum]);
		rows.push(["uses / register value", fmtNum(iv.reg.avg_degree_of_use), "avg_degree_of_use", fmtNum]);
	}
	if (iv.memfootprint) {
		rows.push(["data footprint (blocks)", fmtBytes(iv.memfootprint.data_block_bytes)]);
		rows.push(["instruction footprint (blocks)", fmtBytes(iv.memfootprint.insn_block_bytes)]);
	}
	if (iv.memstackdist)
		rows.push(["cold data reads", pct(iv.memstackdist.cold_fraction)]);
	if (sched && sched.intervals.length)
		rows.push(["simulated IPC (" + sched.cpu + ")", fmtNum(sched.intervals[0].ipc)]);
	/* A sampled interval: each estimate's 95% confidence interval. */
	const est = iv.estimates || null;
	const ciText = (m, f) => {
		const e = est && m ? est[m] : null;
		if (!e)
			return "\u2013";
		if (!e.estimable)
			return "not estimable";
		return e.ci_low === null ? "\u2013 (" + fmtInt(e.n_bursts) + " burst" + (e.n_bursts === 1 ? "" : "s") + ")" :
			"[" + f(e.ci_low) + ", " + f(e.ci_high) + "]";
	};
	const table = el("table", { class: "grid summarytable" },
		el("thead", {}, el("tr", {}, el("th", { text: "value" }), el("th", { class: "num", text: "" }),
			est ? el("th", { class: "num", text: "95% CI" }) : null)),
		el("tbody", {}, ...rows.map(([k, v, m, f]) => el("tr", m ? { "data-metric": m } : {}, el("td", { text: k }),
			el("td", { class: "num", text: String(v) }),
			est ? el("td", { class: "num ci", text: m ? ciText(m, f) : "" }) : null))));
	const card = el("section", { class: "card wide", id: "summary-card" },
		el("div", { class: "cardhead" }, el("h2", { text: "The whole run in one interval" }),
			el("span", { class: "muted", text: "this thread has a single interval: its values, not charts" })),
		table);
	parent.append(card);
	tableDownloads(card, table, "micad-session-" + state.session + "-summary", q);
	micad.summaryCard = rows.length;
	if (sched && sched.hot_blocks && sched.hot_blocks.length)
		hotBlocks(parent, sched);
}

/*
 * The whole thread at a glance: one metric downsampled by the server
 * (mean line, min-max band per bucket); a drag across it chooses the range
 * the charts below show (at most MAX_INTERVALS), which it shades.
 */
async function overviewCard(parent, t) {
	const metric = state.ov || (session.analyses.includes("sched") ? "ipc" :
		session.analyses.includes("ilp") ? "ilp_256" : "instructions");
	let ov;
	const choices = [["ipc", "simulated IPC"], ["ilp_256", "ILP, window 256"], ["ilp_32", "ILP, window 32"],
		["mispredict_GAg_12", "mispredicted, GAg/12"], ["instructions", "instructions per interval"]];
	const sel = el("select", {}, ...choices.map(([v, l]) => el("option", { value: v, text: l })));
	sel.value = metric;
	sel.addEventListener("change", () => { state.ov = sel.value; setHashState(state); render(); });
	const c = chartCard(parent, "Overview of the whole thread", "\u2026", null);
	c.card.classList.add("wide", "overview");
	c.card.querySelector(".cardhead").append(el("label", { class: "muted" }, "metric ", sel));
	try {
		ov = await api(base() + "/overview?tid=" + encodeURIComponent(state.tid) + "&metric=" +
			encodeURIComponent(metric) + "&buckets=" + OVERVIEW_BUCKETS);
	} catch (e) {
		c.plot.append(el("div", { class: "muted", text: "No overview of " + metric + ": " + e.message }));
		return;
	}
	const b = ov.buckets;
	const xs = b.lo.map((lo, i) => (lo + b.hi[i]) / 2);
	c.card.querySelector(".note").textContent = "intervals " + ov.from + "\u2013" + ov.to + " in " +
		xs.length + " buckets of " + ov.bucket_width + " (line: mean, band: minimum to maximum); " +
		"drag across it to choose the intervals shown below (at most " + fmtInt(MAX_INTERVALS) + ")";
	/* A sampled session: each bucket's bursts pooled, their estimate's
	 * interval as a bar (errorBars). */
	const est = ov.sampled && b.ci_low ? [{ values: b.max }, { values: b.min },
		{ values: b.estimate, color: "#1f6feb", ci: { lo: b.ci_low, hi: b.ci_high, est: b.estimable } }] : null;
	const ciMax = est ? Math.max(...b.ci_high.filter((v) => v !== null)) : -Infinity;
	if (est)
		c.card.querySelector(".note").textContent += "; sampled: " + (xs.length > BAND_POINTS ?
			"the shaded band is the 95% confidence interval" : "bars are the 95% confidence intervals") +
			" of each bucket's bursts pooled";
	const u = new uPlot({
		width: plotWidth(c.plot),
		height: 150,
		scales: { x: { time: false, range: () => [ov.from, ov.to] }, y: { range: (u, mn, mx) => { const m = Math.max(mx, ciMax); return [Math.min(0, mn), m > 0 ? m * 1.05 : 1]; } } },
		axes: [{ label: "interval" }, { size: 64, values: (u, vals) => vals.map((v) => fmtNum(v)) }],
		series: [{ label: "interval" },
			{ label: "max", stroke: "#9ab8f0", width: 1, value: (u, v) => fmtNum(v) },
			{ label: "min", stroke: "#9ab8f0", width: 1, value: (u, v) => fmtNum(v) },
			{ label: "mean", stroke: "#1f6feb", width: 1.5, value: (u, v) => fmtNum(v) }],
		bands: [{ series: [1, 2], fill: "rgba(31, 111, 235, 0.18)" }],
		cursor: { drag: { x: true, y: false, setScale: false } },
		hooks: {
			setSelect: [(u) => {
				const s = u.select;
				if (s.width < 2)
					return;
				let lo = Math.max(ov.from, Math.round(u.posToVal(s.left, "x")));
				const hi = Math.min(ov.to, Math.round(u.posToVal(s.left + s.width, "x")));
				if (hi - lo + 1 > MAX_INTERVALS)
					lo = hi - MAX_INTERVALS + 1;
				if (hi >= lo) {
					state.from = lo;
					state.to = hi;
					render();
				}
			}],
			ready: [(u) => {
				/* Shade the range the charts below show. */
				const l = u.valToPos(Number(state.from), "x"), r = u.valToPos(Number(state.to) + 1, "x");
				u.setSelect({ left: l, width: Math.max(2, r - l), top: 0, height: u.bbox.height / devicePixelRatio }, false);
			}],
			draw: est ? [errorBars(c, xs, est, [0, 1, 2])] : [],
		},
		legend: { live: true },
	}, [xs, b.max, b.min, b.mean], c.plot);
	charts.all.push(u);
	micad.charts++;
	micad.overview = { metric, buckets: xs.length, from: ov.from, to: ov.to, width: ov.bucket_width };
	c.foot.append(el("a", { href: base() + "/overview?tid=" + encodeURIComponent(state.tid) + "&metric=" +
		encodeURIComponent(metric) + "&buckets=" + OVERVIEW_BUCKETS, download: "micad-session-" +
		state.session + "-overview.json", text: "JSON" }));
}

async function renderMgsim() {
	const note = document.getElementById("mgsim-note");
	const tbody = document.querySelector("#mgsim-table tbody");
	let info, ivs, live = null;
	const t = currentThread();
	try {
		info = await api(base() + "/mgsim");
		/* A thread with no finished interval has no range to ask for. */
		ivs = t && t.intervals ? await api(base() + "/mgsim/intervals?tid=" +
			encodeURIComponent(state.tid) + "&from=" + state.from + "&to=" + state.to +
			"&limit=2000", { bigint: true }) : { intervals: [] };
	} catch (e) {
		if (e.status !== 404)
			throw e;
		note.textContent = "No MGSim counters recorded for this session.";
		tbody.replaceChildren();
		return;
	}
	if (info.live) {
		try {
			live = await api(base() + "/mgsim/counters?at=live", { bigint: true });
		} catch (e) {
			live = null;
		}
	}
	const b = ivs.intervals;
	const last = b.length ? b[b.length - 1] : null;
	if (!last && !live) {
		note.textContent = "No MGSim counters recorded in these intervals.";
		tbody.replaceChildren();
		return;
	}
	note.textContent = live ? "live snapshot; deltas and rates: last finished interval of this thread" :
		"at the end of interval " + last.index + " (tid " + last.tid + "); counters are chip-wide";
	document.getElementById("mgsim-live").replaceChildren(live ? el("span", { class: "badge", text: "live" }) : "");
	micad.mgsim = { source: live ? "live" : "interval",
		n_exec_insns: Number(live ? live.values[1] : last.values[1]),
		snapshot: live ? "live" : last.tid + ":" + last.index };
	const snap = live ? live.values : last.values;
	const rows = info.counters.map((c) => {
		const v = snap[c.index];
		/* 13-15, the host clock: the raw word, and under it the UTC
		 * date and time it encodes. */
		const dec = mgsimDecode(c.index, v, snap);
		const val = el("td", { class: "num", text: fmtInt(v) });
		if (dec !== null) {
			val.title = "decoded (UTC): " + dec;
			val.append(el("div", { class: "decoded", text: dec }));
		}
		const d = last ? last.delta[c.index] : null;
		const pc = last ? last.per_cycle[c.index] : null;
		const spark = c.cumulative ? sparkline(b.map((x) => x.delta[c.index]), 120, 22) : "";
		return el("tr", {},
			el("td", { class: "num", text: String(c.index) }),
			el("td", { class: "name", title: c.how, text: c.name }),
			el("td", { text: c.unit }),
			val,
			el("td", { class: "num", text: d === null ? "\u2013" : fmtInt(d) }),
			el("td", { class: "num", text: pc === null ? "\u2013" : fmtNum(pc) }),
			el("td", {}, spark),
			el("td", { class: "kind", title: c.how, text: c.kind }));
	});
	tbody.replaceChildren(...rows);
	const mg = document.getElementById("mgsim");
	if (!mg.querySelector(".foot a"))
		tableDownloads(mg, document.getElementById("mgsim-table"), "micad-session-" + state.session +
			"-mgsim", base() + "/mgsim/intervals?tid=" + encodeURIComponent(state.tid) + "&from=" +
			state.from + "&to=" + state.to + "&limit=2000", document.getElementById("mgsim-downloads"));
	const dv = (last && last.derived) || {};
	document.getElementById("mgsim-derived").replaceChildren(...[
		["pl_eff", "instructions per core-cycle per core"], ["tt_occp", "thread table occupancy"],
		["ft_occp", "family table occupancy"], ["xq_avg", "average exclusive queue length"]]
		.map(([k, t]) => el("div", { title: t }, el("span", { class: "muted", text: k + " " }),
			el("b", { text: fmtNum(dv[k]) }))));
	const mon = info.monitoring;
	document.getElementById("mgsim-foot").textContent = "MMIO window 0x" + info.base.toString(16) +
		"\u20130x" + (info.base + 21 * 8 - 1).toString(16) + ", 21 counters of 8 bytes; reads served: nCycleSampleOps " +
		mon.nCycleSampleOps + ", nOtherSampleOps " + mon.nOtherSampleOps;
}

/* What the page shows, for the browser tests' #test-status. */
function shown() {
	const st = { page: "session", tid: String(state.tid), from: state.from, to: state.to,
		polls: micad.polls };
	if (session) {
		st.running = session.running;
		st.intervals = session.live ? session.live.intervals : session.intervals;
	}
	if (micad.mgsim)
		st.mgsim = micad.mgsim;
	if (profileView.session)
		st.profile = profileView.status;
	st.chartInfo = micad.chartInfo;
	if (micad.overview)
		st.overview = micad.overview;
	if (micad.summaryCard)
		st.summaryCard = micad.summaryCard;
	if (micad.estimates)
		st.estimates = micad.estimates;
	if (session && session.error)
		st.error = session.error;
	return st;
}

async function render() {
	clampRange();
	micad.overview = null;
	micad.summaryCard = 0;
	try {
		await renderEstimates();
		await renderCharts();
		/* No thread, no interval: no counters to ask for. */
		if (currentThread())
			await renderMgsim();
		else
			document.getElementById("mgsim").hidden = true;
		banner(null);
	} catch (e) {
		banner(e.message);
		micad.errors.push(e.message);
	}
	testStatus(shown());
}

async function loadSession() {
	session = await api(base());
	summary(session);
	threads = (await api(base() + "/threads")).threads;
	if (!state.tid || !currentThread())
		state.tid = threads.length ? String(threads[0].tid) : "";
	threadSelector();
}

async function poll() {
	clearTimeout(pollTimer);
	if (!session || !session.running)
		return;
	try {
		await loadSession();
		const t = currentThread();
		const n = t ? t.intervals : 0;
		/* Follow new intervals when the range ends at the last one. */
		if (n !== lastIntervals) {
			if (t && Number(state.to) === t.last_interval - (n - lastIntervals))
				state.to = t.last_interval;
			lastIntervals = n;
			await render();
		} else {
			await renderMgsim();
		}
		micad.polls++;
		testStatus(shown());
	} catch (e) {
		banner(e.message);
	}
	pollTimer = setTimeout(poll, 2000);
}

async function start() {
	if (!state.session) {
		banner("No session given: open a session from the list.");
		return;
	}
	try {
		const a = await api("api");
		document.getElementById("who").textContent = "uid " + a.uid;
		await loadSession();
	} catch (e) {
		banner(e.message);
		testStatus({ page: "session", error: e.message });
		return;
	}
	const t = currentThread();
	lastIntervals = t ? t.intervals : 0;
	if (session.engine === "sample")
		await profileStart(session);
	await render();
	pollTimer = setTimeout(poll, 2000);
}

charts.onRange = (lo, hi) => {
	state.from = lo;
	state.to = hi;
	render();
};
document.getElementById("thread").addEventListener("change", (e) => {
	state.tid = e.target.value;
	state.from = state.to = "";
	render();
});
document.getElementById("apply").addEventListener("click", () => {
	state.from = document.getElementById("from").value;
	state.to = document.getElementById("to").value;
	render();
});
document.getElementById("estimates-filter").addEventListener("input", filterEstimates);
document.getElementById("reset").addEventListener("click", () => {
	state.from = state.to = "";
	render();
});
window.addEventListener("hashchange", () => {
	const h = hashState();
	if (h.session !== state.session) {
		location.reload();
		return;
	}
	if (h.tid !== state.tid || h.from !== String(state.from) || h.to !== String(state.to)) {
		state = h;
		render();
	}
});
start();
