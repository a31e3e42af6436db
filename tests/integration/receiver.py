#!/usr/bin/env python3
"""receiver.py - a tiny webhook receiver for the integration tests.

Listens on 127.0.0.1 (a given port, or a free one written to --port-file),
answers each POST with the next status of --responses (then 200), and
appends one JSON line per request to --log: method, path, headers (lower-case
names), body (text) and the status it answered.  Stops on SIGTERM.
--body TEXT replaces the JSON reply body (a stand-in for what an internal
service would answer).

    receiver.py --log req.jsonl [--port N | --port-file F] [--responses 500,500,200]
                [--body TEXT]
    receiver.py --free-port      # print a free loopback port and exit
"""
import argparse
import json
import signal
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--responses", default="")
    ap.add_argument("--body")
    ap.add_argument("--free-port", action="store_true")
    a = ap.parse_args()
    if a.free_port:
        print(free_port())
        return 0
    plan = [int(x) for x in a.responses.split(",") if x.strip()]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n)
            with lock:
                status = plan.pop(0) if plan else 200
                rec = {
                    "method": "POST",
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body.decode("utf-8", "replace"),
                    "status": status,
                }
                with open(a.log, "a") as f:
                    f.write(json.dumps(rec) + "\n")
            reply = (a.body if a.body is not None
                     else json.dumps({"received": status < 300})).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, fmt, *args):
            pass

    ThreadingHTTPServer.allow_reuse_address = True
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.shutdown).start())
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        import os
        os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
