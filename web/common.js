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
	chartInfo: [],	/* per chart: title, series (label, colour, points, last x) */
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

/*
 * JSON.parse reviver keeping integers beyond 2^53 exact as BigInt (the
 * MGSim counters are unsigned 64-bit: counter 15 in the MT-Alpha time
 * format has its upper 32 bits set).  Needs the reviver's source text
 * (Chromium 114, Firefox 135); without it numbers stay Numbers.
 */
function bigReviver(key, value, ctx) {
	if (typeof value === "number" && !Number.isSafeInteger(value) && ctx &&
	    typeof ctx.source === "string" && /^-?[0-9]+$/.test(ctx.source))
		return BigInt(ctx.source);
	return value;
}

/*
 * GET an API path; resolves to the parsed JSON, rejects with ApiError.
 * opts.bigint: integers beyond 2^53 become BigInt (bigReviver).
 */
async function api(path, opts) {
	let r;
	try {
		/* no-cache: revalidated each time, a finished session's answers with a 304. */
		r = await fetch(path, { credentials: "same-origin", cache: "no-cache" });
	} catch (e) {
		throw new ApiError(0, "the micad server does not answer (" + e.message + ")");
	}
	let body = null;
	try {
		const text = await r.text();
		body = opts && opts.bigint ? JSON.parse(text, bigReviver) : JSON.parse(text);
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
	if (typeof v === "bigint")
		return v.toLocaleString("en-US");
	return Number(v).toLocaleString("en-US");
}

/*
 * MGSim's host clock counters (mgsim-counters.md §2), decoded in UTC:
 * 13 time() seconds; 14 the packed date, mday | mon0 << 5 | (year -
 * 1900) << 9; 15 the packed time, (usec >> 5) | sec << 15 | min << 21 |
 * hour << 27, where only the low 32 bits count (the MT-Alpha form repeats
 * bit 31 above them).  The time keeps 32 us units: usec = field * 32.
 * Returns null for another counter or a value that is not a date/time.
 */
const pad = (n, w) => String(n).padStart(w || 2, "0");

function mgsimDecodeDate(v) {
	if (v === null || v === undefined)
		return null;
	const d = BigInt(v);
	const mday = Number(d & 31n), mon = Number((d >> 5n) & 15n), year = 1900n + (d >> 9n);
	if (mday < 1 || mon > 11 || year > 9999n)
		return null;
	return year + "-" + pad(mon + 1) + "-" + pad(mday);
}

function mgsimDecodeTime(v) {
	if (v === null || v === undefined)
		return null;
	const t = Number(BigInt(v) & 0xffffffffn);
	const usec = (t & 0x7fff) * 32, sec = (t >>> 15) & 63, min = (t >>> 21) & 63, hour = t >>> 27;
	if (sec > 60 || min > 59 || hour > 23 || usec > 999999)
		return null;
	return pad(hour) + ":" + pad(min) + ":" + pad(sec) + "." + pad(usec, 6);
}

function mgsimDecode(index, v, values) {
	if (v === null || v === undefined)
		return null;
	if (index === 13) {
		const ms = Number(v) * 1000;
		if (!Number.isSafeInteger(ms) || Math.abs(ms) > 8.64e15)
			return null;
		return new Date(ms).toISOString().replace("T", " ").replace(/\.000Z$/, " UTC");
	}
	if (index === 14) {
		const d = mgsimDecodeDate(v);
		return d === null ? null : d + " UTC";
	}
	if (index === 15) {
		const t = mgsimDecodeTime(v);
		if (t === null)
			return null;
		const d = values ? mgsimDecodeDate(values[14]) : null;
		return (d === null ? "" : d + " ") + t + " UTC";
	}
	return null;
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
