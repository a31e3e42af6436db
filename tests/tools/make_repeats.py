#!/usr/bin/env python3
"""make_repeats.py - repeats of one training run, as a baseline set for the
noise policy (matcher/spec/noise.md): each copy of a TorchTitan stdout log
gets independent run-to-run noise on its printed loss and grad_norm, the
rest of every line unchanged.  Standard library only.

  make_repeats.py LOG OUTDIR [--count 5] [--loss-sd 3e-5] [--grad-sd 3e-4] [--seed 1]

Writes OUTDIR/run_1.log ... run_N.log.  tests/samples/training/repeats/ was
made with the defaults from tests/samples/training/baseline.log.
"""
import argparse
import os
import random
import re

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("log")
ap.add_argument("outdir")
ap.add_argument("--count", type=int, default=5)
ap.add_argument("--loss-sd", type=float, default=3e-5)
ap.add_argument("--grad-sd", type=float, default=3e-4)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()

lines = open(a.log, encoding="utf-8").read().splitlines(keepends=True)
os.makedirs(a.outdir, exist_ok=True)
for i in range(1, a.count + 1):
    rnd = random.Random(a.seed * 1000 + i)
    out = []
    for ln in lines:
        if re.search(r"(^|\x1b\[[0-9;]*m|[^A-Za-z_])step:\s*\d+", ln) and "validate" not in ln:
            for name, sd in (("loss", a.loss_sd), ("grad_norm", a.grad_sd)):
                m = re.search(r"(?:^|\x1b\[[0-9;]*m|[^A-Za-z_])%s:\s*(-?[0-9]+\.([0-9]+))" % name, ln)
                if m:
                    dec = len(m.group(2))
                    v = float(m.group(1)) + rnd.gauss(0, sd)
                    ln = ln[:m.start(1)] + "%.*f" % (dec, v) + ln[m.end(1):]
        out.append(ln)
    with open(os.path.join(a.outdir, "run_%d.log" % i), "w", encoding="utf-8") as fh:
        fh.writelines(out)
