#!/usr/bin/env python3
"""make_corpus.py - (re)build the committed seed corpora in tests/fuzz/corpus/.

Seeds come from the generators in tests/tools (small logs, several
scenarios), the fixtures in tests/data, and a few hand-written edge cases.  Logs
are cut at a block or line boundary to a few KB so the fuzzer stays fast;
the whole corpus stays well under 2 MB.  Inputs of the actlog and trainlog
targets start with a split plan (see fuzz_common.h): byte 0 = number of
chunk sizes - 1 (bits 0-2), small max_line (bit 3), stop-after option
(bits 4-7); then the chunk sizes.

Usage: make_corpus.py [--tests DIR] [--out DIR]   (defaults: the tree's)
Deterministic: the generators are run with fixed seeds.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# split plans: (name, bytes)
PLANS = [
    ("whole64k", bytes([0x00, 0xFF])),            # 255-byte chunks
    ("bytewise", bytes([0x00, 0x00])),            # 1-byte chunks
    ("mixed", bytes([0x02, 0x07, 0x01, 0xC8])),   # 7, 1, 200, ...
    ("smallline", bytes([0x08, 0x40])),           # max_line 96, 64-byte chunks
    ("stop3", bytes([0x31, 0x10, 0x80])),         # stop after 3 callbacks
]


def cut(text, limit, sep):
    """Cut text to at most limit bytes, at the last sep before it."""
    if len(text) <= limit:
        return text
    at = text.rfind(sep, 0, limit)
    return text[: at + len(sep)] if at > 0 else text[:limit]


def gen(tool, args, tmp):
    a = os.path.join(tmp, "a.log")
    b = os.path.join(tmp, "b.log")
    subprocess.run([sys.executable, tool] + args + ["--out-a", a, "--out-b", b],
                   check=True, stdout=subprocess.DEVNULL)
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read(), fb.read()


def write(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def actlog_seeds(tests, tmp):
    tool = os.path.join(tests, "tools", "gen_actlog.py")
    logs = {}
    for scen in ["identical", "eager-traced", "missing", "dtype", "diverge", "ulp"]:
        a, b = gen(tool, ["--layers", "1", "--seed", "7", "--scenario", scen], tmp)
        logs[scen] = (a, b)
    legacy = gen(tool, ["--layers", "1", "--seed", "3", "--legacy"], tmp)
    logs["legacy"] = legacy
    fx = os.path.join(tests, "data", "match")
    with open(os.path.join(fx, "p4_a.log"), "rb") as f:
        p4a = f.read()
    with open(os.path.join(fx, "p4_b.log"), "rb") as f:
        p4b = f.read()
    with open(os.path.join(fx, "p4_overrides.csv"), "rb") as f:
        p4ov = f.read()
    return logs, p4a, p4b, p4ov


ACT_EDGE = {
    "crlf_bom": b"\xef\xbb\xbfTotal captured activations: 1\r\n"
                b"Excluded ops dispatched: (none)\r\n\r\n"
                b"[M.x/op_0_mm]\r\n  Shape: torch.Size([2]), Dtype: torch.float32\r\n"
                b"  L2 norm: 1.0e+00\r\n  Min: -inf\r\n  Max: inf\r\n  Mean: nan\r\n"
                b"  Output hash: 1.0, 2.0\r\n  Phase: backward\r\n",
    "noheader_dup_badnum": b"[a/op_0_x]\n  Min: 1.5x\n  Mean: -0.0\n\n[a/op_0_x]\n"
                           b"  Max: 1e308\n  L1 norm: 1e-400\nwhat is this\n",
    "unclosed": b"Total captured activations: 3\n\n[never closed\n  Min: 1\n\n"
                b"[ok/op_1_add]\n  Input hashes: 1, nan, -inf\n  Input producers: a;b\n",
    "nul": b"Total captured activations: 1\n\n[a/op_0_x]\n  Min: 1\x00\n",
    "header_only": b"Total captured activations: 0\nExcluded ops dispatched: b, a, a\n",
    "empty": b"",
    "long_line": b"Total captured activations: 1\n\n[a/op_0_x]\n  Location: " + b"x" * 300 + b"\n",
}

TRAIN_EDGE = {
    "multirank_val": b"[rank0]:step: 1  loss: 1.0  grad_norm: 2.0\n"
                     b"[rank1]:step: 1  loss: 1.0  grad_norm: 2.0\n"
                     b"[rank0]:step: 1  loss: 1.5  grad_norm: 2.0\n"
                     b"[rank0]:validate step: 1  loss: 3.25\n"
                     b"[rank1]:step: 0  loss: 1,234.5  memory: 1.00GiB(2.50%)  mfu: 7%\n",
    "crlf_backwards": b"step: 5  loss: nan  grad_norm: inf\r\nstep: 4  loss: 1  grad_norm: 2\r\n"
                      b"Traceback (most recent call last):\r\n  File \"x.py\"\r\nRuntimeError: boom\r\n",
    "visible_esc": "\u241b[31mstep: 2  \u241b[32mloss: 9.5  lr: 1e-4  elapsed_time_per_step: 1.5s\n"
                   .encode("utf-8"),
    "malformed": b"step: 3  loss: \nstep: x loss: 1\nKilled\n",
    "no_metric": b"hello\nworld\n",
    "nul": b"step: 1  loss: 1.0\n\x00\n",
    # issue 13: early-2024 format, chatter with step:, native crash, cuts
    "early_2024": b"[rank0]:2024-03-08 17:21:06,100 - root - INFO - step: 1, current loss: 10.8, "
                  b"lr: [8e-05]\nstep: 2, current loss: 10.52, lr: [8e-05]\nstep: 3, current loss",
    "step_chatter": b"step: 1  loss: 2.0  grad_norm: 1.0\nlr_scheduler: warmup step: 2 of 200\n"
                    b"Dumping traces at step: 2\n - INFO - step: 2  lo\nstep: 3  loss: 1.5\n",
    "native_crash": b"[rank1]:step: 1  loss: 2.0\n[rank1]:[E519 19:52:14.553 ProcessGroupNCCL.cpp:2198]"
                    b" watchdog\nterminate called after throwing an instance of 'c10::Error'\n"
                    b"frame #0: c10::Error::Error() + 0x96\nE0519 19:52:14.55 x.cpp:1] y\n"
                    b"  exitcode  : -6 (pid: 1)\nSegmentation fault (core dumped)\n",
    "cut_fields": b"step: 1  loss: 1.00000  grad_norm: 31.5000  memory: 1.0GiB(2%)  tps: 9\n"
                  b"step: 2  loss: 1.00000  grad_norm: 31.5\nstep: 3  loss: 1.00000  grad_norm: 31.5000"
                  b"  memory: 1.0GiB(2%)  tps: 9\nstep: 4  loss: 0.9",
}

ACT_EDGE["phase_empty_key"] = (b"Total captured activations: 2\n[a/op_0_mm]\n  Phase: optimizer\n\n"
                               b"[]\n  Phase:\n  Min: 1\n")

OV_EDGE = {
    "bom_crlf": b"\xef\xbb\xbf# comment\r\na/op_0_x , b/op_0_x\r\n\r\nno comma here\r\n"
                b"a/op_0_x,c\r\n , \r\n,\r\nk, v, w\r\n",
    "tabs": b"\t a \t,\t b \t\n#x,y\n   # indented comment\nlast, line-without-newline",
    "empty": b"",
}

# upload: split plan byte 0 = chunk sizes - 1 (bits 0-2), small max_line
# (bit 3), raw body (0x10), small upload limit (0x20), abort (0x40),
# settle twice (0x80); form parts are separated by SEP, each starting with
# a "key" or "key;filename" line.
UP_SEP = b"\n--XB\n"


def up_form(*parts):
    return UP_SEP.join(h + b"\n" + d for h, d in parts)


def gz(data):
    import gzip
    return gzip.compress(data, mtime=0)


ROUTES = [
    (0, 63, b"/healthz"), (1, 63, b"/runs"), (0, 63, b"/runs/12"), (2, 10, b"/runs/12"),
    (0, 63, b"/runs/1/logs/0"), (0, 63, b"/runs/3/ops"), (0, 63, b"/runs/3/steps"),
    (1, 63, b"/comparisons"), (0, 3, b"/comparisons/7/rows"), (3, 63, b"/comparisons/7/steps.csv"),
    (2, 63, b"/comparisons/9"), (4, 63, b"/runs/12"), (0, 63, b"/runs/"), (0, 63, b"/runs/abc"),
    (0, 63, b"/runs/99999999999999999999"), (0, 63, b"/runs/-1"), (0, 63, b"/nope"),
    (5, 1, b"/healthz/"), (6, 63, b""), (0, 63, b"/comparisons/1/steps"),
    (0, 63, b"/runs/1/logs/4294967296"), (0, 63, b"/runs/1/logs/2147483647"),
]


MSPROBE_EDGE = {
    "nan_literals": b'{"task": "statistics", "data": {"Torch.add.0.forward": {"output": '
                    b'[{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], '
                    b'"Max": NaN, "Min": -Infinity, "Mean": Infinity, "Norm": 1e309}]}}}',
    "md5_mode": b'{"task": "statistics", "framework": "mindspore", "data": {"Mint.cos.0.forward": '
                b'{"input_args": [{"type": "mindspore.Tensor", "dtype": "Float32", "shape": [3], '
                b'"Max": 1, "Min": 0, "Mean": 0.5, "Norm": 1.2, "md5": "0a1b2c3d"}, '
                b'{"type": "int", "value": 2}], "input_kwargs": {"k": {"type": "bool", '
                b'"value": true}}, "output": [{"type": "mindspore.Tensor", "dtype": "Float32", '
                b'"shape": [3], "Max": true, "Min": null, "Mean": "NaN", "Norm": 2, '
                b'"md5": "ffffffff"}, null]}, "Module.fc.Linear.parameters_grad": '
                b'{"weight": {"shape": [1], "dtype": "x", "Norm": 0}}}}',
    "stack_new": b'{"0": [["Torch.matmul.0.forward", "Functional.linear.1.backward"], '
                 b'["File /x/msprobe/pytorch/hook_module/wrap_torch.py, line 9, in f, \\n x", '
                 b'"File /w/model.py, line 42, in forward, \\n y"]], "1": [["File a.py, line 1, '
                 b'in g, \\n z"], ["Module.a.A.forward.0"]]}',
    "stack_old": b'{"Tensor.__add__.0.forward": ["File /w/utils.py, line 176, in get, \\n a = 0"]}',
    "bad_record": b'{"task": "statistics", "data": {"a.0.forward": 3, "b": {"output": '
                  b'[{"shape": "x"}]}}}',
    "deep": b'{"data": {"op": {"output": ' + b"[" * 40 + b"]" * 40 + b'}}}',
    "broken": b'{"task": "statistics",\n "data": {\n  "a.0.forward": {,}}}',
}


# upload: two msprobe dumps (two ranks) with a stack and a construct part
MSPROBE_FORM = None


def msprobe_form():
    return up_form((b"log;dump.json", MSPROBE_EDGE["md5_mode"]),
                   (b"stack;stack.json", MSPROBE_EDGE["stack_new"]),
                   (b"log;dump.json", MSPROBE_EDGE["nan_literals"]),
                   (b"construct;construct.json", b'{"Mint.cos.0.forward": null}'))


def msprobe_seeds(tests, out):
    """msprobe: dumps of msprobe's tests and of ours (cut to whole ops is
    not possible in JSON: small ones whole), stacks, edge cases."""
    m = os.path.join(tests, "data", "msprobe")
    files = [("run_ut_dump", "pytorch_run_ut_dump.json"),
             ("ms_construct", os.path.join("mindspore", "construct.json"))]
    for j, (name, rel) in enumerate(files):
        with open(os.path.join(m, rel), "rb") as f:
            write(out, "msprobe", name, PLANS[j % len(PLANS)][1] + f.read())
    for j, (name, text) in enumerate(sorted(MSPROBE_EDGE.items())):
        write(out, "msprobe", "edge_%s" % name, PLANS[j % len(PLANS)][1] + text)
    # the activation parser hands a dump over after a BOM and blanks
    write(out, "actlog", "msprobe_bom_bytewise",
          PLANS[1][1] + b"\xEF\xBB\xBF\n \n" + MSPROBE_EDGE["md5_mode"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", default=os.path.join(HERE, ".."))
    ap.add_argument("--out", default=os.path.join(HERE, "corpus"))
    args = ap.parse_args()
    tests = os.path.abspath(args.tests)
    out = os.path.abspath(args.out)
    if os.path.isdir(out):
        shutil.rmtree(out)
    global MSPROBE_FORM
    MSPROBE_FORM = msprobe_form()
    with tempfile.TemporaryDirectory() as tmp:
        logs, p4a, p4b, p4ov = actlog_seeds(tests, tmp)
        # actlog: each scenario's A or B side, cut to ~3 KB, under a plan
        i = 0
        for scen, (a, b) in sorted(logs.items()):
            plan_name, plan = PLANS[i % len(PLANS)]
            side = a if i % 2 == 0 else b
            write(out, "actlog", "%s_%s" % (scen, plan_name), plan + cut(side, 3000, b"\n\n"))
            i += 1
        write(out, "actlog", "identical_full_mixed", PLANS[2][1] + logs["identical"][0])
        write(out, "actlog", "p4a_whole", PLANS[0][1] + p4a)
        write(out, "actlog", "p4b_bytewise", PLANS[1][1] + p4b)
        for j, (name, text) in enumerate(sorted(ACT_EDGE.items())):
            write(out, "actlog", "edge_%s" % name, PLANS[j % len(PLANS)][1] + text)

        # trainlog: generator scenarios (candidate side), fixtures, edges
        tool = os.path.join(tests, "tools", "gen_trainlog.py")
        scens = ["identical", "noise", "regress", "nan", "crash", "duplicate", "malformed", "gap"]
        for j, scen in enumerate(scens):
            extra = []
            if j % 3 == 1:
                extra.append("--no-color")
            if j % 4 == 2:
                extra.append("--no-rank-prefix")
            a, b = gen(tool, ["--steps", "8", "--seed", "5", "--scenario", scen, "--at", "4",
                              "--val-every", "3"] + extra, tmp)
            plan_name, plan = PLANS[j % len(PLANS)]
            write(out, "trainlog", "%s_%s" % (scen, plan_name), plan + cut(b, 3000, b"\n"))
        with open(os.path.join(tests, "data", "train", "q1_a.log"), "rb") as f:
            write(out, "trainlog", "q1a_cut_mixed", PLANS[2][1] + cut(f.read(), 6000, b"\n"))
        for j, (name, text) in enumerate(sorted(TRAIN_EDGE.items())):
            write(out, "trainlog", "edge_%s" % name, PLANS[j % len(PLANS)][1] + text)

        # overrides: the fixture, pairs from p1's expected result, edges
        write(out, "overrides", "p4_overrides", p4ov)
        with open(os.path.join(tests, "data", "match", "p1.expected.json")) as f:
            rows = [r for r in json.load(f)["rows"] if r[0] and r[1] and r[0] != r[1]]
        lines = ["# pairs from p1 (eager vs traced)"]
        lines += ["%s, %s" % (r[0], r[1]) for r in rows[:12]]
        write(out, "overrides", "p1_pairs", ("\n".join(lines) + "\n").encode())
        for name, text in OV_EDGE.items():
            write(out, "overrides", name, text)

        # match: A, separator, B[, separator, overrides]
        sep = b"\n=====\n"
        write(out, "match", "p4_with_overrides", p4a + sep + p4b + sep + p4ov)
        write(out, "match", "p4_plain", p4a + sep + p4b)
        for scen, (a, b) in sorted(logs.items()):
            write(out, "match", scen, cut(a, 2500, b"\n\n") + sep + cut(b, 2500, b"\n\n"))
        write(out, "match", "edge_dup_keys",
              b"[X.a/op_0_mm]\n  Shape: s\n  Output hash: 1\n\n[X.a/op_0_mm]\n  Shape: s\n"
              + sep + b"[a/op_1_mm]\n  Shape: s\n  Output hash: 1.00000001\n\n"
              b"[b/op_0_mm]\n  Shape: t\n  Output hash: 1\n  Input hashes: nan\n"
              + sep + b"X.a/op_0_mm, b/op_0_mm\nmissing, a/op_1_mm\n")

        # upload: form parts and raw bodies around real logs
        act = cut(logs["identical"][0], 2000, b"\n\n")
        act_b = cut(logs["diverge"][1], 2000, b"\n\n")
        with open(os.path.join(tests, "data", "train", "q1_a.log"), "rb") as f:
            train = cut(f.read(), 1500, b"\n")
        small_train = b"step: 1  loss: 1.5  grad_norm: 2.0\nstep: 2  loss: 1.25  grad_norm: 2.5\n"
        ups = {
            "form_two_ranks": (bytes([0x01, 0xFF, 0x07]),
                               up_form((b"name", b"eager"), (b"log;rank_0_activations.log", act),
                                       (b"log;rank_1_activations.log", act_b),
                                       (b"meta", b'{"commit":"abc"}'))),
            "form_ranks_fields": (bytes([0x80, 0x40]),
                                  up_form((b"rank", b"3"), (b"log;a.log", train),
                                          (b"rank", b"1"), (b"log;b.log.gz", gz(train)),
                                          (b"kind", b"training"))),
            "form_dup_rank": (bytes([0x00, 0x00]),
                              up_form((b"log;rank_2.log", small_train),
                                      (b"log;rank_2.log", small_train))),
            "form_mixed_kinds": (bytes([0x02, 0x10, 0x01, 0x80]),
                                 up_form((b"log", act), (b"log", train))),
            "form_unknown_field": (bytes([0x00, 0xFF]), up_form((b"colour", b"red"), (b"log", train))),
            "form_bad_meta": (bytes([0x00, 0xFF]),
                              up_form((b"log", train), (b"meta", b'["not an object"]'),
                                      (b"name", b"x" * 1001))),
            "form_gzip_bomb": (bytes([0x20, 0xFF]), up_form((b"log;big.gz", gz(b"step: 1 loss: 1\n" * 40000)))),
            "form_corrupt_gzip": (bytes([0x00, 0x05]), up_form((b"log", gz(train)[:-9] + b"junk"))),
            "form_binary": (bytes([0x00, 0x20]), up_form((b"log", small_train + b"\x00\x01\x02" + b"y" * 200))),
            "form_empty": (bytes([0x00, 0x01]), b""),
            "form_kind_after_log": (bytes([0x01, 0x40, 0x07]),
                                    up_form((b"log;a.log", train), (b"kind", b"training"))),
            "form_kind_contradicts": (bytes([0x00, 0xFF]),
                                      up_form((b"log;a.log", act), (b"kind", b"training"))),
            "raw_training": (bytes([0x11, 0x40, 0x03]),
                             b"name=run&kind=training&rank=0&meta={\"branch\":\"main\"}&filename=rank_0.log\n" + train),
            "raw_activation_gz": (bytes([0x10, 0x11]), b"filename=rank_4_activations.log.gz\n" + gz(act)),
            "raw_bad_rank": (bytes([0x10, 0xFF]), b"rank=-1\n" + train),
            "raw_abort": (bytes([0x50, 0xFF]), b"kind=activation\n" + act),
            "raw_unrecognised": (bytes([0x90, 0x08]), b"\nhello\nworld\n"),
            "form_msprobe_stack": (bytes([0x01, 0xFF, 0x07]), MSPROBE_FORM),
        }
        for name, (plan, body) in sorted(ups.items()):
            write(out, "upload", name, plan + body)

        msprobe_seeds(tests, out)

        # routes: method index, Allow capacity, path
        for j, (m, cap, path) in enumerate(ROUTES):
            write(out, "routes", "r%02d" % j, bytes([m, cap]) + path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
