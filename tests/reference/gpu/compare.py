"""Compares cuRAND / PyTorch captures with the reference model of SPEC.md section 8.

Two modes:

  python3 compare.py device CAPDIR OUTDIR
      On the GPU machine (NumPy only, no reference module needed). Checks every
      captured value: curand4 words, curand_uniform4 and curand_uniform2_double
      for exact equality with SPEC.md's formulas (computed exactly with NumPy's
      80-bit long double, where (2x+1) * 2^-33 and (2z+1) * 2^-54 are exact, then
      rounded once), and curand_normal4 against the exact formula evaluated in
      float64 (ulp of the float32 result). Writes OUTDIR/summary.json and a sample
      OUTDIR/samples.npz of each function for the local mode.

  python3 compare.py local DIR
      Here, with the pure-Python reference (tests/reference) and mpmath: checks
      DIR/samples.npz (uniforms exact, normals float and double in ulp against the
      formula evaluated by mpmath) and DIR/torch.npz (PyTorch's transforms, each
      element one thread's first value).
"""
import json
import os
import sys

import numpy as np

MASK32 = 0xFFFFFFFF


# ---------------------------------------------------------------- device mode --
def philox_np(ctr, key):
    """Philox4x32-10 of counters ctr (n, 4) uint64 with one key (k0, k1)."""
    x0, x1, x2, x3 = (ctr[:, i].astype(np.uint64) for i in range(4))
    k0, k1 = key
    m32 = np.uint64(MASK32)
    for _ in range(10):
        p0 = x0 * np.uint64(0xD2511F53)
        p1 = x2 * np.uint64(0xCD9E8D57)
        x0, x1, x2, x3 = ((p1 >> np.uint64(32)) ^ x1 ^ np.uint64(k0), p1 & m32,
                          (p0 >> np.uint64(32)) ^ x3 ^ np.uint64(k1), p0 & m32)
        k0 = (k0 + 0x9E3779B9) & MASK32
        k1 = (k1 + 0xBB67AE85) & MASK32
    return np.stack([x0, x1, x2, x3], axis=1).astype(np.uint32).reshape(-1)


def stream_np(seed, subsequence, offset, nwords):
    """curand_init(seed, subsequence, offset) stream (SPEC.md section 7), offset % 4 == 0."""
    assert offset % 4 == 0 and nwords % 4 == 0
    blocks = nwords // 4
    # counters c0 + j; (offset/4 + blocks) stays far below 2^64 here, no carry into word 2.
    assert (offset // 4) + blocks < 2**64
    lo = np.uint64(offset // 4) + np.arange(blocks, dtype=np.uint64)
    ctr = np.empty((blocks, 4), dtype=np.uint64)
    ctr[:, 0] = lo & np.uint64(MASK32)
    ctr[:, 1] = lo >> np.uint64(32)
    ctr[:, 2] = subsequence & MASK32
    ctr[:, 3] = subsequence >> 32
    return philox_np(ctr, (seed & MASK32, seed >> 32))


def u32_np(x):
    assert np.finfo(np.longdouble).nmant >= 63, "needs x87 80-bit long double"
    f = x.astype(np.float32).astype(np.longdouble)  # float(x): correctly rounded
    exact = f * np.longdouble(2.0) ** -32 + np.longdouble(2.0) ** -33  # exact in 64 bits
    return exact.astype(np.float32)


def u53_np(a, b):
    z = a.astype(np.uint64) ^ (b.astype(np.uint64) << np.uint64(21))
    exact = (2 * z.astype(np.longdouble) + 1) * np.longdouble(2.0) ** -54
    return exact.astype(np.float64)


def v_float_np(y):
    c = np.float32(2.0 ** -32) * np.float32(6.2831855)  # exact: power-of-two scaling
    f = y.astype(np.float32).astype(np.longdouble)
    exact = f * np.longdouble(c) + np.longdouble(c) / 2  # exact in 64 bits
    return exact.astype(np.float32)


def ulp32(ref32):
    a = np.abs(ref32.astype(np.float64))
    e = np.floor(np.log2(np.maximum(a, 2.0 ** -126)))
    return 2.0 ** (e - 23)


def ordered32(f):
    i = f.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def device(capdir, outdir):
    triples = [tuple(int(v) for v in line.split()) for line in open(os.path.join(capdir, "triples.txt"))]
    summary = {"triples": triples, "functions": {}}
    samples = {}
    tot = {k: 0 for k in ("bits", "uniform4", "uniform2d", "normal4", "normal2d")}
    bad = dict(tot)
    nor = {"max_ulp_vs_exact": 0.0, "max_abs": 0.0, "max_int_ulp_vs_rounded": 0, "over_2ulp_and_2^-22": 0,
           "hist_int_ulp": {}}
    for t, seed, sub, off in triples:
        bits = np.fromfile(os.path.join(capdir, f"bits_{t}.u32"), dtype=np.uint32)
        uni4 = np.fromfile(os.path.join(capdir, f"uniform4_{t}.f32"), dtype=np.float32)
        nor4 = np.fromfile(os.path.join(capdir, f"normal4_{t}.f32"), dtype=np.float32)
        uni2d = np.fromfile(os.path.join(capdir, f"uniform2d_{t}.f64"), dtype=np.float64)
        nor2d = np.fromfile(os.path.join(capdir, f"normal2d_{t}.f64"), dtype=np.float64)
        n4, n2 = bits.size, uni2d.size
        w = stream_np(seed, sub, off, max(n4, 2 * n2))
        tot["bits"] += n4
        bad["bits"] += int(np.count_nonzero(bits != w[:n4]))
        ref = u32_np(w[:n4])
        tot["uniform4"] += n4
        bad["uniform4"] += int(np.count_nonzero(ref.view(np.uint32) != uni4.view(np.uint32)))
        refd = u53_np(w[0:2 * n2:2], w[1:2 * n2:2])
        tot["uniform2d"] += n2
        bad["uniform2d"] += int(np.count_nonzero(refd.view(np.uint64) != uni2d.view(np.uint64)))
        # normals, float: pair p from words (2p, 2p+1): sin then cos.
        u = u32_np(w[0:n4:2]).astype(np.float64)
        v = v_float_np(w[1:n4:2]).astype(np.float64)
        s = np.sqrt(-2.0 * np.log(u))
        zex = np.empty(n4)
        zex[0::2] = s * np.sin(v)
        zex[1::2] = s * np.cos(v)
        z32 = zex.astype(np.float32)
        diff = np.abs(nor4.astype(np.float64) - zex)
        ulps = diff / ulp32(z32)
        iu = np.abs(ordered32(nor4) - ordered32(z32))
        tot["normal4"] += n4
        nor["max_ulp_vs_exact"] = max(nor["max_ulp_vs_exact"], float(ulps.max()))
        nor["max_abs"] = max(nor["max_abs"], float(diff.max()))
        nor["max_int_ulp_vs_rounded"] = max(nor["max_int_ulp_vs_rounded"], int(iu.max()))
        nor["over_2ulp_and_2^-22"] += int(np.count_nonzero((ulps > 2) & (diff > 2.0 ** -22)))
        # histogram of the integer ulp distance to the exact value rounded to float
        edges_ = [0, 1, 2, 3, 4, 8, 16, 256, 2**62]
        for lo_, hi_ in zip(edges_[:-1], edges_[1:]):
            key = str(lo_) if hi_ == lo_ + 1 else f"{lo_}-{hi_ - 1}"
            nor["hist_int_ulp"][key] = nor["hist_int_ulp"].get(key, 0) + int(np.count_nonzero((iu >= lo_) & (iu < hi_)))
        nor["over_2ulp_rel_only"] = nor.get("over_2ulp_rel_only", 0) + int(np.count_nonzero(ulps > 2))
        worst = int(np.argmax(ulps))
        nor.setdefault("worst", []).append({"triple": t, "index": worst, "gpu": float(nor4[worst]),
                                            "exact": float(zex[worst]), "ulps": float(ulps[worst])})
        tot["normal2d"] += n2
        samples[f"bits_{t}"] = bits[:4096]
        samples[f"uniform4_{t}"] = uni4[:1 << 16]
        samples[f"normal4_{t}"] = nor4[:1 << 18]
        samples[f"uniform2d_{t}"] = uni2d[:1 << 15]
        samples[f"normal2d_{t}"] = nor2d[:1 << 17]
        samples[f"triple_{t}"] = np.array([seed, sub, off], dtype=np.uint64)
    edges = np.fromfile(os.path.join(capdir, "edges.f32"), dtype=np.float32)
    ex = np.concatenate([np.arange(1024, dtype=np.uint32),
                         np.arange(0xFFFFFC00, 2**32, dtype=np.uint64).astype(np.uint32)])
    summary["edges_mismatches"] = int(np.count_nonzero(u32_np(ex).view(np.uint32) != edges.view(np.uint32)))
    summary["all_uniform"] = open(os.path.join(capdir, "all_uniform.txt")).read().strip()
    samples["edges"] = edges
    summary["values"] = tot
    summary["mismatches"] = {k: bad[k] for k in ("bits", "uniform4", "uniform2d")}
    summary["normal4"] = nor
    np.savez_compressed(os.path.join(outdir, "samples.npz"), **samples)
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary, indent=1))


# ----------------------------------------------------------------- local mode --
NP_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "u8": "uint8",
             "bool": "bool", "i32": "int32", "i64": "int64"}


def _reference():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.dirname(here))
    import distributions as dist  # noqa: E402
    import philox_stream as ps  # noqa: E402
    return dist, ps


def compare_samples(smp, dist, ps, n_f32=5000, n_f64=2500, seed=1):
    """Uniforms and bits exactly; a random subset of normals against mpmath."""
    import random
    rng = random.Random(seed)
    res = {"bits": 0, "uniform4": 0, "uniform2d": 0, "normal4_checked": 0, "normal2d_checked": 0,
           "normal4_max_ulp": 0.0, "normal4_max_abs": 0.0, "normal2d_max_ulp": 0.0, "normal2d_max_abs": 0.0,
           "mismatches": 0}
    nt = len([k for k in smp.files if k.startswith("triple_")])
    for t in range(nt):
        seed_, sub, off = (int(x) for x in smp[f"triple_{t}"])
        st = ps.curand_init_state(seed_, sub, off)
        bits = smp[f"bits_{t}"]
        w = ps.stream_words(st, 0, bits.size)
        res["mismatches"] += sum(int(a) != b for a, b in zip(bits, w))
        res["bits"] += bits.size
        uni4 = smp[f"uniform4_{t}"].view(np.uint32)
        w = ps.stream_words(st, 0, uni4.size)
        res["mismatches"] += sum(dist.u32(x) != int(g) for x, g in zip(w, uni4))
        res["uniform4"] += uni4.size
        uni2d = smp[f"uniform2d_{t}"].view(np.uint64)
        w = ps.stream_words(st, 0, 2 * uni2d.size)
        res["mismatches"] += sum(dist.u53(w[2 * i], w[2 * i + 1]) != int(g) for i, g in enumerate(uni2d))
        res["uniform2d"] += uni2d.size
        nor4 = smp[f"normal4_{t}"]
        for i in sorted(rng.sample(range(nor4.size), min(n_f32, nor4.size))):
            x, y = ps.stream_words(st, 2 * (i // 2), 2)
            z = dist.box_muller_f(x, y)[i % 2]
            res["normal4_max_ulp"] = max(res["normal4_max_ulp"], dist.ulp_diff(float(nor4[i]), z, "float32"))
            res["normal4_max_abs"] = max(res["normal4_max_abs"], float(dist.abs_diff(float(nor4[i]), z)))
            res["normal4_checked"] += 1
        nor2d = smp[f"normal2d_{t}"]
        for i in sorted(rng.sample(range(nor2d.size), min(n_f64, nor2d.size))):
            ws = ps.stream_words(st, 4 * (i // 2), 4)
            z = dist.box_muller_d(*ws)[i % 2]
            res["normal2d_max_ulp"] = max(res["normal2d_max_ulp"], dist.ulp_diff(float(nor2d[i]), z, "float64"))
            res["normal2d_max_abs"] = max(res["normal2d_max_abs"], float(dist.abs_diff(float(nor2d[i]), z)))
            res["normal2d_checked"] += 1
    edges = smp["edges"].view(np.uint32)
    xs = list(range(1024)) + list(range(2**32 - 1024, 2**32))
    res["edges"] = edges.size
    res["mismatches"] += sum(dist.u32(x) != int(g) for x, g in zip(xs, edges))
    return res


def parse_torch_key(key):
    kind, rest = key.split("_", 1)
    *params, dtype = rest.split("_")
    if kind == "integers":
        return kind, [int(p) for p in params], dtype
    return kind, [float(p.replace("m", "-")) for p in params], dtype


def compare_torch(tz, dist, ps, limit=None, variant="pytorch", fused=True):
    """PyTorch element li = element 0 of the stream curand_init(seed, li, 0)."""
    meta = str(tz["meta"][0])
    seed = int(meta.split("seed ")[1].split()[0])
    out = {}
    for key in tz.files:
        if key == "meta":
            continue
        kind, params, dt = parse_torch_key(key)
        dtype = NP_DTYPES[dt]
        got = tz[key]
        n = got.size if limit is None else min(limit, got.size)
        mism, worst = 0, 0.0
        for li in range(n):
            st = ps.curand_init_state(seed, li, 0)
            g = int(got[li])
            if dtype in dist.INT_WIDTH:
                g &= (1 << dist.INT_WIDTH[dtype]) - 1  # two's complement bit pattern
            if kind == "normal":
                z_exact, _, _ = dist.normal_detail(st, 0, 1, params[0], params[1], dtype)[0]
                acc = "float64" if dtype == "float64" else "float32"
                exact = dist.mpf_to_fraction(z_exact) * dist.value(dist.param_bits(params[1], acc), acc) + \
                    dist.value(dist.param_bits(params[0], acc), acc)
                worst = max(worst, dist.ulp_diff(dist.value(g, dtype), exact, dtype))
                continue
            vals, _ = dist.fill(st, 0, 1, kind, tuple(params), dtype, variant=variant, fused=fused)
            mism += vals[0] != g
        out[key] = {"n": n, "max_ulp": worst} if kind == "normal" else {"n": n, "mismatches": mism}
    return out


def local(d):
    dist, ps = _reference()
    res = {"samples": compare_samples(np.load(os.path.join(d, "samples.npz")), dist, ps)}
    tp = os.path.join(d, "torch.npz")
    if os.path.exists(tp):
        tz = np.load(tp)
        res["torch_meta"] = str(tz["meta"][0])
        res["torch"] = compare_torch(tz, dist, ps)
    print(json.dumps(res, indent=1))
    return res


def record(d, outdir):
    """Writes the small plain-text records of tests/reference/gpu/recorded/ from a capture."""
    env = [line.rstrip() for line in open(os.path.join(d, "env.txt"))]
    summary = json.load(open(os.path.join(d, "summary.json")))
    head = ["# Recorded by tests/reference/gpu/capture.sh on the GPU machine, then",
            "#   python3 tests/reference/gpu/compare.py record DIR tests/reference/gpu/recorded"]
    head += ["# " + line for line in env]
    smp = np.load(os.path.join(d, "samples.npz"))
    lines = head + ["# curand_capture.cu: one CUDA thread per (triple, function), "
                    "fresh curand_init(seed, subsequence, offset).",
                    "# line: function seed subsequence offset index bits(hex); index = element of that thread's sequence",
                    "# all_uniform: _curand_uniform(x) over all 2^32 x: " + summary["all_uniform"]]
    ones = summary["all_uniform"].split()[1]
    lines.append(f"all_uniform_ones 0 0 0 0 {int(ones):x}")
    for t in (0, 3):
        seed, sub, off = (int(x) for x in smp[f"triple_{t}"])
        for name, n, view in (("bits", 16, np.uint32), ("uniform4", 16, np.uint32), ("normal4", 16, np.uint32),
                              ("uniform2d", 8, np.uint64), ("normal2d", 8, np.uint64)):
            a = smp[f"{name}_{t}"].view(view)
            idx = list(range(n)) + list(range(a.size - 4, a.size))
            for i in idx:
                lines.append(f"{name} {seed} {sub} {off} {i} {int(a[i]):x}")
    with open(os.path.join(outdir, "curand.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    tz = np.load(os.path.join(d, "torch.npz"))
    meta = str(tz["meta"][0])
    lines = head + ["# torch_capture.py: " + meta,
                    "# element li of each tensor is element 0 of the stream curand_init(seed, li, 0)",
                    "# line: kind_params_dtype li bits(hex, two's complement for integers)"]
    for key in tz.files:
        if key == "meta":
            continue
        a = tz[key]
        for li in (0, 1, 1000, 4095):
            lines.append(f"{key} {li} {int(a[li]) & ((1 << (8 * a.dtype.itemsize)) - 1):x}")
    with open(os.path.join(outdir, "torch.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "device":
        device(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3])
    else:
        local(sys.argv[2])
