/*
 * micad web UI: helpers shared by the pages.  Everything that comes from a
 * traced program (command lines, names) is put into the page as text
 * (textContent), never as markup.  The access token travels as an HttpOnly
 * cookie the server set; fetch() sends it for same-origin requests.
 */
"use strict";

const micad = {
	errors: [],
	charts: 0,
	polls: 0,	/* live updates done (session page) */
	mgsim: null,	/* the MGSim snapshot the table shows */
};

/* The browser test reads this element: rendered charts and any error. */
function testStatus(extra) {
	const el = document.getElementById("test-status");
	if (!el)
		return;
	const st = Object.assign({ charts: micad.charts, errors: micad.errors }, extra || {});
	el.textContent = JSON.stringify(st);
}

window.addEventListener("error", (e) => {
	micad.errors.push(String(e.message || e));
	testStatus();
});
window.addEventListener("unhandledrejection", (e) => {
	micad.errors.push("unhandled rejection: " + String(e.reason && e.reason.message || e.reason));
	testStatus();
});
document.addEventListener("securitypolicyviolation", (e) => {
	micad.errors.push("CSP violation: " + e.violatedDirective + " " + e.blockedURI);
	testStatus();
});

/* el("td", {class: "num"}, "text", child...): children are text or nodes. */
function el(tag, attrs, ...children) {
	const n = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === undefined || v === null || v === false)
			continue;
		if (k === "class")
			n.className = v;
		else if (k === "text")
			n.textContent = v;
		else
			n.setAttribute(k, v === true ? "" : String(v));
	}
	for (const c of children) {
		if (c === undefined || c === null)
			continue;
		n.append(c instanceof Node ? c : document.createTextNode(String(c)));
	}
	return n;
}

function banner(msg) {
	const b = document.getElementById("banner");
	if (!b)
		return;
	if (!msg) {
		b.hidden = true;
		return;
	}
	b.textContent = msg;
	b.hidden = false;
}

class ApiError extends Error {
	constructor(status, message) {
		super(message);
		this.status = status;
	}
}

/* GET an API path; resolves to the parsed JSON, rejects with ApiError. */
async function api(path) {
	let r;
	try {
		r = await fetch(path, { credentials: "same-origin", cache: "no-store" });
	} catch (e) {
		throw new ApiError(0, "the micad server does not answer (" + e.message + ")");
	}
	let body = null;
	try {
		body = await r.json();
	} catch (e) {
		body = null;
	}
	if (!r.ok) {
		let msg = body && body.error ? body.error.message : r.statusText;
		if (r.status === 401)
			msg = "Not signed in: open the URL that 'micactl ui' prints (it carries the access token).";
		throw new ApiError(r.status, msg);
	}
	return body;
}

function fmtInt(v) {
	if (v === null || v === undefined)
		return "\u2013";
	return Number(v).toLocaleString("en-US");
}

/* Up to 4 significant digits, SI suffix for large numbers. */
function fmtNum(v) {
	if (v === null || v === undefined || Number.isNaN(v))
		return "\u2013";
	const a = Math.abs(v);
	if (a >= 1e12) return (v / 1e12).toPrecision(4) + "T";
	if (a >= 1e9) return (v / 1e9).toPrecision(4) + "G";
	if (a >= 1e6) return (v / 1e6).toPrecision(4) + "M";
	if (a >= 1e4) return (v / 1e3).toPrecision(4) + "k";
	if (a === 0 || Number.isInteger(v)) return String(v);
	if (a < 1e-3) return v.toExponential(2);
	return String(Number(v.toPrecision(4)));
}

function fmtBytes(v) {
	if (v === null || v === undefined)
		return "\u2013";
	const u = ["B", "KiB", "MiB", "GiB", "TiB"];
	let i = 0;
	while (Math.abs(v) >= 1024 && i < u.length - 1) {
		v /= 1024;
		i++;
	}
	return (i ? String(Number(v.toPrecision(3))) : String(v)) + " " + u[i];
}

function fmtTime(unix) {
	if (unix === null || unix === undefined)
		return "\u2013";
	return new Date(unix * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, "");
}

function fmtDuration(s) {
	if (s === null || s === undefined || s < 0)
		return "\u2013";
	if (s < 60) return s.toFixed(1) + " s";
	if (s < 3600) return Math.floor(s / 60) + " min " + Math.round(s % 60) + " s";
	return Math.floor(s / 3600) + " h " + Math.round((s % 3600) / 60) + " min";
}

/* State in the URL hash: "#tid=1&from=0&to=9". */
function hashState() {
	const st = {};
	for (const part of location.hash.replace(/^#/, "").split("&")) {
		if (!part)
			continue;
		const i = part.indexOf("=");
		const k = decodeURIComponent(i < 0 ? part : part.slice(0, i));
		st[k] = i < 0 ? "" : decodeURIComponent(part.slice(i + 1));
	}
	return st;
}

function setHashState(st) {
	const parts = [];
	for (const [k, v] of Object.entries(st))
		if (v !== undefined && v !== null && v !== "")
			parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v));
	const h = "#" + parts.join("&");
	if (h !== location.hash)
		history.replaceState(null, "", h);
}

function stateBadge(s) {
	const st = s.running ? "running" : (s.end_reason || "unknown");
	return el("span", { class: "state " + st, text: st });
}
