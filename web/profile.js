/*
 * micad web UI, a sample-mode session's call-stack profile: what sampled
 * it (the event in effect, the note, the weighting), the sample rate per
 * thread over time and the samples the kernel lost (uPlot; drag to choose
 * a time range), the flame graph
 * of the session or of that range (d3-flame-graph, vendor/d3-flame-graph,
 * Apache-2.0: click a frame to zoom, search to highlight, hover for counts
 * and shares) and the hot-function table.  The thread and the range are
 * kept in the URL hash (ptid, psince, puntil) beside the session page's
 * own state.  Names from the program are inserted as text only.
 */
"use strict";

const profileView = {
	session: null,
	chart: null,		/* the flame graph */
	rate: null,		/* the uPlot chart of the sample rate */
	total: 0,		/* samples of the graph's root */
	searchText: "",		/* what the search found, shown when no frame is hovered */
	status: { rendered: 0, frames: 0, zoomed: null, search: null },
};

function pct(v, all) {
	return all > 0 ? (100 * v / all).toFixed(2) + "%" : "\u2013";
}

function profileQuery(extra) {
	const q = [];
	if (state.ptid)
		q.push("tid=" + encodeURIComponent(state.ptid));
	if (state.psince)
		q.push("since=" + encodeURIComponent(state.psince));
	if (state.puntil)
		q.push("until=" + encodeURIComponent(state.puntil));
	return q.concat(extra || []).join("&");
}

/* What sampled the session, in words. */
function profileHeader(s) {
	document.getElementById("profile-note").replaceChildren(
		el("span", { class: "muted", text: "event in effect " }),
		el("b", { text: s.sample_event || "?" }),
		s.sample_note ? " \u2014 " + s.sample_note : "");
	let w = "";
	if (s.weighting === "time")
		w = "MICA estimates weighted by time: bursts are placed by a clock, so slow code weighs more than its share of instructions";
	else if (s.weighting === "instructions")
		w = "MICA estimates weighted by instructions: bursts are placed by retired-instruction counts";
	document.getElementById("profile-weighting").textContent = w;
}

/* The API's tree as d3-flame-graph wants it (value: the total), without
 * recursion: a stack can be as deep as the program's. */
function flameData(tree) {
	const conv = (n) => ({ name: n.name, module: n.module, self: n.self, value: n.total, children: [] });
	const root = conv(tree);
	const todo = [[tree, root]];
	while (todo.length) {
		const [src, dst] = todo.pop();
		for (const c of src.children) {
			const d = conv(c);
			dst.children.push(d);
			todo.push([c, d]);
		}
	}
	return root;
}

/*
 * d3-flame-graph draws into a d3 selection; its bundle keeps d3 to
 * itself, so the page hands it the three calls it makes on the selection
 * of one element (datum, each, selectAll(...).remove()), keeping the
 * datum where d3 keeps it (__data__).
 */
function oneElementSelection(node, data) {
	node.__data__ = data;
	const sel = {
		datum(v) {
			if (!arguments.length)
				return node.__data__;
			node.__data__ = typeof v === "function" ? v.call(node, node.__data__, 0, [node]) : v;
			return sel;
		},
		each(fn) {
			fn.call(node, node.__data__, 0, [node]);
			return sel;
		},
		selectAll(q) {
			const found = [...node.querySelectorAll(q)];
			return { remove() { found.forEach((n) => n.remove()); } };
		},
	};
	return sel;
}

function frameLabel(d) {
	const total = d.data.value, self = d.data.self;
	return d.data.name + (d.data.module ? " \u2014 " + d.data.module : "") + ": " +
		fmtInt(total) + " samples (" + pct(total, profileView.total) + " of all), self " +
		fmtInt(self) + " (" + pct(self, profileView.total) + ")";
}

function renderFlame(p) {
	const div = document.getElementById("flame");
	const details = document.getElementById("flame-details");
	if (profileView.chart)
		profileView.chart.destroy();
	div.replaceChildren();
	details.textContent = "";
	profileView.total = p.tree.total;
	const pr = p.pruning;
	document.getElementById("flame-pruning").textContent = pr.pruned ?
		pr.note + " (" + fmtInt(pr.pruned_value) + " samples in pruned frames)" : "";
	if (!p.samples) {
		div.append(el("p", { class: "muted", text: "No samples in this range." }));
		profileView.chart = null;
		return;
	}
	const chart = flamegraph()
		.width(Math.max(300, Math.floor(div.getBoundingClientRect().width) || 900))
		.cellHeight(18)
		.transitionDuration(250)
		.minFrameSize(1)
		.sort(false)
		.title("")
		.setLabelHandler(frameLabel)
		.setSearchMatch((d, term) => !!term && d.data.name.toLowerCase().includes(term.toLowerCase()))
		.setSearchHandler((found, sum, all) => {
			const term = document.getElementById("flame-search").value;
			profileView.searchText = term ? "search \u201c" + term + "\u201d: " + fmtInt(sum) +
				" of " + fmtInt(all) + " samples (" + pct(sum, all) + ")" : "";
			details.textContent = profileView.searchText;
		})
		.setDetailsHandler((text) => { details.textContent = text || profileView.searchText; })
		.onClick((d) => {
			profileView.status.zoomed = d.data.name;
			testStatus(shown());
		});
	chart(oneElementSelection(div, flameData(p.tree)));
	profileView.chart = chart;
	profileView.status.frames = div.querySelectorAll("g.frame").length;
	profileView.status.zoomed = null;
	const term = document.getElementById("flame-search").value;
	if (term)
		chart.search(term);
}

function renderFunctions(f) {
	const rows = f.functions.map((x) => {
		const tr = el("tr", { title: x.module },
			el("td", { class: "fn", text: x.name }),
			el("td", { class: "module", text: x.module.replace(/^.*\//, "") }),
			el("td", { class: "num", text: fmtInt(x.self) }),
			el("td", { class: "num", text: pct(x.self, f.samples) }),
			el("td", { class: "num", text: fmtInt(x.total) }),
			el("td", { class: "num", text: pct(x.total, f.samples) }));
		tr.addEventListener("click", () => {
			const s = document.getElementById("flame-search");
			s.value = x.name;
			profileSearch();
		});
		return tr;
	});
	document.querySelector("#hot-functions tbody").replaceChildren(...rows);
	document.getElementById("hot-foot").textContent = f.functions_total > f.functions.length ?
		"the " + f.functions.length + " hottest of " + fmtInt(f.functions_total) + " functions" :
		fmtInt(f.functions_total) + " functions";
	const dl = document.getElementById("hot-downloads");
	if (!dl.childElementCount)
		tableDownloads(document.getElementById("profile"), document.getElementById("hot-functions"),
			"micad-session-" + f.session + "-hot-functions", "api/sessions/" + f.session +
			"/profile/functions?limit=100000", dl);
}

/* Samples per second of each thread, on one time axis (seconds from the
 * session's start), and dashed the samples per second the kernel lost
 * (its buffer was full) for the threads that lost any, which the line
 * under the chart counts; a drag selects the time range of the graph. */
function renderRate(r) {
	const div = document.getElementById("rate");
	const lostDiv = document.getElementById("rate-lost");
	if (profileView.rate)
		profileView.rate.destroy();
	profileView.rate = null;
	div.replaceChildren();
	lostDiv.textContent = "";
	const t0 = profileView.session.started_at;
	const xs = [...new Set(r.threads.flatMap((t) =>
		t.started_at.map((s, i) => (s + t.ended_at[i]) / 2 - t0)))].sort((a, b) => a - b);
	if (!xs.length) {
		div.append(el("p", { class: "muted", text: "No sampling interval recorded." }));
		return;
	}
	const pos = new Map(xs.map((x, i) => [x, i]));
	const data = [xs];
	const series = [{ label: "seconds", value: (u, v) => v === null ? "\u2013" : v.toFixed(2) + " s" }];
	r.threads.forEach((t, k) => {
		const ys = xs.map(() => null);
		t.rate.forEach((v, i) => { ys[pos.get((t.started_at[i] + t.ended_at[i]) / 2 - t0)] = v; });
		data.push(ys);
		series.push({ label: "tid " + t.tid, stroke: PALETTE[k % PALETTE.length], width: 1.5,
			spanGaps: true, points: { show: xs.length < 60 },
			value: (u, v) => v === null ? "\u2013" : fmtNum(v) + "/s" });
	});
	const lost = [];
	let lostAll = 0;
	r.threads.forEach((t, k) => {
		const total = t.lost.reduce((a, b) => a + b, 0);
		if (!total)
			return;
		const ys = xs.map(() => null);
		t.lost.forEach((v, i) => {
			const d = t.ended_at[i] - t.started_at[i];
			ys[pos.get((t.started_at[i] + t.ended_at[i]) / 2 - t0)] = d > 0 ? v / d : null;
		});
		data.push(ys);
		series.push({ label: "lost, tid " + t.tid, stroke: PALETTE[k % PALETTE.length], width: 1.5,
			dash: [5, 4], spanGaps: true, points: { show: xs.length < 60 },
			value: (u, v) => v === null ? "\u2013" : fmtNum(v) + "/s" });
		lost.push("tid " + t.tid + ": " + fmtInt(total) + " (" + t.lost.map((v, i) => v ?
			"interval " + t.interval[i] + ": " + fmtInt(v) : null).filter((x) => x).join(", ") + ")");
		lostAll += total;
	});
	lostDiv.textContent = lost.length ? "Samples the kernel lost (the thread's buffer was full), dashed: " +
		lost.join("; ") : "No sample lost.";
	profileView.status.lost = lostAll;
	profileView.rate = new uPlot({
		width: Math.max(300, Math.floor(div.getBoundingClientRect().width) || 900),
		height: 180,
		scales: { x: { time: false } },
		axes: [{ label: "seconds since the session started" },
			{ label: "samples / s", size: 64, values: (u, vals) => vals.map((v) => fmtNum(v)) }],
		series,
		cursor: { drag: { x: true, y: false, setScale: false } },
		hooks: { setSelect: [(u) => {
			const s = u.select;
			if (s.width < 2)
				return;
			const lo = u.posToVal(s.left, "x"), hi = u.posToVal(s.left + s.width, "x");
			u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
			state.psince = (t0 + lo).toFixed(3);
			state.puntil = (t0 + hi).toFixed(3);
			profileRender();
		}] },
		legend: { live: true },
	}, data, div);
}

function profileRangeText() {
	const t0 = profileView.session.started_at;
	const parts = [state.ptid ? "thread " + state.ptid : "all threads"];
	if (state.psince || state.puntil)
		parts.push((state.psince ? (Number(state.psince) - t0).toFixed(2) : "start") + "\u2013" +
			(state.puntil ? (Number(state.puntil) - t0).toFixed(2) + " s" : "end"));
	else
		parts.push("whole session");
	return parts.join(", ");
}

async function profileRender() {
	setHashState(state);
	document.getElementById("profile-range").textContent = profileRangeText();
	try {
		const q = profileQuery();
		const [p, f] = await Promise.all([
			api(base() + "/profile?" + profileQuery(["max_nodes=3000"])),
			api(base() + "/profile/functions?" + profileQuery(["limit=50"])),
		]);
		document.getElementById("profile-totals").textContent = fmtInt(p.samples) +
			" samples in " + fmtInt(p.intervals) + " intervals" +
			(p.lost ? ", " + fmtInt(p.lost) + " lost" : "");
		renderFlame(p);
		renderFunctions(f);
		profileView.status.rendered++;
		profileView.status.query = q;
	} catch (e) {
		banner(e.message);
		micad.errors.push(e.message);
	}
	testStatus(shown());
}

function profileSearch() {
	const term = document.getElementById("flame-search").value;
	profileView.status.search = term || null;
	if (!profileView.chart)
		return;
	if (term) {
		profileView.chart.search(term);
	} else {
		profileView.searchText = "";
		profileView.chart.clear();
	}
	testStatus(shown());
}

async function profileStart(s) {
	profileView.session = s;
	document.getElementById("profile").hidden = false;
	profileHeader(s);
	let r;
	try {
		r = await api(base() + "/profile/rate");
	} catch (e) {
		banner(e.message);
		micad.errors.push(e.message);
		return;
	}
	const sel = document.getElementById("profile-thread");
	sel.replaceChildren(el("option", { value: "", text: "all threads" }),
		...r.threads.map((t) => el("option", { value: t.tid,
			text: "tid " + t.tid + " \u2013 " + fmtInt(t.samples.reduce((a, b) => a + b, 0)) + " samples" })));
	sel.value = state.ptid || "";
	sel.addEventListener("change", () => {
		state.ptid = sel.value;
		profileRender();
	});
	document.getElementById("profile-reset").addEventListener("click", () => {
		state.psince = state.puntil = "";
		profileRender();
	});
	document.getElementById("flame-search").addEventListener("input", profileSearch);
	document.getElementById("flame-unzoom").addEventListener("click", () => {
		if (profileView.chart)
			profileView.chart.resetZoom();
		profileView.status.zoomed = null;
		testStatus(shown());
	});
	renderRate(r);
	await profileRender();
}
