#!/usr/bin/env python3
"""compare_numerics_ref.py - a stdlib-only Python reference of the offline
activation comparison, for tests/bench/vs_reference.sh.

This is OUR reimplementation, written from this repository's contracts
(matcher/spec/activation-log.md for parsing, matcher/spec/matching.md for
the four passes, statuses and distances); it is not TorchTitan's
compare_numerics.py and contains none of its code.  It stands in for that
script in the issue-12 benchmark ("parity compare -o diff.html >= 20x faster
and <= 1/5 the peak RSS"), so it is written the way a plain Python tool
would be: each log parsed into a list of dicts, the four passes over dicts
of queues, a list of row dicts, and the HTML report built as a list of
strings joined once and written.  It is not tuned, and not slowed down.

tests/integration/test_compare_ref.sh checks that it pairs rows exactly like
the C matcher (same rows, statuses, methods, phases, origins) on the
fixtures in tests/data/match and on generated pairs of every scenario.

usage: compare_numerics_ref.py A.log B.log -o diff.html
           [--overrides FILE] [--json rows.json]
--json writes {"rows": [[a_key, b_key, status, method, phase, origin], ...],
"summary": {...}} for the agreement test.  Exit 0 pass, 1 fail, 2 error.
"""
import argparse
import collections
import html
import json
import math
import re
import sys

STATS = ["Shape", "L1 norm", "L2 norm", "Min", "Max", "Mean"]
FIELDS = [("Location", "location"), ("Phase", "phase"),
          ("Output hash", "output_hash"), ("Input hashes", "input_hashes"),
          ("Input producers", "input_producers")]
BLANKS = " \t\r\f\v"          # what the log format counts as blank
SPACES = " \t\r\n\v\f"        # what hash items and override lines trim
HASH_EPS = 1e-8
NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                       r"|[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
OP_COUNTER_RE = re.compile(r"/op_[0-9]+_")
ROOT_RE = re.compile(r"([A-Z][A-Za-z0-9_]*)\.")


def parse_number(text):
    """The number a stat or hash item stands for, or None."""
    text = text.strip(BLANKS)
    if not NUMBER_RE.fullmatch(text):
        return None
    return float(text)


# ---- parsing ------------------------------------------------------------

def parse_log(path):
    """Read an activation log into a dict: entries (list of dicts in file
    order) and the excluded ops."""
    log = {"entries": [], "excluded": None, "total": None}
    entry = None
    in_header = True
    skipping = False
    with open(path, "r", encoding="utf-8", errors="replace", newline="\n") as f:
        for line_no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.endswith("\r"):
                line = line[:-1]
            if line_no == 1 and line.startswith("\ufeff"):
                line = line[1:]
            text = line.strip(BLANKS)
            if not text:
                if entry is not None:
                    log["entries"].append(entry)
                entry = None
                skipping = False
                continue
            if line.startswith("["):
                if entry is not None:
                    log["entries"].append(entry)
                entry = None
                in_header = False
                close = line.rfind("]")
                if close <= 0:
                    skipping = True
                    continue
                skipping = False
                entry = {"key": line[1:close], "line": line_no, "stats": {},
                         "phase": "forward", "output_hash": None,
                         "input_hashes": None, "input_producers": None,
                         "location": None}
                continue
            if in_header:
                if text.startswith("Total captured activations:"):
                    log["total"] = text[27:].strip(BLANKS)
                elif text.startswith("Excluded ops dispatched:"):
                    log["excluded"] = text[24:].strip(BLANKS)
                continue
            if skipping or entry is None:
                continue
            parse_field(entry, text)
    if entry is not None:
        log["entries"].append(entry)
    return log


def parse_field(entry, text):
    for name in STATS:
        if text.startswith(name + ":"):
            value = text[len(name) + 1:].strip(BLANKS)
            entry["stats"][name] = value
            return
    for name, field in FIELDS:
        at = text.find(name + ":")
        if at >= 0:
            value = text[at + len(name) + 1:].strip(BLANKS)
            if field == "phase":
                entry["phase"] = "backward" if value.lower() == "backward" else "forward"
            else:
                entry[field] = value
            return


def parse_overrides(path):
    pairs = {}
    with open(path, "r", encoding="utf-8", errors="replace", newline="") as f:
        text = f.read()
    if text.startswith("\ufeff"):
        text = text[1:]
    for line in text.split("\n"):
        line = line.strip(SPACES)
        if not line or line.startswith("#") or "," not in line:
            continue
        a, b = line.split(",", 1)
        pairs[a.strip(SPACES)] = b.strip(SPACES)
    return pairs


# ---- keys ---------------------------------------------------------------

def strip_root(key):
    m = ROOT_RE.match(key)
    if m and sum(1 for c in m.group(1) if c.isupper() and c.isascii()) >= 2:
        return key[m.end():]
    return key


def fuzzy_key(key):
    return strip_root(OP_COUNTER_RE.sub("/", key))


def op_type(key):
    if "/" not in key:
        return key
    return fuzzy_key(key).rsplit("/", 1)[-1]


def output_hash(entry):
    if entry["output_hash"] is not None:
        return entry["output_hash"]
    return entry["stats"].get("L1 norm")


# ---- distances ----------------------------------------------------------

def rel_diff(a, b, ta, tb):
    if math.isnan(a) or math.isnan(b):
        return 0.0 if ta == tb else 1.0
    if a == b:
        return 0.0
    if math.isinf(a) or math.isinf(b):
        return 1.0
    d = abs(a - b) / max(abs(a), abs(b), 1e-30)
    return 1.0 if d > 1.0 or math.isnan(d) else d


def hash_distance(a, b):
    a = a or ""
    b = b or ""
    if not a and not b:
        return None
    if not a or not b:
        return 1.0
    if a == b:
        return 0.0
    items_a = a.split(",")
    items_b = b.split(",")
    if len(items_a) != len(items_b):
        return 1.0
    worst = 0.0
    for x, y in zip(items_a, items_b):
        x = x.strip(SPACES)
        y = y.strip(SPACES)
        if x == "nan" and y == "nan":
            d = 0.0
        elif x == "nan" or y == "nan":
            d = 1.0
        else:
            nx, ny = parse_number(x), parse_number(y)
            if nx is None or ny is None:
                d = 0.0 if x == y else 1.0
            else:
                d = rel_diff(nx, ny, x, y)
        worst = max(worst, d)
        if worst >= 1.0:
            break
    return worst


def compare_pair(a, b):
    """Status, distances and per-stat differences of a paired row."""
    shape_differs = a["stats"].get("Shape", "") != b["stats"].get("Shape", "")
    out_d = hash_distance(output_hash(a), output_hash(b))
    in_d = hash_distance(a["input_hashes"], b["input_hashes"])
    in_differs = in_d is not None and in_d > HASH_EPS
    diff = shape_differs or in_differs or (out_d is not None and out_d > HASH_EPS)
    stat_diffs = {}
    for name in STATS:
        ta, tb = a["stats"].get(name), b["stats"].get(name)
        if ta is None or tb is None or ta == tb:
            continue
        na = parse_number(ta) if name != "Shape" else None
        nb = parse_number(tb) if name != "Shape" else None
        stat_diffs[name] = 1.0 if na is None or nb is None else rel_diff(na, nb, ta, tb)
    return {"status": "diff" if diff else "match", "origin": diff and not in_differs,
            "shape_differs": shape_differs, "output_hash_distance": out_d,
            "input_hash_distance": in_d, "stat_diffs": stat_diffs}


# ---- the four passes ----------------------------------------------------

def match(entries_a, entries_b, overrides):
    pair_of = {}      # A index -> (B index, method)
    claimed = set()

    def run_pass(method, key_a, key_b):
        groups = collections.defaultdict(collections.deque)
        for j, e in enumerate(entries_b):
            if j not in claimed:
                groups[key_b(e)].append(j)
        for i, e in enumerate(entries_a):
            if i in pair_of:
                continue
            k = key_a(e)
            if k is None:
                continue
            queue = groups.get(k)
            if queue:
                j = queue.popleft()
                claimed.add(j)
                pair_of[i] = (j, method)

    if overrides:
        run_pass("override", lambda e: overrides.get(e["key"]), lambda e: e["key"])
    run_pass("exact", lambda e: strip_root(e["key"]), lambda e: strip_root(e["key"]))
    run_pass("fuzzy", lambda e: fuzzy_key(e["key"]), lambda e: fuzzy_key(e["key"]))

    def stats_key(e):
        return (op_type(e["key"]), e["stats"].get("Shape", ""), output_hash(e) or "")

    run_pass("stats", stats_key, stats_key)

    rows = []
    for i, a in enumerate(entries_a):
        if i in pair_of:
            j, method = pair_of[i]
            row = {"a": a, "b": entries_b[j], "method": method, "phase": a["phase"]}
            row.update(compare_pair(a, entries_b[j]))
        else:
            row = {"a": a, "b": None, "method": None, "phase": a["phase"],
                   "status": "a_only", "origin": False, "stat_diffs": {}}
        rows.append(row)
    for j, b in enumerate(entries_b):
        if j not in claimed:
            rows.append({"a": None, "b": b, "method": None, "phase": b["phase"],
                         "status": "b_only", "origin": False, "stat_diffs": {}})
    return rows


def summarise(rows):
    s = {"rows": len(rows), "match": 0, "diff": 0, "a_only": 0, "b_only": 0,
         "first_divergence": {"forward": None, "backward": None}}
    for i, r in enumerate(rows):
        s[r["status"]] += 1
        if r["status"] == "diff" and s["first_divergence"][r["phase"]] is None:
            s["first_divergence"][r["phase"]] = i
    return s


# ---- the HTML report ----------------------------------------------------

def intensity(rd):
    if rd is None or not rd > 1e-8:
        return 0.0
    if rd >= 0.1:
        return 1.0
    return (math.log10(rd) + 8.0) / 7.0


def cell(entry, name, rd):
    value = entry["stats"].get(name, "") if entry else ""
    t = intensity(rd)
    if t > 0:
        return '<td class="d" style="background:rgba(220,0,0,%.2f)">%s</td>' % (
            0.15 + 0.85 * t, html.escape(value))
    return "<td>%s</td>" % html.escape(value)


def write_html(path, rows, summary, names):
    shown = [n for n in STATS if n != "L1 norm" or any(
        (r["a"] and "L1 norm" in r["a"]["stats"]) or (r["b"] and "L1 norm" in r["b"]["stats"])
        for r in rows)]
    parts = ["<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>numerics diff</title>",
             "<style>table{border-collapse:collapse}td,th{border:1px solid #ccc;"
             "padding:2px 4px;font:12px monospace}.d{color:#000}</style></head><body>",
             "<h1>%s vs %s</h1>" % (html.escape(names[0]), html.escape(names[1])),
             "<p>%d rows: %d match, %d diff, %d only in A, %d only in B</p>" % (
                 summary["rows"], summary["match"], summary["diff"], summary["a_only"],
                 summary["b_only"])]
    for phase in ("forward", "backward"):
        parts.append("<h2>%s</h2><table><tr><th>#</th><th>A key</th><th>B key</th>"
                     "<th>status</th><th>method</th>" % phase.title())
        for name in shown:
            parts.append("<th>A %s</th><th>B %s</th>" % (name, name))
        parts.append("<th>A output hash</th><th>B output hash</th></tr>\n")
        for i, r in enumerate(rows):
            if r["phase"] != phase:
                continue
            a, b = r["a"], r["b"]
            parts.append('<tr class="%s"><td>%d</td><td>%s</td><td>%s</td><td>%s</td>'
                         "<td>%s</td>" % (
                             r["status"], i, html.escape(a["key"]) if a else "",
                             html.escape(b["key"]) if b else "", r["status"],
                             r["method"] or ""))
            for name in shown:
                rd = r["stat_diffs"].get(name)
                parts.append(cell(a, name, rd))
                parts.append(cell(b, name, rd))
            hd = r.get("output_hash_distance")
            for e in (a, b):
                h = (output_hash(e) or "") if e else ""
                parts.append(cell({"stats": {"h": h}}, "h", hd if r["status"] == "diff" else None))
            parts.append("</tr>\n")
        parts.append("</table>")
    parts.append("</body></html>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(parts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("-o", dest="out")
    ap.add_argument("--overrides")
    ap.add_argument("--json")
    args = ap.parse_args()
    try:
        log_a = parse_log(args.a)
        log_b = parse_log(args.b)
        overrides = parse_overrides(args.overrides) if args.overrides else {}
    except OSError as e:
        print("compare_numerics_ref: %s" % e, file=sys.stderr)
        return 2
    rows = match(log_a["entries"], log_b["entries"], overrides)
    summary = summarise(rows)
    if args.out:
        write_html(args.out, rows, summary, (args.a, args.b))
    if args.json:
        doc = {"rows": [[r["a"]["key"] if r["a"] else None, r["b"]["key"] if r["b"] else None,
                         r["status"], r["method"], r["phase"], r["origin"]] for r in rows],
               "summary": summary}
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f)
    print("%d rows: %d match, %d diff, %d a_only, %d b_only" % (
        summary["rows"], summary["match"], summary["diff"], summary["a_only"],
        summary["b_only"]))
    return 0 if summary["diff"] + summary["a_only"] + summary["b_only"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
