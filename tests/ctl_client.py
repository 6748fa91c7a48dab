#!/usr/bin/env python3
"""A raw client (and a fake server) of micad's control socket, for the
security tests: frames micactl would never send, clients that drip or never
read, and a daemon posing as micad.  The frame format is daemon/control.h's:
a 32-bit length, then NUL-terminated "key=value" strings, the first op=.

  ctl_client.py send SOCKET [--fds] KEY=VALUE...
      send one frame (with --fds: stdin, stdout, stderr and the working
      directory, as 'micactl run' does) and print each reply as one line
      of "key=value" joined by " | ", until the daemon closes or ends.
  ctl_client.py drip SOCKET SECONDS
      connect and send a valid request one byte every 0.5 s for SECONDS.
  ctl_client.py noread SOCKET SECONDS
      connect, ask for the session list and never read the reply.
  ctl_client.py fake-server SOCKET LOG [UID:GID]
      listen on SOCKET (as UID:GID after binding, when given) and append
      everything any client sends to LOG.
"""
import os
import socket
import struct
import sys
import time


def frame(pairs):
    body = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in pairs)
    return struct.pack("=I", len(body)) + body


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def replies(s):
    while True:
        hdr = recv_exact(s, 4)
        if hdr is None:
            return
        (n,) = struct.unpack("=I", hdr)
        body = recv_exact(s, n)
        if body is None:
            return
        fields = [f.decode("utf-8", "backslashreplace") for f in body.split(b"\0") if f]
        yield fields


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def cmd_send(path, args):
    fds = False
    if args and args[0] == "--fds":
        fds = True
        args = args[1:]
    s = connect(path)
    data = frame(args)
    if fds:
        cwd = os.open(".", os.O_PATH | os.O_DIRECTORY)
        socket.send_fds(s, [data], [0, 1, 2, cwd])
        os.close(cwd)
    else:
        s.sendall(data)
    for fields in replies(s):
        print(" | ".join(fields), flush=True)
        if fields and fields[0] in ("op=end", "op=error", "op=ok", "op=info", "op=ui"):
            break
    return 0


def cmd_drip(path, seconds):
    s = connect(path)
    print("connected", flush=True)
    data = frame(["op=list"])
    end = time.monotonic() + float(seconds)
    for b in data:
        if time.monotonic() > end:
            break
        try:
            s.send(bytes([b]))
        except OSError:
            print("dropped by the daemon", flush=True)
            return 0
        time.sleep(0.5)
    return 0


def cmd_noread(path, seconds):
    s = connect(path)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(frame(["op=list"]))
    print("sent", flush=True)
    time.sleep(float(seconds))
    return 0


def cmd_fake_server(path, log, ids=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    if ids:
        # The credentials a client sees (SO_PEERCRED) are those of listen().
        uid, gid = (int(x) for x in ids.split(":"))
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    s.listen(8)
    print("listening", flush=True)
    while True:
        c, _ = s.accept()
        c.settimeout(2)
        try:
            while True:
                d = c.recv(65536)
                if not d:
                    break
                with open(log, "ab") as f:
                    f.write(d)
        except OSError:
            pass
        c.close()


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cmd, path, rest = argv[1], argv[2], argv[3:]
    if cmd == "send":
        return cmd_send(path, rest)
    if cmd == "drip":
        return cmd_drip(path, rest[0])
    if cmd == "noread":
        return cmd_noread(path, rest[0])
    if cmd == "fake-server":
        return cmd_fake_server(path, rest[0], rest[1] if len(rest) > 1 else None)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
