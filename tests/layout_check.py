#!/usr/bin/env python3
# A screenshot against the layout the page should have: the boxes of its
# elements (browser_cdp.py's layout: step) and the pixels of the PNG at
# those boxes.  Says nothing and exits 0 when every check holds; else one
# line per failure on standard output and exit 1.
#
#   layout_check.py PNG LAYOUT.json CHECK...
#
# Checks (SEL: a selector of the layout file):
#   count:SEL=N       SEL matched N elements
#   atleast:SEL=WxH   each of SEL's boxes is at least W x H
#   inside:SEL        each box lies inside the screenshot
#   disjoint:SEL      no two of SEL's boxes overlap
#   below:A,B         every box of B starts at or below the bottom of every box of A
#   drawn:SEL=K       the screenshot has at least K colours in each box (something
#                     was drawn there: a chart's lines, a row's text)
# The PNG reader handles what Chromium writes: 8-bit RGB or RGBA, not
# interlaced.
import json
import struct
import sys
import zlib


def read_png(path):
	with open(path, "rb") as f:
		data = f.read()
	if data[:8] != b"\x89PNG\r\n\x1a\n":
		raise ValueError("%s is not a PNG" % path)
	pos, idat, w = 8, b"", None
	while pos < len(data):
		n, kind = struct.unpack(">I4s", data[pos:pos + 8])
		body = data[pos + 8:pos + 8 + n]
		if kind == b"IHDR":
			w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
			if depth != 8 or ctype not in (2, 6) or interlace:
				raise ValueError("%s: unsupported PNG (depth %d, colour type %d)" %
						 (path, depth, ctype))
			bpp = 3 if ctype == 2 else 4
		elif kind == b"IDAT":
			idat += body
		pos += 12 + n
	raw = zlib.decompress(idat)
	stride = w * bpp
	rows, prev = [], bytearray(stride)
	for y in range(h):
		f = raw[y * (stride + 1)]
		line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
		for i in range(stride):
			a = line[i - bpp] if i >= bpp else 0
			b = prev[i]
			c = prev[i - bpp] if i >= bpp else 0
			if f == 1:
				line[i] = (line[i] + a) & 255
			elif f == 2:
				line[i] = (line[i] + b) & 255
			elif f == 3:
				line[i] = (line[i] + (a + b) // 2) & 255
			elif f == 4:
				p = a + b - c
				pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
				line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
		rows.append(bytes(line))
		prev = line
	return w, h, bpp, rows


def colours(img, box):
	w, h, bpp, rows = img
	x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
	x1, y1 = min(w, int(box[0] + box[2])), min(h, int(box[1] + box[3]))
	seen = set()
	for y in range(y0, y1):
		row = rows[y]
		for x in range(x0, x1):
			seen.add(row[x * bpp:x * bpp + 3])
	return len(seen)


def main(argv):
	img = read_png(argv[1])
	with open(argv[2], encoding="utf-8") as f:
		layout = json.load(f)
	w, h = img[0], img[1]
	bad = []
	for check in argv[3:]:
		kind, _, arg = check.partition(":")
		sel, _, val = arg.partition("=")
		if kind == "below":
			a, b = sel.split(",")
			boxes_a, boxes_b = layout.get(a, []), layout.get(b, [])
			bottom = max((y + bh for _, y, _, bh in boxes_a), default=None)
			top = min((y for _, y, _, _ in boxes_b), default=None)
			if bottom is None or top is None or top < bottom - 0.5:
				bad.append("%s: %s starts at y=%s, above the bottom of %s (%s)" %
					   (check, b, top, a, bottom))
			continue
		boxes = layout.get(sel)
		if boxes is None:
			bad.append("%s: the layout has no %s" % (check, sel))
			continue
		if kind == "count":
			if len(boxes) != int(val):
				bad.append("%s: %d elements" % (check, len(boxes)))
		elif kind == "atleast":
			mw, mh = (int(x) for x in val.split("x"))
			for bx in boxes:
				if bx[2] < mw or bx[3] < mh:
					bad.append("%s: a box of %gx%g at (%g, %g)" % (check, bx[2], bx[3], bx[0], bx[1]))
		elif kind == "inside":
			for bx in boxes:
				if bx[0] < 0 or bx[1] < 0 or bx[0] + bx[2] > w + 0.5 or bx[1] + bx[3] > h + 0.5 or \
				   bx[2] <= 0 or bx[3] <= 0:
					bad.append("%s: box %s outside the %dx%d screenshot" % (check, bx, w, h))
		elif kind == "disjoint":
			for i, p in enumerate(boxes):
				for q in boxes[i + 1:]:
					if p[0] + p[2] > q[0] + 0.5 and q[0] + q[2] > p[0] + 0.5 and \
					   p[1] + p[3] > q[1] + 0.5 and q[1] + q[3] > p[1] + 0.5:
						bad.append("%s: boxes %s and %s overlap" % (check, p, q))
		elif kind == "drawn":
			for bx in boxes:
				n = colours(img, bx)
				if n < int(val):
					bad.append("%s: %d colours in the box at (%g, %g) %gx%g" %
						   (check, n, bx[0], bx[1], bx[2], bx[3]))
		else:
			bad.append("%s: unknown check" % check)
	for b in bad:
		print(b)
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
