#!/usr/bin/env python3
# make check-mutants: does the test suite notice plausible one-line bugs?
#
# Reads tests/mutants.list (each record: the file, its original line, the
# mutated line, the tests that should notice; see the list's head), and
# for each mutant, one at a time: applies it to a copy of the source tree,
# rebuilds, runs the named tests, puts the line back.  A mutant is caught
# when a test fails (or times out), survives when they all pass, and is
# stillborn when it does not build.  Prints one line per mutant and the
# share caught; exits 1 when the share is below --goal.
#
# The copy (WORK/src, built in WORK/build) is the only tree ever changed:
# the checkout is only read, so an interrupted run leaves it as it was.
# The mutated file is put back on every exit path of a mutant; a run that
# is killed outright leaves at most the copy mutated, and the next run
# copies the checkout's file again.  Before the mutants, the named tests
# must pass on the unmutated copy (else nothing could be concluded).
#
#   tests/mutants.py --srcdir DIR --work DIR [--configure-args ARGS]
#                    [--list FILE] [--only N[,N...]] [--timeout S] [--goal PCT]
import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time


def parse_list(path):
	"""Records separated by blank lines; '#' lines are comments (a
	comment block right before a record is its description)."""
	mutants, cur, desc = [], {}, []
	with open(path, encoding="utf-8") as f:
		lines = f.read().split("\n")
	for n, line in enumerate(lines + [""], 1):
		if not line.strip():
			if cur:
				for k in ("file", "from", "to", "tests"):
					if k not in cur:
						raise SystemExit("%s:%d: a record without '%s:'" % (path, n, k))
				cur["desc"] = " ".join(desc)
				mutants.append(cur)
			cur, desc = {}, []
			continue
		if line.startswith("#"):
			if not cur:
				desc.append(line.lstrip("# ").strip())
			continue
		key, sep, val = line.partition(":")
		key = key.strip()
		if not sep or key not in ("file", "from", "to", "tests", "equivalent"):
			raise SystemExit("%s:%d: expected 'file:', 'from:', 'to:', 'tests:' or "
					 "'equivalent:', got %r" % (path, n, line))
		cur[key] = val.strip()
		cur.setdefault("line", n)
	return mutants


def sync_tree(src, dst, work):
	"""Copy src to dst: files whose size or time differ.  A new file
	keeps its time (a first build sees the checkout's times); a file
	that differs gets the current time, so that make rebuilds what was
	built from an older or mutated copy.  Build trees (a config.status),
	.git and the work directory are left out."""
	work = os.path.realpath(work)
	for root, dirs, files in os.walk(src):
		keep = []
		for d in dirs:
			p = os.path.join(root, d)
			if d in (".git", "autom4te.cache") or os.path.realpath(p) == work or \
			   os.path.exists(os.path.join(p, "config.status")):
				continue
			keep.append(d)
		dirs[:] = keep
		rel = os.path.relpath(root, src)
		os.makedirs(os.path.join(dst, rel), exist_ok=True)
		for f in files:
			a, b = os.path.join(root, f), os.path.join(dst, rel, f)
			if os.path.islink(a):
				if not os.path.lexists(b):
					os.symlink(os.readlink(a), b)
				continue
			sa = os.stat(a)
			try:
				sb = os.stat(b)
			except FileNotFoundError:
				shutil.copy2(a, b)
				continue
			if sb.st_size == sa.st_size and int(sb.st_mtime) == int(sa.st_mtime):
				continue
			with open(a, "rb") as fa, open(b, "rb") as fb:
				if fa.read() == fb.read():
					continue
			shutil.copy(a, b)


def run(cmd, cwd, log, timeout, env=None):
	"""Run cmd in its own process group; its status, or 'timeout'."""
	with open(log, "ab") as out:
		out.write(("$ %s\n" % " ".join(cmd)).encode())
		out.flush()
		p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
				     start_new_session=True, env=env)
		try:
			return p.wait(timeout=timeout)
		except subprocess.TimeoutExpired:
			os.killpg(p.pid, signal.SIGKILL)
			p.wait()
			return "timeout"
		except BaseException:
			os.killpg(p.pid, signal.SIGKILL)
			p.wait()
			raise


def mismatches(root, numbered, lst):
	"""Each mutant's file must hold its line exactly once (whitespace
	around it aside): the records that do not, as messages."""
	bad = []
	for i, m in numbered:
		path = os.path.join(root, m["file"])
		if not os.path.exists(path):
			bad.append("  %d (%s:%d): no file %s" % (i, os.path.basename(lst), m["line"], m["file"]))
			continue
		with open(path, encoding="utf-8") as f:
			n = sum(1 for x in f.read().split("\n") if x.strip() == m["from"])
		if n != 1:
			bad.append("  %d (%s:%d): %s holds the line %d times: %s" %
				   (i, os.path.basename(lst), m["line"], m["file"], n, m["from"]))
	return bad


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--srcdir", required=True)
	ap.add_argument("--work")
	ap.add_argument("--check-list", action="store_true",
			help="only check that every record matches the source tree")
	ap.add_argument("--list")
	ap.add_argument("--configure-args", default="")
	ap.add_argument("--only", default="")
	ap.add_argument("--timeout", type=int, default=1800)
	ap.add_argument("--goal", type=float, default=90.0)
	ap.add_argument("-j", default="2")
	o = ap.parse_args()
	srcdir = os.path.abspath(o.srcdir)
	lst = o.list or os.path.join(srcdir, "tests", "mutants.list")
	mutants = parse_list(lst)
	numbered = list(enumerate(mutants, 1))
	if o.check_list:
		bad = mismatches(srcdir, numbered, lst)
		if bad:
			print("check-mutants: the list does not match the code:\n" + "\n".join(bad))
			return 1
		print("check-mutants: all %d records of %s match the code" %
		      (len(numbered), os.path.relpath(lst, srcdir)))
		return 0
	if not o.work:
		ap.error("--work is required")
	work = os.path.abspath(o.work)
	if o.only:
		want = {int(x) for x in o.only.split(",")}
		numbered = [(i, m) for i, m in numbered if i in want]
	src, build = os.path.join(work, "src"), os.path.join(work, "build")
	log = os.path.join(work, "log")
	os.makedirs(build, exist_ok=True)
	open(log, "w").close()
	# SIGTERM and SIGHUP end the run as Ctrl-C does: through the
	# finally clauses that put the mutated line back.
	for s in (signal.SIGTERM, signal.SIGHUP):
		signal.signal(s, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))

	print("check-mutants: %d mutants from %s; work in %s (log: %s)" %
	      (len(numbered), os.path.relpath(lst, srcdir), work, log), flush=True)
	sync_tree(srcdir, src, work)
	# A list that no longer matches the code is an error, not a caught
	# mutant.
	bad = mismatches(src, numbered, lst)
	if bad:
		print("check-mutants: the list does not match the code:\n" + "\n".join(bad))
		return 2
	env = dict(os.environ, MICAD_TEST_TIMEOUT="300")
	if not os.path.exists(os.path.join(build, "config.status")):
		args = [a for a in shlex.split(o.configure_args) if a != "--enable-werror"]
		if run([os.path.join(src, "configure"), "-q"] + args, build, log, 3600) != 0:
			print("check-mutants: configure failed (see %s)" % log)
			return 2
	tests = sorted({t for _, m in numbered for t in m["tests"].split()})
	t0 = time.monotonic()
	rc = run(["make", "-j" + o.j, "check", "TESTS=" + " ".join(tests)], build, log, 3 * o.timeout, env)
	if rc != 0:
		print("check-mutants: the tests fail without any mutant (%s), see %s" % (rc, log))
		return 2
	print("check-mutants: the unmutated copy passes %d tests (%.0f s)" %
	      (len(tests), time.monotonic() - t0), flush=True)

	results = []
	for i, m in numbered:
		path = os.path.join(src, m["file"])
		with open(path, encoding="utf-8") as f:
			orig = f.read()
		lines = orig.split("\n")
		k = next(j for j, x in enumerate(lines) if x.strip() == m["from"])
		indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
		lines[k] = indent + m["to"]
		t0 = time.monotonic()
		try:
			with open(path, "w", encoding="utf-8") as f:
				f.write("\n".join(lines))
			with open(log, "a") as f:
				f.write("\n==== mutant %d: %s:%d\n-%s\n+%s\n" % (i, m["file"], k + 1,
									      m["from"], m["to"]))
			rc = run(["make", "-j" + o.j], build, log, o.timeout, env)
			if rc != 0:
				verdict = "stillborn"
			else:
				rc = run(["make", "-j" + o.j, "check", "TESTS=" + m["tests"]], build, log,
					 o.timeout, env)
				verdict = "survived" if rc == 0 else "caught"
		finally:
			with open(path, "w", encoding="utf-8") as f:
				f.write(orig)
		if verdict == "survived" and "equivalent" in m:
			verdict = "equivalent"
		results.append((i, m, verdict))
		print("%3d %-10s %s:%d  %s  (%.0f s)" % (i, verdict, m["file"], k + 1, m["desc"][:70],
						       time.monotonic() - t0), flush=True)

	caught = sum(1 for r in results if r[2] == "caught")
	equiv = sum(1 for r in results if r[2] == "equivalent")
	still = sum(1 for r in results if r[2] == "stillborn")
	counted = len(results) - equiv - still
	share = 100.0 * caught / counted if counted else 0.0
	for i, m, v in results:
		if v in ("survived", "equivalent", "stillborn"):
			print("  %s %d: %s: %s -> %s%s" % (v, i, m["file"], m["from"], m["to"],
							  "\n      (%s)" % m["equivalent"] if v == "equivalent" else ""))
	print("check-mutants: caught %d of %d mutants (%.1f%%; goal %.0f%%); %d equivalent, "
	      "%d stillborn, not counted" % (caught, counted, share, o.goal, equiv, still))
	return 0 if share >= o.goal else 1


if __name__ == "__main__":
	try:
		sys.exit(main())
	except KeyboardInterrupt:
		print("check-mutants: interrupted (the checkout was never changed; the copy's "
		      "mutated file, if any, was put back)")
		sys.exit(130)
