#!/usr/bin/env python3
# Where the corrected scheduling model is wrong on BHive: per file, the
# MAPE overall and on the even- and odd-indexed halves (a split-half
# check: tune on one, report the other), the error grouped by the
# features of the blocks (so that a rule can be judged by the group it
# concerns), and the worst blocks with their disassembly, measured and
# predicted cycles per iteration.
#
# Usage: mca_errors.py [--micactl PATH] [--data DIR] [--files skl,hsw,ivb]
#                      [--worst N] [--bhive] [--group REGEX] [--csv OUT]
#   --group REGEX   list only blocks whose disassembly matches REGEX
#   --csv OUT       write index,file,measured,predicted,error per block
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

CPUS = {"skl": "skylake", "hsw": "haswell", "ivb": "ivybridge"}

# Block features: a name and a test on the list of AT&T instruction texts.
FEATURES = [
    ("push/pop", lambda a: any(re.match(r"(push|pop)", s) for s in a)),
    ("call/ret", lambda a: any(re.match(r"(call|ret)", s) for s in a)),
    ("div", lambda a: any(re.match(r"i?div[bwlq]?\s", s) for s in a)),
    ("fp div/sqrt", lambda a: any(re.match(r"v?(div|sqrt)[ps][sd]", s) for s in a)),
    ("store", lambda a: any(re.search(r",\s*-?[0-9a-fx]*\(", s) for s in a)),
    ("load", lambda a: any(re.search(r"\(.*\),", s) for s in a)),
    ("indexed mem", lambda a: any(re.search(r"\(%\w*,%\w+", s) for s in a)),
    ("rip-relative", lambda a: any("(%rip)" in s for s in a)),
    ("8/16-bit reg", lambda a: any(re.search(r"%([abcd][lh]|[sd]il|[sb]pl|r\d+[bw]|[abcd]x|[sd]i|[sb]p)\b", s)
                                   for s in a)),
    ("sse/avx", lambda a: any("%xmm" in s or "%ymm" in s for s in a)),
    ("jcc", lambda a: any(re.match(r"j[a-z]+\s", s) and not s.startswith("jmp") for s in a)),
    ("lea", lambda a: any(s.startswith("lea") for s in a)),
    ("shift/rot", lambda a: any(re.match(r"(sh[lr]|sa[lr]|ro[lr]|rc[lr])", s) for s in a)),
    ("cmov/setcc", lambda a: any(re.match(r"(cmov|set)", s) for s in a)),
    ("imul/mul", lambda a: any(re.match(r"i?mul", s) for s in a)),
    ("movzx/sx", lambda a: any(re.match(r"movz|movs[bwl][wlq]|cltq|cqto|cltd", s) for s in a)),
    ("xchg/lock", lambda a: any(re.match(r"(xchg|lock|cmpxchg|xadd)", s) for s in a)),
    ("string op", lambda a: any(re.search(r"\b(rep|movs[bwlq]?|stos|lods|cmps|scas)\b", s)
                                and not re.match(r"movs[bwl][wlq]\s|movsd\s|movss\s", s) for s in a)),
]


def die(msg):
    sys.stderr.write("mca_errors: %s\n" % msg)
    sys.exit(1)


def read_csv(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line:
            h, c = line.split(",")
            out.append((h, float(c) / 100.0))
    return out


def disassemble(blocks):
    data = "".join(" ".join("0x" + h[i:i + 2] for i in range(0, len(h), 2)) + " 0x0f 0x0b\n"
                   for h, _ in blocks)
    r = subprocess.run(["llvm-mc-14", "--disassemble", "-triple=x86_64"], input=data,
                       capture_output=True, text=True)
    if r.returncode != 0:
        die("llvm-mc-14 failed: " + r.stderr[:300])
    parts, cur = [], []
    for line in r.stdout.splitlines():
        s = line.strip()
        if not s or s.startswith("."):
            continue
        if s == "ud2":
            parts.append(cur)
            cur = []
        else:
            cur.append(re.sub(r"\s+", " ", s))
    if len(parts) != len(blocks):
        die("disassembly gave %d blocks for %d" % (len(parts), len(blocks)))
    return parts


def predict(micactl, cpu, blocks, extra):
    with tempfile.NamedTemporaryFile("w", suffix=".hex") as f:
        f.write("".join(h + "\n" for h, _ in blocks))
        f.flush()
        r = subprocess.run([micactl, "mca", "-mcpu=" + cpu] + extra + ["--hex", "--json=compact", f.name],
                           capture_output=True, text=True)
    if r.returncode != 0:
        die("micactl failed: " + r.stderr[:300])
    return [o["throughput"] for o in json.loads(r.stdout)]


def mape(errs):
    return 100.0 * sum(abs(e) for e in errs) / len(errs) if errs else 0.0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--micactl", default="./micactl")
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data", "bhive"))
    ap.add_argument("--files", default="skl,hsw,ivb")
    ap.add_argument("--worst", type=int, default=15)
    ap.add_argument("--bhive", action="store_true")
    ap.add_argument("--group")
    ap.add_argument("--csv")
    a = ap.parse_args()
    extra = ["--bhive"] if a.bhive else []
    csv = open(a.csv, "w") if a.csv else None
    for f in a.files.split(","):
        blocks = read_csv(os.path.join(a.data, f + ".csv"))
        asm = disassemble(blocks)
        pred = predict(a.micactl, CPUS[f], blocks, extra)
        meas = [m for _, m in blocks]
        err = [(p - m) / m for p, m in zip(pred, meas)]
        even = [e for i, e in enumerate(err) if i % 2 == 0]
        odd = [e for i, e in enumerate(err) if i % 2 == 1]
        over = sum(e for e in err if e > 0) / len(err) * 100
        print("== %s (%s%s): %d blocks, MAPE %.2f%% (even %.2f%%, odd %.2f%%); "
              "over-prediction %.2f points, under %.2f" %
              (f, CPUS[f], " --bhive" if a.bhive else "", len(err), mape(err), mape(even),
               mape(odd), over, mape(err) - over))
        print("  %-14s %5s %8s %8s %9s" % ("feature", "n", "MAPE", "bias", "share"))
        total = sum(abs(e) for e in err)
        for name, test in FEATURES:
            idx = [i for i in range(len(err)) if test(asm[i])]
            if not idx:
                continue
            es = [err[i] for i in idx]
            print("  %-14s %5d %7.2f%% %+7.2f%% %8.1f%%" %
                  (name, len(idx), mape(es), 100.0 * sum(es) / len(es),
                   100.0 * sum(abs(e) for e in es) / total))
        order = sorted(range(len(err)), key=lambda i: -abs(err[i]))
        if a.group:
            order = [i for i in order if any(re.search(a.group, s) for s in asm[i])]
        for i in order[:a.worst]:
            print("  #%d measured %.2f predicted %.2f (%+.0f%%)" %
                  (i, meas[i], pred[i], 100 * err[i]))
            for s in asm[i]:
                print("      " + s)
        if csv:
            for i in range(len(err)):
                csv.write("%d,%s,%.4f,%.4f,%.4f\n" % (i, f, meas[i], pred[i], err[i]))
        print()
    if csv:
        csv.close()


if __name__ == "__main__":
    main()
