#!/usr/bin/env python3
# Drive headless Chromium over the DevTools protocol on a pipe
# (--remote-debugging-pipe: commands on fd 3, replies on fd 4, each a JSON
# text ended by a NUL byte) for tests/browser_daemon.sh: load a page, wait
# for a condition the page reports, run a command of the test meanwhile,
# dump the DOM, take screenshots.  Every console message, uncaught
# exception and browser log entry (CSP reports, failed loads) goes to the
# --log file, one per line: "LEVEL SOURCE: TEXT".
#
#   browser_cdp.py --chrome chromium --profile DIR --log FILE [--size W,H]
#                  [--timeout S] STEP...
#
# Steps, in order:
#   go:URL          navigate and wait for the load event
#   wait:JS         evaluate JS in the page until it is truthy (every 0.1 s,
#                   at most --timeout seconds, else exit 1 saying so)
#   run:CMD         run a shell command (its failure fails the driver)
#   eval:FILE=JS    write JS's value (a string, or JSON) to FILE
#   dom:FILE        write the DOM as HTML
#   shot:FILE       screenshot of the viewport (PNG)
#   fullshot:FILE   screenshot of the whole page, below the fold too
#   layout:FILE=SEL|SEL...  the boxes of the elements each CSS selector
#                   matches, in page coordinates (CSS pixels, the same as
#                   the screenshots' at scale 1): JSON {SEL: [[x, y, w, h],
#                   ...]}, for tests/layout_check.py
# Exit 0 when every step worked; 1 with a message on standard error else.
import base64
import fcntl
import json
import os
import subprocess
import sys
import time


class Browser:
	def __init__(self, chrome, profile, size, log):
		r1, w1 = os.pipe()	# us -> chromium (its fd 3)
		r2, w2 = os.pipe()	# chromium (its fd 4) -> us

		def child_fds():
			# Through fds above 4 first, so that neither end is
			# overwritten by the other's dup2.
			a = fcntl.fcntl(r1, fcntl.F_DUPFD, 10)
			b = fcntl.fcntl(w2, fcntl.F_DUPFD, 10)
			os.dup2(a, 3)
			os.dup2(b, 4)

		self.log = open(log, "a", encoding="utf-8")
		self.proc = subprocess.Popen(
			[chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			 "--no-default-browser-check", "--user-data-dir=" + profile,
			 "--window-size=" + size, "--hide-scrollbars",
			 "--remote-debugging-pipe", "about:blank"],
			preexec_fn=child_fds, pass_fds=(3, 4),
			stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
			stderr=open(log + ".chrome", "w"))
		os.close(r1)
		os.close(w2)
		self.wfd, self.rfd = w1, r2
		self.buf = b""
		self.next_id = 1
		self.session = None
		self.events = []
		self.loaded = False
		targets = self.call("Target.getTargets")["targetInfos"]
		page = [t for t in targets if t["type"] == "page"][0]
		self.session = self.call("Target.attachToTarget",
					 {"targetId": page["targetId"], "flatten": True})["sessionId"]
		for d in ("Runtime", "Log", "Page"):
			self.call(d + ".enable")
		# The page's viewport is exactly W x H (the window has more).
		w, h = (int(x) for x in size.split(","))
		self.call("Emulation.setDeviceMetricsOverride",
			  {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})

	def send(self, method, params=None):
		msg = {"id": self.next_id, "method": method, "params": params or {}}
		if self.session and not method.startswith("Target."):
			msg["sessionId"] = self.session
		self.next_id += 1
		data = json.dumps(msg).encode() + b"\0"
		while data:
			n = os.write(self.wfd, data)
			data = data[n:]
		return msg["id"]

	def read(self):
		while b"\0" not in self.buf:
			chunk = os.read(self.rfd, 1 << 16)
			if not chunk:
				raise RuntimeError("chromium closed the DevTools pipe (see the .chrome log)")
			self.buf += chunk
		msg, self.buf = self.buf.split(b"\0", 1)
		m = json.loads(msg)
		if "method" in m:
			self.event(m)
		return m

	def call(self, method, params=None):
		i = self.send(method, params)
		while True:
			m = self.read()
			if m.get("id") == i:
				if "error" in m:
					raise RuntimeError(method + ": " + json.dumps(m["error"]))
				return m.get("result", {})

	def event(self, m):
		p = m.get("params", {})
		meth = m["method"]
		if meth == "Page.loadEventFired":
			self.loaded = True
		elif meth == "Runtime.consoleAPICalled":
			text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
			self.logline(p.get("type", "log"), "console", text)
		elif meth == "Runtime.exceptionThrown":
			d = p.get("exceptionDetails", {})
			ex = d.get("exception", {}).get("description") or d.get("text", "")
			self.logline("error", "exception", ex + " at " + str(d.get("url", "")) +
				     ":" + str(d.get("lineNumber", "")))
		elif meth == "Log.entryAdded":
			e = p.get("entry", {})
			self.logline(e.get("level", "info"), e.get("source", "other"),
				     e.get("text", "") + (" " + e["url"] if e.get("url") else ""))

	def logline(self, level, source, text):
		self.log.write("%s %s: %s\n" % (level, source, text.replace("\n", " ")))
		self.log.flush()

	def evaluate(self, js):
		r = self.call("Runtime.evaluate", {"expression": js, "returnByValue": True,
						    "awaitPromise": True})
		if "exceptionDetails" in r:
			raise RuntimeError("evaluating %s: %s" % (js, json.dumps(r["exceptionDetails"])[:400]))
		return r["result"].get("value")

	def go(self, url, timeout):
		self.loaded = False
		self.call("Page.navigate", {"url": url})
		end = time.monotonic() + timeout
		while not self.loaded:
			if time.monotonic() > end:
				raise RuntimeError("no load event within %d s for %s" % (timeout, url))
			self.read()

	def drain(self):
		# Deliver the events that came meanwhile (a no-op command).
		self.call("Runtime.evaluate", {"expression": "0"})

	def shot(self, path, full):
		params = {"format": "png"}
		if full:
			m = self.call("Page.getLayoutMetrics")
			c = m.get("cssContentSize") or m["contentSize"]
			params.update({"captureBeyondViewport": True,
				       "clip": {"x": 0, "y": 0, "width": c["width"],
						"height": c["height"], "scale": 1}})
		data = self.call("Page.captureScreenshot", params)["data"]
		with open(path, "wb") as f:
			f.write(base64.b64decode(data))

	def close(self):
		try:
			self.call("Browser.close")
		except Exception:
			pass
		try:
			self.proc.wait(timeout=30)
		except subprocess.TimeoutExpired:
			self.proc.kill()
			self.proc.wait()


def main(argv):
	opts = {"--chrome": "chromium", "--profile": None, "--log": None,
		"--size": "1280,800", "--timeout": "120"}
	steps = []
	i = 1
	while i < len(argv):
		if argv[i] in opts:
			opts[argv[i]] = argv[i + 1]
			i += 2
		else:
			steps.append(argv[i])
			i += 1
	if not opts["--profile"] or not opts["--log"] or not steps:
		sys.stderr.write("usage: browser_cdp.py --profile DIR --log FILE [--chrome C] "
				 "[--size W,H] [--timeout S] STEP...\n")
		return 2
	timeout = float(opts["--timeout"])
	b = Browser(opts["--chrome"], opts["--profile"], opts["--size"], opts["--log"])
	try:
		for st in steps:
			kind, _, arg = st.partition(":")
			if kind == "go":
				b.go(arg, timeout)
			elif kind == "wait":
				end = time.monotonic() + timeout
				while not b.evaluate(arg):
					if time.monotonic() > end:
						raise RuntimeError("still false after %d s: %s" % (timeout, arg))
					time.sleep(0.1)
			elif kind == "run":
				subprocess.run(arg, shell=True, check=True)
			elif kind == "layout":
				path, _, sels = arg.partition("=")
				js = ("(() => { const o = {}; for (const s of %s) o[s] = "
				      "[...document.querySelectorAll(s)].map((e) => { const r = "
				      "e.getBoundingClientRect(); return [r.left + scrollX, r.top + "
				      "scrollY, r.width, r.height]; }); return o; })()" %
				      json.dumps(sels.split("|")))
				with open(path, "w", encoding="utf-8") as f:
					json.dump(b.evaluate(js), f)
			elif kind == "eval":
				path, _, js = arg.partition("=")
				v = b.evaluate(js)
				with open(path, "w", encoding="utf-8") as f:
					f.write(v if isinstance(v, str) else json.dumps(v))
			elif kind == "dom":
				with open(arg, "w", encoding="utf-8") as f:
					f.write(b.evaluate("document.documentElement.outerHTML"))
			elif kind in ("shot", "fullshot"):
				b.shot(arg, kind == "fullshot")
			else:
				raise RuntimeError("unknown step " + st)
		b.drain()
	except Exception as e:
		sys.stderr.write("browser_cdp: %s\n" % e)
		b.close()
		return 1
	b.close()
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
