/*
 * micad web UI, the session list: newest first, paged; refreshed every
 * 2 s while a session is running (every 10 s otherwise).
 */
"use strict";

const PAGE = 50;
let offset = 0;
let timer = null;
let loads = 0;	/* lists shown since the page opened (the browser test) */

async function load() {
	const state = document.getElementById("state").value;
	let data;
	try {
		data = await api("api/sessions?limit=" + PAGE + "&offset=" + offset + "&state=" + state);
		banner(null);
	} catch (e) {
		banner(e.message);
		testStatus({ page: "index", error: e.message });
		schedule(10000);
		return;
	}
	const tbody = document.querySelector("#sessions tbody");
	const rows = [];
	let running = false;
	for (const s of data.sessions) {
		running = running || s.running;
		const link = el("a", { href: "session.html#session=" + s.id, text: String(s.id) });
		const end = s.ended_at || (s.running ? Date.now() / 1000 : null);
		const instr = s.live ? s.live.instructions : s.instructions;
		rows.push(el("tr", {},
			el("td", { class: "num" }, link),
			el("td", { class: "cmd", title: s.command, text: s.command }),
			el("td", { class: "narrow-hide", text: s.mode }),
			el("td", { class: "num narrow-hide", text: String(s.uid) }),
			el("td", { title: s.error || "" }, stateBadge(s)),
			el("td", { text: fmtTime(s.started_at) }),
			el("td", { class: "num", text: end ? fmtDuration(end - s.started_at) : "\u2013" }),
			el("td", { class: "num", text: fmtInt(s.threads) }),
			el("td", { class: "num", text: fmtInt(s.live ? s.live.intervals : s.intervals) }),
			el("td", { class: "num", text: fmtInt(instr) })));
	}
	if (!rows.length)
		rows.push(el("tr", {}, el("td", { colspan: 10, class: "muted",
			text: "No sessions yet: run 'micactl run -- PROGRAM' to record one." })));
	tbody.replaceChildren(...rows);
	document.getElementById("pageinfo").textContent = data.total ?
		(offset + 1) + "\u2013" + (offset + data.sessions.length) + " of " + data.total : "";
	document.getElementById("prev").disabled = offset === 0;
	document.getElementById("next").disabled = data.next_offset === null;
	if (!document.querySelector("#list-downloads a"))
		tableDownloads(document.querySelector("main .card"), document.getElementById("sessions"),
			"micad-sessions", "api/sessions?limit=1000", document.getElementById("list-downloads"));
	document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString("en-GB");
	loads++;
	testStatus({ page: "index", sessions: data.sessions.length, total: data.total, loads,
		rows: data.sessions.map((s) => ({ id: s.id,
			state: s.running ? "running" : (s.end_reason || "unknown") })) });
	schedule(running ? 2000 : 10000);
}

function schedule(ms) {
	clearTimeout(timer);
	timer = setTimeout(load, ms);
}

async function who() {
	try {
		const a = await api("api");
		document.getElementById("who").textContent = "uid " + a.uid;
	} catch (e) {
		/* load() shows the error */
	}
}

document.getElementById("state").addEventListener("change", () => { offset = 0; load(); });
document.getElementById("prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); load(); });
document.getElementById("next").addEventListener("click", () => { offset += PAGE; load(); });
who();
load();
