#!/usr/bin/env python3
"""make_train13.py - write the issue-13 training fixtures into tests/data/train/
(t13_*.log and t13_*.expected.json): excerpts in the shapes real TorchTitan
runs printed since March 2024, each pair with the verdict the check must give.

  python3 tests/tools/make_train13.py        (from the repository root)

Shapes: the early-2024 format (`step: 1, current loss: 10.8, lr: [8e-05]`),
the mid-2024 format without grad_norm (`wps`), the current format with
grad_norm; a native crash (glog lines, `terminate called after throwing`,
C++ `frame #N`, no Python traceback); a torchelastic failure summary; the
last line cut at several points; scheduler/profiler chatter with `step:`;
a run that crashed before step 1; a file whose every metric line is cut.
Deterministic (no randomness); standard library only."""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "train")
E = "\x1b"


def early(step, loss):
    return ("[rank0]:2024-03-08 17:21:%02d,%03d - root - INFO - step: %d, current loss: %s, "
            "lr: [8e-05]\n" % (5 + step, 100 + step * 7, step, loss))


def mid(step, loss):
    return ("[rank0]:2024-06-20 09:12:%02d,312 - root - INFO - %s[36mstep: %2d  %s[32mloss: %7s"
            "  %s[33mmemory:  9.37GiB(9.86%%)  %s[34mwps: 1,4%02d  %s[35mmfu: 1.05%%%s[39m\n"
            % (10 + step, E, step, E, loss, E, E, step, E, E))


def cur(step, loss, gn):
    return ("[rank0]:[titan] 2025-09-02 11:04:%02d,731 - root - INFO - %s[31mstep: %2d  "
            "%s[32mloss: %8s  %s[38;2;180;60;0mgrad_norm: %7s  %s[36mmemory: 35.22GiB(44.56%%)  "
            "%s[34mtps: 1,231  %s[36mtflops: 71.27  %s[35mmfu: 7.21%%%s[39m\n"
            % (10 + step, E, step, E, loss, E, gn, E, E, E, E, E))


EARLY_HEAD = ("[rank0]:2024-03-08 17:21:05,613 - root - INFO - Starting job: LLaMA debug training\n"
              "[rank0]:2024-03-08 17:21:05,614 - root - INFO - Building llama debugmodel with "
              "ModelArgs(dim=256, n_layers=2, n_heads=16, vocab_size=32000)\n"
              "[rank0]:2024-03-08 17:21:06,123 - root - INFO - model: llama debugmodel, "
              "parameters: 20,086,784\n")
MID_HEAD = ("[rank0]:2024-06-20 09:12:01,001 - root - INFO - Starting job: Llama 3 8B training\n"
            "[rank0]:2024-06-20 09:12:03,552 - root - INFO - GPU memory usage for model: "
            "15.52GiB(16.34%)\n"
            "[rank0]:2024-06-20 09:12:04,100 - root - INFO - Training starts at step 1, with local "
            "batch size 1, global batch size 8, sequence length 8192\n"
            "[rank0]:2024-06-20 09:12:04,101 - root - INFO - Profiling active. Traces will be "
            "saved at ./outputs/profile_trace\n")
CUR_HEAD = ("[rank0]:[titan] 2025-09-02 11:04:01,000 - root - INFO - Starting job: Llama 3 debug "
            "training\n"
            "[rank0]:[titan] 2025-09-02 11:04:02,000 - root - WARNING - Deterministic algorithm "
            "enabled (expect perf degradation).\n"
            "[rank0]:[titan] 2025-09-02 11:04:03,000 - root - INFO - Training starts at step 1\n")

EARLY_LOSS = ["10.8593", "10.6811", "10.3472", "9.9513", "9.4780", "8.9912", "8.5021", "8.0876"]
MID_LOSS = ["10.8652", "10.7291", "10.4203", "9.9851", "9.4517", "8.9034", "8.4412", "8.0357",
            "7.7011", "7.4190"]
FP8_LOSS = ["10.8652", "10.7291", "10.4203", "9.9851", "9.4517", "9.3842", "8.9207", "8.5110",
            "8.1826", "7.8993"]  # diverges from step 6 (bf16 vs fp8): |diff| up to 0.4815
CUR = [("10.98216", "4.9806"), ("10.71523", "5.1244"), ("10.21894", "6.0173"),
       ("9.60118", "7.4410"), ("8.93370", "8.8821"), ("8.30126", "9.0452"),
       ("7.75102", "8.1120"), ("7.31234", "31.5000")]


def write(name, text):
    with open(os.path.join(OUT, name), "w", newline="") as f:
        f.write(text)


def expected(case, **kw):
    with open(os.path.join(OUT, "t13_%s.expected.json" % case), "w") as f:
        json.dump(kw, f, indent=1, sort_keys=True)
        f.write("\n")


def lineno(text, needle):
    for i, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return i
    raise SystemExit("fixture error: %r not found" % needle)


def main():
    # --- early 2024, loss only ---------------------------------------------
    old = EARLY_HEAD + "".join(early(i + 1, v) for i, v in enumerate(EARLY_LOSS))
    old += "[rank0]:2024-03-08 17:21:14,001 - root - INFO - Training completed\n"
    write("t13_early.log", old)
    expected("early", a="t13_early.log", b="t13_early.log", verdict="pass", exit=0,
             reason_codes=[], notes=["metric_not_logged"], not_logged=["grad_norm"])

    # --- mid 2024, no grad_norm, profiler chatter with step: ----------------
    def mid_log(losses):
        t = MID_HEAD
        for i, v in enumerate(losses, 1):
            t += mid(i, v)
            if i == 5:
                t += ("[rank0]:2024-06-20 09:12:15,900 - root - INFO - Dumping traces at step: 5\n"
                      "[rank0]:2024-06-20 09:12:16,420 - root - INFO - Finished dumping traces "
                      "in 0.52 seconds\n"
                      "[rank0]:2024-06-20 09:12:16,421 - root - INFO - lr_scheduler: warmup "
                      "step: 5 of 200, lr 2.0e-05\n")
        return t + "[rank0]:2024-06-20 09:12:30,000 - root - INFO - Training completed\n"
    write("t13_bf16.log", mid_log(MID_LOSS))
    write("t13_bf16_again.log", mid_log(MID_LOSS))
    write("t13_fp8.log", mid_log(FP8_LOSS))
    expected("nogn_same", a="t13_bf16.log", b="t13_bf16_again.log", verdict="pass", exit=0,
             reason_codes=[], notes=["metric_not_logged"], not_logged=["grad_norm"])
    expected("nogn_fp8", a="t13_bf16.log", b="t13_fp8.log", verdict="fail", exit=1,
             reason_codes=["threshold_exceeded"], first_over={"loss": 6},
             max_abs={"loss": "0.4815"}, notes=["metric_not_logged"], not_logged=["grad_norm"])

    # --- current format: a clean run -----------------------------------------
    clean = CUR_HEAD + "".join(cur(i + 1, l, g) for i, (l, g) in enumerate(CUR))
    clean += "[rank0]:[titan] 2025-09-02 11:04:30,000 - root - INFO - Training completed\n"
    write("t13_clean.log", clean)

    # --- native crash, no Python traceback (NCCL watchdog) -------------------
    crash = CUR_HEAD + "".join(cur(i + 1, l, g) for i, (l, g) in enumerate(CUR[:6]))
    crash += (
        "[rank0]:[E902 11:04:17.553128000 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) "
        "Rank 0] Process group watchdog thread terminated with exception: CUDA error: an illegal "
        "memory access was encountered\n"
        "[rank0]:CUDA kernel errors might be asynchronously reported at some other API call, so "
        "the stacktrace below might be incorrect.\n"
        "[rank0]:Exception raised from c10_cuda_check_implementation at "
        "../c10/cuda/CUDAException.cpp:43 (most recent call first):\n"
        "[rank0]:frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 "
        "(0x7f3a1c56c446 in /usr/lib/python3/site-packages/torch/lib/libc10.so)\n"
        "[rank0]:frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, "
        "std::string const&) + 0x64 (0x7f3a1c5166e4 in /usr/lib/python3/site-packages/torch/lib/"
        "libc10.so)\n"
        "[rank0]:\n"
        "[rank0]:terminate called after throwing an instance of 'c10::DistBackendError'\n"
        "[rank0]:  what():  [PG ID 0 PG GUID 0(default_pg) Rank 0] Process group watchdog thread "
        "terminated with exception: CUDA error: an illegal memory access was encountered\n"
        "[rank0]:frame #2: <unknown function> + 0x145c0 (0x7f3a1c9ab5c0 in /usr/lib/python3/"
        "site-packages/torch/lib/libc10_cuda.so)\n"
        "[rank0]:frame #3: <unknown function> + 0xdc253 (0x7f3a6b8dc253 in "
        "/lib/x86_64-linux-gnu/libstdc++.so.6)\n")
    write("t13_native_crash.log", crash)
    expected("native_crash", a="t13_native_crash.log", b="t13_native_crash.log",
             verdict="error", exit=2, reason_codes=["warnings"],
             warning={"side": "candidate", "code": "error_line",
                      "line": lineno(crash, "[E902 11:04:17")})

    # --- glog E line + torchelastic summary (the launcher's view) ------------
    elastic = CUR_HEAD + "".join(cur(i + 1, l, g) for i, (l, g) in enumerate(CUR[:6]))
    elastic += (
        "E0902 11:04:18.221000 4242 torch/distributed/elastic/multiprocessing/api.py:869] "
        "failed (exitcode: -6) local_rank: 0 (pid: 4250) of binary: /usr/bin/python3\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "torchtitan.train FAILED\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2025-09-02_11:04:18\n"
        "  rank      : 0 (local_rank: 0)\n"
        "  exitcode  : -6 (pid: 4250)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 6 (SIGABRT) received by PID 4250\n"
        "============================================================\n")
    write("t13_elastic.log", elastic)
    expected("elastic", a="t13_elastic.log", b="t13_elastic.log", verdict="error", exit=2,
             reason_codes=["warnings"],
             warning={"side": "candidate", "code": "error_line",
                      "line": lineno(elastic, "E0902 11:04:18")})

    # --- last line cut at several points (no final newline) -----------------
    body7 = CUR_HEAD + "".join(cur(i + 1, l, g) for i, (l, g) in enumerate(CUR[:7]))
    full8 = cur(8, *CUR[7])
    cuts = {
        "cut_after_loss": full8[:full8.index("grad_norm") - len(E) - len("[38;2;180;60;0m") - 2],
        "cut_in_grad_norm": full8[:full8.index("31.5") + 4],
        "cut_in_escape": full8[:full8.index("memory") - 4],
        "cut_before_step": full8[:full8.index("step:") + 2],
    }
    for case, last in cuts.items():
        text = body7 + last
        write("t13_%s.log" % case, text)
        expected(case, a="t13_clean.log", b="t13_%s.log" % case, verdict="error", exit=2,
                 reason_codes=["warnings", "step_sets_differ"],
                 warning={"side": "candidate", "code": "truncated_line",
                          "line": text.count("\n") + 1})

    # --- cut mid-file, then the restart from a checkpoint --------------------
    cut5 = cur(5, *CUR[4])
    restart = (CUR_HEAD + "".join(cur(i + 1, l, g) for i, (l, g) in enumerate(CUR[:4]))
               + cut5[:cut5.index("grad_norm") + 14] + "\n"
               + "[rank0]:[titan] 2025-09-02 11:05:40,000 - root - INFO - Loading the checkpoint "
                 "at step 4.\n"
               + "".join(cur(i + 1, l, g) for i, (l, g) in enumerate(CUR) if i >= 4)
               + "[rank0]:[titan] 2025-09-02 11:06:30,000 - root - INFO - Training completed\n")
    write("t13_cut_restart.log", restart)
    expected("cut_restart", a="t13_clean.log", b="t13_cut_restart.log", verdict="error", exit=2,
             reason_codes=["warnings"],
             warning={"side": "candidate", "code": "truncated_line",
                      "line": lineno(restart, "step:  5")},
             allow_warnings_verdict="pass")

    # --- crashed before step 1: no metric line (CLI only; upload refused) ----
    nostep = CUR_HEAD + (
        "[rank0]:[titan] 2025-09-02 11:04:05,000 - root - INFO - Applied FSDP to the model\n"
        "[rank0]:[E902 11:04:06.100000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600000 "
        "milliseconds before timing out.\n"
        "[rank0]:terminate called after throwing an instance of 'c10::DistBackendError'\n")
    write("t13_no_step.log", nostep)
    expected("no_step", a="t13_clean.log", b="t13_no_step.log", verdict="error", exit=2,
             reason_codes=["not_training_log"], side="candidate", service="refused",
             service_code="unrecognised_log")

    # --- every metric line cut (CLI only; upload refused) --------------------
    allcut = CUR_HEAD + "".join(cur(i + 1, l, g)[:cur(i + 1, l, g).index("loss:") + 6] + "\n"
                                for i, (l, g) in enumerate(CUR[:3]))
    write("t13_all_cut.log", allcut)
    expected("all_cut", a="t13_clean.log", b="t13_all_cut.log", verdict="error", exit=2,
             reason_codes=["not_training_log"], side="candidate", service="refused",
             service_code="not_training_log", message="all 3 metric line(s) are malformed",
             line=lineno(allcut, "step:  1"))


if __name__ == "__main__":
    main()
