#!/usr/bin/env python3
"""gen_msprobe.py - write a realistic msprobe statistics dump tree of our
own (the format of matcher/spec/msprobe.md, as msprobe's PyTorch dumper
writes it: json.dump with indent=1; stack.json in the newer
{"N": [[op names], [frames]]} layout; construct.json op -> parent module).

    python3 tests/tools/gen_msprobe.py OUT_DIR [--steps 2] [--ranks 2]

OUT_DIR/stepS/rankR/{dump,stack,construct}.json for a 2-layer decoder:
step 1 replays step 0's batch after one optimizer step, so its first ops
(position ids, attention mask) are bitwise the same and the first
difference is the embedding's output.  Deterministic (fixed seeds).
"""
import json
import os
import random
import struct
import sys


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def tensor(rng, shape, dtype="torch.float32", scale=1.0, grad=True):
    lo, hi = -abs(rng.gauss(0, scale)) - 1e-3, abs(rng.gauss(0, scale)) + 1e-3
    n = 1
    for d in shape:
        n *= d
    mean = rng.uniform(lo, hi) / 10
    norm = (abs(rng.gauss(0, scale)) + 0.1) * (n ** 0.5)
    if dtype == "torch.int64":
        lo, hi = 0.0, float(rng.randint(100, 32000))
        mean, norm = float(int(hi / 2)), float(int(hi * (n ** 0.5) / 2))
        grad = False
    return {"type": "torch.Tensor", "dtype": dtype, "shape": shape, "Max": f32(hi),
            "Min": f32(lo), "Mean": f32(mean), "Norm": f32(norm), "requires_grad": grad}


def ops_of(layers):
    """(name, inputs spec, outputs spec, parent, source frame) in dump order."""
    B, S, H, V = 2, 128, 256, 32000
    ops = [
        ("Tensor.__add__.0.forward", "data", [[B, S]], None, "model.py:88"),
        ("Tensor.__or__.0.forward", "data", [[B, 1, S, S]], None, "model.py:95"),
        ("Functional.embedding.0.forward", "w", [[B, S, H]],
         "Module.model.embed_tokens.Embedding.forward.0", "modules/sparse.py:190"),
        ("Module.model.embed_tokens.Embedding.forward.0", "w", [[B, S, H]], None,
         "model.py:120"),
    ]
    k = 0
    for l in range(layers):
        mod = "Module.model.layers.%d" % l
        ops += [
            ("Torch.rsqrt.%d.forward" % l, "w", [[B, S, 1]],
             mod + ".input_layernorm.RMSNorm.forward.0", "model.py:41"),
            (mod + ".input_layernorm.RMSNorm.forward.0", "w", [[B, S, H]], None, "model.py:150"),
        ]
        for proj in ("q_proj", "k_proj", "v_proj"):
            ops.append(("Functional.linear.%d.forward" % k, "w", [[B, S, H]],
                        "%s.self_attn.%s.Linear.forward.0" % (mod, proj), "modules/linear.py:116"))
            k += 1
        ops += [
            ("Torch.matmul.%d.forward" % (2 * l), "w", [[B, 4, S, S]], None, "model.py:61"),
            ("Functional.softmax.%d.forward" % l, "w", [[B, 4, S, S]], None, "model.py:63"),
            ("Torch.matmul.%d.forward" % (2 * l + 1), "w", [[B, 4, S, 64]], None, "model.py:64"),
            ("Functional.linear.%d.forward" % k, "w", [[B, S, H]],
             mod + ".self_attn.o_proj.Linear.forward.0", "modules/linear.py:116"),
            ("Distributed.all_reduce.%d.forward" % l, "w", [[B, S, H]], None,
             "parallel/mappings.py:24"),
            ("Functional.silu.%d.forward" % l, "w", [[B, S, 4 * H]], None, "model.py:77"),
        ]
        k += 1
    ops += [
        ("Functional.linear.%d.forward" % k, "w", [[B, S, V]], None, "model.py:170"),
        ("Functional.cross_entropy.0.forward", "w", [[]], None, "train.py:52"),
        ("Functional.cross_entropy.0.backward", "w", [[B * S, V]], None, "train.py:58"),
        ("Functional.linear.%d.backward" % k, "w", [[B, S, H], [V, H]], None, "train.py:58"),
        ("Distributed.all_reduce.%d.backward" % (layers - 1), "w", [[B, S, H]], None,
         "train.py:58"),
        ("Module.model.embed_tokens.Embedding.backward.0", "w", [[V, H]], None, "train.py:58"),
        ("Module.model.embed_tokens.Embedding.parameters_grad", "w", None, None, "train.py:58"),
    ]
    return ops


def write(out, steps, ranks, layers=2):
    ops = ops_of(layers)
    for step in range(steps):
        for rank in range(ranks):
            data, stack, construct = {}, {}, {}
            for i, (name, dep, outs, parent, where) in enumerate(ops):
                # values that depend on the weights change with the step;
                # the data-only ops are the same in every step
                seed = "%d/%d/%s" % (rank, 0 if dep == "data" else step, name)
                rng = random.Random(seed)
                # the token ids fed to the embedding are data too
                rng_in = random.Random("%d/0/%s" % (rank, name)) \
                    if "mbedding" in name and ".forward" in name else rng
                backward = ".backward" in name or name.endswith("parameters_grad")
                if name.endswith("parameters_grad"):
                    data[name] = {"weight": tensor(rng, [32000, 256], scale=1e-4)}
                elif name.startswith(("Tensor.", "Functional.embedding")):
                    data[name] = {
                        "input_args": [tensor(rng_in, outs[0][:2], "torch.int64"),
                                       {"type": "int", "value": 1}],
                        "input_kwargs": {},
                        "output": [tensor(rng, o, "torch.int64" if name.startswith("Tensor.")
                                          else "torch.float32") for o in outs],
                    }
                elif backward:
                    data[name] = {
                        "input": [tensor(rng, outs[0], scale=1e-4)],
                        "output": [tensor(rng, o, scale=1e-4) for o in outs] + [None],
                    }
                else:
                    rec = {"input_args": [tensor(rng_in, outs[0][:2], "torch.int64")
                                          if rng_in is not rng else tensor(rng, outs[0] or [1])],
                           "input_kwargs": {"dim": {"type": "int", "value": -1}}
                           if "softmax" in name else {},
                           "output": [tensor(rng, o, scale=3.0) for o in outs]}
                    if name.startswith("Module."):
                        rec["parameters"] = {"weight": tensor(rng, [outs[0][-1]], scale=0.02)}
                    data[name] = rec
                frames = ["File /usr/lib/python3/site-packages/msprobe/pytorch/hook_module/"
                          "wrap_functional.py, line 77, in functional_op_template, \n "
                          "return FunctionalOPTemplate(op_name, hook)(*args, **kwargs)",
                          "File /workspace/llm/%s, line %s, in forward, \n out = op(x)"
                          % tuple(where.split(":")),
                          "File /workspace/llm/train.py, line 211, in train_step, \n "
                          "loss = model(batch)"]
                stack[str(i)] = [[name], frames]
                construct[name] = parent
            d = os.path.join(out, "step%d" % step, "rank%d" % rank)
            os.makedirs(d, exist_ok=True)
            doc = {"task": "statistics", "level": "mix", "framework": "pytorch",
                   "dump_data_dir": None, "data": data}
            for fname, obj in (("dump.json", doc), ("stack.json", stack),
                               ("construct.json", construct)):
                with open(os.path.join(d, fname), "w") as f:
                    json.dump(obj, f, indent=1)


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    steps = int(args[args.index("--steps") + 1]) if "--steps" in args else 2
    ranks = int(args[args.index("--ranks") + 1]) if "--ranks" in args else 2
    write(args[0], steps, ranks)


if __name__ == "__main__":
    main()
