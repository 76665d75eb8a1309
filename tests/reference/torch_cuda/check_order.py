"""Compares order.py with a recording made by capture_torch_cuda.py on a GPU host.

    python3 tests/reference/torch_cuda/check_order.py DIR [--full N] [--json OUT.json]
    python3 tests/reference/torch_cuda/check_order.py --make-synthetic /tmp/synth   # dry run, no GPU

DIR holds torch_cuda_order.json and torch_cuda_order.npz. For every recorded call:
  - the generator offset after the call equals order.py's new_offset, the seed is
    unchanged, and each call of a chain starts where the previous one ended;
  - every stored element (all of them for tensors of <= 1024 elements, a sample of
    the others) equals order.elements(...) bit for bit; normals are checked against
    the exact formula within cuRAND's fast-math tolerance
    (order.normal_within_gpu_tolerance), since the GPU uses __sincosf;
  - dropout: output and mask of native_dropout, the output of F.dropout, and for the
    in-place F.dropout (which is bernoulli_(1 - p) on a noise tensor, not the fused
    kernel) the zero pattern against bernoulli(1 - p);
  - a call stored whole (every call of <= 1024 elements) has the SHA-256 the GPU host
    took of the whole tensor (and of the mask): the stored values must have it, so the
    element comparison above covers the GPU's whole tensor;
  - --full N: for calls with numel <= N (non-normal kinds) recompute every element and
    compare the SHA-256 of the whole tensor (slow: about 0.1 ms per element), for
    recordings that store a sample only.
The uncertain choice of ORDER.md (dropout's vector width for 2-byte types: 8 by
torch 2.11's source, 4 before pytorch PR #145746) is evaluated both ways and reported.
Exit status 0 when every call matches the default model. Needs NumPy and mpmath.
"""
import argparse
import hashlib
import json
import os
import sys
import time
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import order  # noqa: E402


def sha256_hex(array):
    """SHA-256 of an array's bytes in C order, read in place where the array
    is contiguous (tobytes() would copy it first: a second pass over memory)."""
    return hashlib.sha256(np.ascontiguousarray(array)).hexdigest()


UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def dropout_src(e):
    return Fraction(((e * 37) % 255) - 127, 8)   # capture_torch_cuda.dropout_input


def model_args(call):
    """(order kind, params) for a recorded call."""
    kind, p = call["kind"], dict(call["params"])
    if kind == "dropout":
        p["src"] = dropout_src
    if kind == "dropout_inplace":
        return "bernoulli", {"p": 1 - p["p"]}
    if kind == "random_full64":
        return "random_full64", {}
    return kind, p


def compare_call(call, arrays, env, extra=None):
    """(list of problems, number of values compared, worst normal |diff|)."""
    i = call["id"]
    idx = [int(x) for x in arrays[f"c{i}_idx"]]
    got = [int(x) for x in arrays[f"c{i}_val"]]
    mask = [int(x) for x in arrays[f"c{i}_mask"]] if f"c{i}_mask" in arrays else None
    seed, off = call["state_before"]
    kind, params = model_args(call)
    if extra:
        params.update(extra)
    dtype, n = call["dtype"], call["n"]
    sm, tps = env["sm_count"], env["threads_per_sm"]
    problems = []
    vals, new_off = order.elements(kind, dtype, n, seed, off, sm, tps, indices=idx, **params)
    if call["state_after"] != [seed, new_off]:
        problems.append({"what": "offset", "recorded_after": call["state_after"], "model_after": [seed, new_off]})
    if len(idx) == n and call.get("sha256"):
        for key, name in (("val", "sha256"), ("mask", "mask_sha256")):
            if name in call and f"c{i}_{key}" in arrays and \
                    sha256_hex(arrays[f"c{i}_{key}"]) != call[name]:
                problems.append({"what": f"stored {key} differ from the whole tensor's {name}"})
    worst = 0.0
    for k, (e, g, m) in enumerate(zip(idx, got, vals)):
        bad = None
        if kind == "normal":
            t, b, lane = order.word_address(kind, e, n, sm, tps, dtype, **params)
            ex = order.normal_exact(order.philox_block(seed, off, t, b), lane, dtype,
                                    params.get("mean", 0.0), params.get("std", 1.0))
            ok, d = order.normal_within_gpu_tolerance(g, dtype, ex, params.get("mean", 0.0), params.get("std", 1.0))
            worst = max(worst, float(d))
            if not ok:
                bad = {"diff": float(d)}
        elif call["kind"] == "dropout":
            ob, mb = m
            if ob != g or (mask is not None and mb != mask[k]):
                bad = {"got": [hex(g), None if mask is None else mask[k]], "model": [hex(ob), mb]}
        elif call["kind"] == "dropout_inplace":
            x = dropout_src(e)
            nonzero = (g & ((1 << (8 * call["value_bytes"] - 1)) - 1)) != 0   # ignore the sign bit
            if x != 0 and nonzero != bool(m):
                bad = {"got_nonzero": g != 0, "model_keep": m}
        elif m != g:
            bad = {"got": hex(g), "model": hex(m)}
        if bad is not None:
            if len([p for p in problems if p.get("what") == "value"]) < 5:
                bad.update({"what": "value", "e": e,
                            "address": order.word_address(kind, e, n, sm, tps, dtype, **params)})
                problems.append(bad)
            else:
                problems[-1]["more"] = problems[-1].get("more", 0) + 1
    return problems, len(idx), worst


def full_hash(call, env):
    kind, params = model_args(call)
    if kind == "normal" or call["kind"] == "dropout_inplace" or not call.get("sha256"):
        return None
    seed, off = call["state_before"]
    vals, _ = order.elements(kind, call["dtype"], call["n"], seed, off, env["sm_count"], env["threads_per_sm"],
                             **params)
    t = UNSIGNED[call["value_bytes"]]
    if call["kind"] == "dropout":
        v = np.array([o for o, _ in vals], dtype=t)
        mk = np.array([m for _, m in vals], dtype=np.uint8)
        return (sha256_hex(v) == call["sha256"] and
                ("mask_sha256" not in call or sha256_hex(mk) == call["mask_sha256"]))
    v = np.array(vals, dtype=t)
    return sha256_hex(v) == call["sha256"]


HYPOTHESES = {"dropout_vec_max_4": {"max_vec": 4}}


def make_synthetic(outdir, sm=132, tps=2048):
    """A recording in capture_torch_cuda.py's format whose values come from order.py
    itself (capture_torch_cuda.plan() for a GPU of sm x tps): a dry run of the capture
    plan and of this checker, no GPU needed."""
    import capture_torch_cuda as cap
    gmax = 256 * sm * (tps // 256)
    env = {"sm_count": sm, "threads_per_sm": tps, "G_max": gmax, "torch": "synthetic (order.py)"}
    arrays, calls = {}, []
    for chain, steps, init in cap.plan(gmax):
        seed, off = init[1], (init[2] if init[0] == "set" else 0)
        for c in steps:
            g = 256 * min((c["n"] + 255) // 256, sm * (tps // 256))
            idx = cap.sample(c["n"], g)
            i = len(calls)
            rec = dict(c, id=i, chain=chain, state_before=[seed, off],
                       value_bytes=order.ITEMSIZE[c["dtype"]], sha256="")
            kind, params = model_args(rec)
            vals, off = order.elements(kind, c["dtype"], c["n"], seed, off, sm, tps,
                                       indices=[int(x) for x in idx], **params)
            t = UNSIGNED[rec["value_bytes"]]
            arrays[f"c{i}_idx"] = idx
            if c["kind"] == "dropout":
                arrays[f"c{i}_val"] = np.array([v for v, _ in vals], dtype=t)
                if c["api"] == "native_dropout":
                    arrays[f"c{i}_mask"] = np.array([m for _, m in vals], dtype=np.uint8)
            elif c["kind"] == "dropout_inplace":
                arrays[f"c{i}_val"] = np.array([0x3F800000 if m else 0 for m in vals], dtype=t)
            else:
                arrays[f"c{i}_val"] = np.array(vals, dtype=t)
            if idx.size == c["n"]:  # whole tensor stored: its hashes are known
                rec["sha256"] = sha256_hex(arrays[f"c{i}_val"])
                if f"c{i}_mask" in arrays:
                    rec["mask_sha256"] = sha256_hex(arrays[f"c{i}_mask"])
            rec["state_after"] = [seed, off]
            calls.append(rec)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "torch_cuda_order.json"), "w") as f:
        json.dump({"env": env, "calls": calls}, f)
    np.savez_compressed(os.path.join(outdir, "torch_cuda_order.npz"), **arrays)
    return len(calls)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--full", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--make-synthetic", action="store_true",
                    help="first write DIR from order.py itself (dry run of the plan and the checker)")
    a = ap.parse_args()
    if a.make_synthetic:
        print("synthetic recording:", make_synthetic(a.dir), "calls in", a.dir)
    rec = json.load(open(os.path.join(a.dir, "torch_cuda_order.json")))
    arrays = dict(np.load(os.path.join(a.dir, "torch_cuda_order.npz")))
    env = rec["env"]
    t0 = time.time()
    out = {"env": env, "calls": len(rec["calls"]), "values": 0, "failed_calls": [], "chain_breaks": [],
           "normal_max_abs_diff": {}, "hypotheses": {}, "full_hash": {"checked": 0, "failed": []}}
    prev = {}
    for call in rec["calls"]:
        ch = call["chain"]
        if ch in prev and prev[ch] != call["state_before"]:
            out["chain_breaks"].append({"id": call["id"], "before": call["state_before"], "previous_after": prev[ch]})
        prev[ch] = call["state_after"]
        problems, nv, worst = compare_call(call, arrays, env)
        out["values"] += nv
        if call["kind"] == "normal":
            key = call["dtype"]
            out["normal_max_abs_diff"][key] = max(out["normal_max_abs_diff"].get(key, 0.0), worst)
        label = f'{call["id"]} {call["chain"]} {call["api"]} {call["dtype"]} n={call["n"]} {call["params"]}'
        if problems:
            out["failed_calls"].append({"call": label, "problems": problems})
        if call["kind"] == "dropout":
            for h, extra in HYPOTHESES.items():
                hp, _, _ = compare_call(call, arrays, env, extra)
                out["hypotheses"].setdefault(h, {"matches": 0, "differs": 0})
                out["hypotheses"][h]["matches" if not hp else "differs"] += 1
        if a.full and call["n"] <= a.full:
            r = full_hash(call, env)
            if r is not None:
                out["full_hash"]["checked"] += 1
                if not r:
                    out["full_hash"]["failed"].append(label)
        print(("FAIL " if problems else "ok   ") + label, flush=True)
    out["seconds"] = round(time.time() - t0, 1)
    ok = not out["failed_calls"] and not out["chain_breaks"] and not out["full_hash"]["failed"]
    out["result"] = "PASS" if ok else "FAIL"
    text = json.dumps(out, indent=1, default=str)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
