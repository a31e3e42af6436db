#!/usr/bin/env python3
"""smtp_sink.py - a minimal SMTP server for the email tests (stdlib only;
smtpd is gone from Python 3.12).  Speaks EHLO/HELO, MAIL, RCPT, DATA, RSET,
NOOP and QUIT; saves each message as DIR/msg-<n>.eml (the bytes after
DATA, dot-unstuffed, CRLF kept; a restarted sink numbers on from the
messages already there) with DIR/msg-<n>.json holding the envelope
({"from", "to", "helo"}), each written to a temporary name and renamed, so
a reader never sees half a message.  --reject ADDR answers RCPT TO that
address with 550 (a permanent refusal).

  smtp_sink.py --dir DIR [--port N] [--port-file FILE] [--reject ADDR]
  smtp_sink.py --free-port    (print a free loopback port and exit)
"""
import argparse
import itertools
import json
import os
import socket
import socketserver
import threading

COUNTER = itertools.count(1)
LOCK = threading.Lock()


class Handler(socketserver.StreamRequestHandler):
    def reply(self, line):
        self.wfile.write(line.encode() + b"\r\n")
        self.wfile.flush()

    def handle(self):
        opts = self.server.opts
        self.reply("220 sink.test ESMTP parity test sink")
        env = {"from": None, "to": [], "helo": None}
        while True:
            raw = self.rfile.readline(65536)
            if not raw:
                return
            line = raw.rstrip(b"\r\n").decode("utf-8", "replace")
            verb = line[:4].upper()
            arg = line[4:].strip()
            if verb in ("EHLO", "HELO"):
                env["helo"] = arg
                if verb == "EHLO":
                    self.wfile.write(b"250-sink.test\r\n250-8BITMIME\r\n250 SIZE 104857600\r\n")
                    self.wfile.flush()
                else:
                    self.reply("250 sink.test")
            elif verb == "MAIL":
                # "FROM:<addr> SIZE=n": keep the path, drop the parameters
                path = arg.split(":", 1)[1].strip() if ":" in arg else arg
                env = {"from": path.split(" ")[0], "to": [], "helo": env["helo"]}
                self.reply("250 OK")
            elif verb == "RCPT":
                addr = (arg.split(":", 1)[1].strip() if ":" in arg else arg).split(" ")[0]
                if opts.reject and addr.strip("<>").lower() == opts.reject.lower():
                    self.reply("550 5.1.1 mailbox refused")
                else:
                    env["to"].append(addr)
                    self.reply("250 OK")
            elif verb == "DATA":
                if not env["to"]:
                    self.reply("503 no recipients")
                    continue
                self.reply("354 end with <CRLF>.<CRLF>")
                data = bytearray()
                while True:
                    l = self.rfile.readline(1 << 20)
                    if not l:
                        return
                    if l in (b".\r\n", b".\n"):
                        break
                    if l.startswith(b"."):
                        l = l[1:]
                    data += l
                with LOCK:
                    n = next(COUNTER)
                base = os.path.join(opts.dir, "msg-%d" % n)
                for ext, blob in ((".json", json.dumps(env).encode()), (".eml", bytes(data))):
                    with open(base + ext + ".tmp", "wb") as f:
                        f.write(blob)
                    os.rename(base + ext + ".tmp", base + ext)
                self.reply("250 OK queued as %d" % n)
                env = {"from": None, "to": [], "helo": env["helo"]}
            elif verb == "RSET":
                env = {"from": None, "to": [], "helo": env["helo"]}
                self.reply("250 OK")
            elif verb == "NOOP":
                self.reply("250 OK")
            elif verb == "QUIT":
                self.reply("221 bye")
                return
            else:
                self.reply("502 not implemented")


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--reject")
    ap.add_argument("--free-port", action="store_true")
    opts = ap.parse_args()
    if opts.free_port:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])
        s.close()
        return
    os.makedirs(opts.dir, exist_ok=True)
    # a restarted sink continues the numbering of the directory
    global COUNTER
    COUNTER = itertools.count(1 + sum(1 for n in os.listdir(opts.dir) if n.endswith(".eml")))
    srv = Server(("127.0.0.1", opts.port), Handler)
    srv.opts = opts
    if opts.port_file:
        with open(opts.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        os.rename(opts.port_file + ".tmp", opts.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
