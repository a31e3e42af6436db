#!/usr/bin/env python3
"""run_examples.py - the shell examples of the documentation run (issue 24,
item 5: docs that cannot drift), ctest docs.examples.

  python3 tests/docs/run_examples.py [--src DIR] [--bin PARITY] [DOC.md...]
  (default documents: README.md and server/SERVICE.md)

Marking convention, for the documents' authors:
  ```sh          runs: every fenced block whose info string is `sh` (or
                 `bash`, `shell`), also when indented inside a list item;
  ```sh norun    does not run; say in the text around it why (it installs
                 packages, needs PostgreSQL or another host, runs for
                 minutes); keep it to what really cannot run here;
  ```            (no language) a synopsis with placeholders (FILE, ID,
                 [--flag]): never run.
A document named here without a single runnable block fails: the examples
must not quietly stop running.

How a block runs: in a fresh temp directory with a fresh daemon (`parity
serve --listen 127.0.0.1:0`, a new data dir, so the first runs and
comparisons get ids 1, 2, ... as the examples assume), as one bash script
under `set -e -o pipefail -x`:
  - `127.0.0.1:8080`, `localhost:8080` and `host:8080` become the daemon's
    address; PARITY_SERVER and PARITY hold its base URL;
  - `curl` is curl with --fail-with-body: an answer of 400 or more fails
    the block (a documented request must succeed as documented);
  - `parity` and `build/parity` are the built binary (--bin); `parity
    compare` / `parity check` exiting 1 (the verdict "fail", documented
    as such) counts as success, any other non-zero exit fails (so does
    `parity submit`'s exit 1);
  - the files the examples name are the fixtures of FIXTURES below
    (tests/data): a new example naming a new file adds it there; the
    sample logs of tests/samples/ are there under their own path, so the
    README's Quick start runs verbatim;
  - a URL on the daemon named in a comment of the block ("# then open
    http://127.0.0.1:8080/ui/comparisons/1 in a browser") must answer 200
    after the block ran;
  - the daemon must then stop cleanly on SIGTERM (exit 0).
On failure: the document and line of the block, the script as run, its
output and the end of the daemon's stderr.  Exit 1; exit 0 otherwise.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

# file named by an example -> fixture under tests/data
FIXTURES = {
    "runA/numerics/rank_0_activations.log": "match/p1_a.log",  # eager
    "runB/numerics/rank_0_activations.log": "match/p1_b.log",  # traced
    "base_train.log": "train/q1_a.log",
    "cand_train.log": "train/q1_b.log",
}
DOCS = ("README.md", "server/SERVICE.md")
FENCE = re.compile(r"^(\s*)```\s*([A-Za-z]*)\s*(.*?)\s*$")
HOSTS = re.compile(r"\b(?:127\.0\.0\.1|localhost|host):8080\b")
COMMENT_URL = re.compile(r"#.*?(http://(?:127\.0\.0\.1|localhost|host):8080/\S*)")
README_MAX_LINES = 200
SUBMIT_BY = 80
BLOCK_TIMEOUT = 300  # seconds; the examples take ~1 s on an idle machine

PRELUDE = r"""
curl() { command curl --fail-with-body -sS "$@"; local rc=$?; echo; return $rc; }
"""

WRAPPER = r"""#!/bin/sh
# build/parity of the examples: the built binary; a verdict "fail" (exit 1
# of compare / check) is a documented outcome, not a broken example
"$PARITY_EXAMPLES_BIN" "$@"
rc=$?
case "$1:$rc" in
compare:1 | check:1 | submit:1) echo "(exit 1: verdict fail, as documented)" >&2; exit 0 ;;
esac
exit $rc
"""


def blocks(path):
    """(line, info, rest, text) of every fenced block of a Markdown file."""
    out = []
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info, rest = m.group(1), m.group(2).lower(), m.group(3).split()
        start = i + 1
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            ln = lines[i]
            body.append(ln[len(indent):] if ln.startswith(indent) else ln.lstrip())
            i += 1
        out.append((start, info, rest, "\n".join(body) + "\n"))
        i += 1
    return out


def start_daemon(binary, work):
    data = os.path.join(work, "data")
    port_file = os.path.join(work, "port")
    err = open(os.path.join(work, "daemon.err"), "w")
    proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--data", data,
                             "--port-file", port_file],
                            stdout=subprocess.DEVNULL, stderr=err, cwd=work)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
            with open(port_file) as fh:
                return proc, "127.0.0.1:" + fh.read().strip()
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    raise RuntimeError("the daemon did not start:\n" + tail(os.path.join(work, "daemon.err")))


def clip(text, width=300):
    """text with each line cut to width characters (JSON answers are long)."""
    return "\n".join(ln if len(ln) <= width else ln[:width] + " ..." for ln in text.split("\n"))


def tail(path, n=30):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return "".join(fh.readlines()[-n:])
    except OSError:
        return ""


def get_status(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError as e:
        return str(e)


def run_block(doc, line, text, args):
    """Run one block; a list of failure messages (empty: it passed)."""
    where = "%s:%d" % (doc, line)
    work = tempfile.mkdtemp(prefix="parity-doc.")
    problems = []
    proc = None
    try:
        for rel, fixture in FIXTURES.items():
            os.makedirs(os.path.dirname(os.path.join(work, rel)) or work, exist_ok=True)
            shutil.copyfile(os.path.join(args.src, "tests", "data", fixture),
                            os.path.join(work, rel))
        shutil.copytree(os.path.join(args.src, "tests", "samples"),
                        os.path.join(work, "tests", "samples"))
        os.makedirs(os.path.join(work, "build"))
        wrapper = os.path.join(work, "build", "parity")
        with open(wrapper, "w") as fh:
            fh.write(WRAPPER)
        os.chmod(wrapper, 0o755)

        proc, addr = start_daemon(args.bin, work)
        base = "http://" + addr
        script = HOSTS.sub(addr, text)
        env = dict(os.environ, PATH=os.path.join(work, "build") + os.pathsep + os.environ["PATH"],
                   PARITY_EXAMPLES_BIN=args.bin, PARITY_SERVER=base, PARITY=base)
        env.pop("PARITY_TOKEN", None)
        env.pop("PARITY_DB", None)
        try:
            r = subprocess.run(["bash", "-e", "-o", "pipefail", "-x", "-c", PRELUDE + script],
                               cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=BLOCK_TIMEOUT)
            rc, output = r.returncode, r.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            rc, output = "timeout after %d s" % BLOCK_TIMEOUT, (e.stdout or b"").decode("utf-8", "replace")
        if rc != 0:
            problems.append("%s: the block exited %s\n--- script ---\n%s--- output ---\n%s"
                            % (where, rc, script, clip(output)))
        for url in COMMENT_URL.findall(text):
            url = HOSTS.sub(addr, url.rstrip(".,;)"))
            status = get_status(url)
            if status != 200:
                problems.append("%s: %s (named in a comment) answers %s, not 200" % (where, url, status))
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = "no exit 60 s after SIGTERM"
        if rc != 0:
            problems.append("%s: the daemon's exit status after SIGTERM: %s" % (where, rc))
        proc = None
        if problems:
            problems.append("%s: the daemon's stderr ends:\n%s" % (where, tail(os.path.join(work, "daemon.err"))))
    except Exception as e:  # a broken fixture table or a daemon that does not start
        problems.append("%s: %s" % (where, e))
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    return problems


def readme_shape(path):
    """The README is for a newcomer (issue 25): at most README_MAX_LINES
    lines, `parity submit` within its first SUBMIT_BY lines, and a Quick
    start whose runnable blocks use the shipped samples (tests/samples/)."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    problems = []
    if len(lines) > README_MAX_LINES:
        problems.append("README.md: %d lines, more than %d: move operator, API or developer "
                        "material to deploy/README.md, server/API.md or tests/README.md"
                        % (len(lines), README_MAX_LINES))
    if not any("parity submit" in ln for ln in lines[:SUBMIT_BY]):
        problems.append("README.md: `parity submit` is not in the first %d lines" % SUBMIT_BY)
    quick = False
    section = ""
    for line, info, rest, text in blocks(path):
        heads = [ln for ln in lines[:line] if ln.startswith("## ")]
        section = heads[-1] if heads else ""
        if (section.strip() == "## Quick start" and info in ("sh", "bash", "shell")
                and "norun" not in rest and "tests/samples/" in text and "parity submit" in text):
            quick = True
    if not quick:
        problems.append("README.md: no runnable Quick start block running `parity submit` "
                        "on tests/samples/")
    return problems


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--bin", default=os.environ.get("PARITY_BIN"))
    ap.add_argument("docs", nargs="*", default=list(DOCS))
    args = ap.parse_args()
    if not args.bin:
        print("run_examples.py: --bin or PARITY_BIN must name the parity binary", file=sys.stderr)
        return 2
    args.bin = os.path.abspath(args.bin)
    args.src = os.path.abspath(args.src)

    failures = []
    ran = skipped = 0
    for doc in args.docs:
        runnable = 0
        for line, info, rest, text in blocks(os.path.join(args.src, doc)):
            if info not in ("sh", "bash", "shell"):
                continue
            if "norun" in rest:
                skipped += 1
                print("%s:%d: norun" % (doc, line))
                continue
            runnable += 1
            ran += 1
            problems = run_block(doc, line, text, args)
            print("%s:%d: %s" % (doc, line, "FAIL" if problems else "ok"))
            failures += problems
        if runnable == 0:
            failures.append("%s: no runnable ```sh block (the examples must run; see the top of "
                            "tests/docs/run_examples.py)" % doc)
    if "README.md" in args.docs:
        failures += readme_shape(os.path.join(args.src, "README.md"))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print("docs.examples: %d blocks ran, %d marked norun, %d failure(s)" % (ran, skipped, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
