"""Self-test of order.py (no GPU, no torch): internal consistency and the GPU records
that already exist in tests/reference/gpu/recorded/.

    python3 tests/reference/torch_cuda/order_selftest.py             # a few seconds
    python3 tests/reference/torch_cuda/order_selftest.py --dry-run   # + 30 s, needs NumPy

Checks
  1. launch geometry and offset increments against the formulas of ORDER.md, at the
     thresholds (H100: 132 SMs x 2048 threads -> G = 270336);
  2. the element -> (thread, call, lane) map is a bijection onto the launch's slots,
     and each thread's elements, in the order it writes them, are exactly SPEC.md
     section 8's stream of its own curand_init(seed, t, offset) state
     (distributions.fill, which shares no code with the order), for every kind;
     dropout VEC=2 is the documented exception (it skips words 2 and 3 of each call);
  3. offsets chain: consecutive calls start where the previous one ended, and the
     calls that dropout's vectorized kernel makes beyond its reservation (VEC 2 / 8)
     are reported;
  4. gpu/recorded/curand.txt: curand4 / curand_uniform4 / curand_uniform2_double of one
     thread at large subsequences and offsets = philox_block(seed, offset, t, call);
  5. gpu/recorded/torch.txt: PyTorch's own n = 4096 tensors (torch 2.11, H100): every
     recorded value bit-exact (normals within the GPU tolerance);
  6. gpu/recorded/torch_bulk.json: the launch that torch.rand / torch.randn used for
     2^24 float32 and 2^22 float64 values on the H100 (0 mismatches there) is the one
     order.py computes (G and the element -> (thread, call, lane) map);
  7. (--dry-run) the capture plan recorded from order.py itself and checked by
     check_order.py, which proves the plumbing, not PyTorch.
Exit status 0 when everything passes; a JSON summary is printed.
"""
import json
import os
import random
import sys
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import order  # noqa: E402
from order import dist, ps  # noqa: E402

REC = os.path.join(os.path.dirname(HERE), "gpu", "recorded")
FAILS = []
RESULTS = {}


def check(name, ok, detail=""):
    RESULTS[name] = "ok" if ok else f"FAIL {detail}"
    if not ok:
        FAILS.append(name)
        print("FAIL", name, detail)


# ------------------------------------------------------------ 1. geometry ----
def test_geometry():
    sm, tps = 132, 2048
    gmax = 256 * order.max_grid(sm, tps)
    check("gmax_h100", gmax == 270336, gmax)
    cases = [  # (kind, dtype, params, n, expected G, expected increment)
        ("uniform", "float32", {}, 1, 256, 4),
        ("uniform", "float32", {}, 257, 512, 4),
        ("uniform", "float32", {}, gmax, gmax, 4),
        ("uniform", "float32", {}, gmax + 1, gmax, 4),
        ("uniform", "float32", {}, 4 * gmax, gmax, 4),
        ("uniform", "float32", {}, 4 * gmax + 1, gmax, 8),
        ("uniform", "float64", {}, 2 * gmax, gmax, 4),
        ("uniform", "float64", {}, 2 * gmax + 1, gmax, 8),
        ("uniform", "float16", {}, 4 * gmax + 1, gmax, 8),
        ("normal", "float64", {}, 1 << 22, gmax, 32),
        ("normal", "float32", {}, 1 << 24, gmax, 64),
        ("random_from_to", "int64", {"low": 0, "high": 2**28 - 1}, 4 * gmax + 1, gmax, 8),
        ("random_from_to", "int64", {"low": 0, "high": 2**28}, 2 * gmax + 1, gmax, 8),
        ("random_from_to", "int32", {"low": -100, "high": 2**30}, 2 * gmax, gmax, 4),
        ("random", "int64", {}, 2 * gmax + 1, gmax, 8),
        ("random", "int32", {}, 2 * gmax + 1, gmax, 4),
        ("bernoulli", "float64", {"p": 0.3}, 2 * gmax + 1, gmax, 8),
        ("dropout", "float16", {"p": 0.3}, 8 * gmax + 8, gmax, 12),
        ("dropout", "float32", {"p": 0.3}, 4 * gmax + 2, gmax, 8),
    ]
    bad = []
    for kind, dt, prm, n, g, inc in cases:
        _, gg = order.launch(n, sm, tps)
        ii = order.offset_increment(kind, dt, n, sm, tps, **prm)
        if (gg, ii) != (g, inc):
            bad.append((kind, dt, n, gg, ii, g, inc))
    check("geometry_and_increments", not bad, bad)
    # A100 (108 SMs) and a GPU with 1536 threads per SM (6 blocks of 256).
    check("gmax_a100", 256 * order.max_grid(108, 2048) == 221184)
    check("gmax_1536", 256 * order.max_grid(84, 1536) == 84 * 6 * 256)
    check("empty_no_increment", order.elements("uniform", "float32", 0, 1, 8, 132, 2048) == ([], 8))


# ------------------------------------------------- 2. order and streams ------
SMALL_SM, SMALL_TPS = 1, 512   # G at most 512: several calls per thread stay cheap

KIND_CASES = [
    # (kind, dtype, params, spec dist name, spec params)
    ("uniform", "float32", {}, "uniform", (0.0, 1.0)),
    ("uniform", "float16", {"low": -3.7, "high": 11.3}, "uniform", (-3.7, 11.3)),
    ("uniform", "bfloat16", {}, "uniform", (0.0, 1.0)),
    ("uniform", "float64", {"low": 0.1, "high": 0.2}, "uniform", (0.1, 0.2)),
    ("bernoulli", "float32", {"p": 0.3}, "bernoulli", (0.3,)),
    ("bernoulli", "float64", {"p": 0.3}, "bernoulli", (0.3,)),
    ("bernoulli", "uint8", {"p": 0.7}, "bernoulli", (0.7,)),
    ("random_from_to", "int64", {"low": 3, "high": 1000}, "integers", (3, 1000)),
    ("random_from_to", "int64", {"low": -5, "high": 2**40}, "integers", (-5, 2**40)),
    ("random_from_to", "int32", {"low": -100, "high": 2**30}, "integers", (-100, 2**30)),
    ("random_from_to", "float32", {"low": 0, "high": 2**24}, "integers", (0, 2**24)),
    ("normal", "float32", {"mean": 0.3, "std": 2.5}, "normal", (0.3, 2.5)),
    ("normal", "float64", {}, "normal", (0.0, 1.0)),
    ("normal", "bfloat16", {}, "normal", (0.0, 1.0)),
]


def _bijection(kind, dt, prm, n, sm, tps):
    _, g = order.launch(n, sm, tps)
    seen = set()
    for e in range(n):
        a = order.word_address(kind, e, n, sm, tps, dt, **prm)
        if a in seen:
            return False
        seen.add(a)
    per_thread = {}
    for t in range(g):
        for j, e in enumerate(order.thread_elements(kind, dt, n, t, sm, tps, **prm)):
            per_thread[e] = (t, j)
    return len(per_thread) == n


def test_thread_streams():
    seed, offset = 0xDEADBEEFCAFEF00D, 4 * 12345
    bad = []
    compared = 0
    sizes = [1, 5, 300, 512, 513, 2048 + 7, 3 * 2048 + 5]
    for kind, dt, prm, sname, sprm in KIND_CASES:
        for n in sizes:
            if kind == "normal" and n > 600:
                continue  # mpmath normals: a few sizes are enough
            if not _bijection(kind, dt, prm, n, SMALL_SM, SMALL_TPS):
                bad.append(("bijection", kind, dt, n))
            _, g = order.launch(n, SMALL_SM, SMALL_TPS)
            for t in sorted({0, 1, g // 2, g - 1}):
                es = order.thread_elements(kind, dt, n, t, SMALL_SM, SMALL_TPS, **prm)
                if not es:
                    continue
                got, _ = order.elements(kind, dt, n, seed, offset, SMALL_SM, SMALL_TPS, indices=es, **prm)
                st = ps.curand_init_state(seed, t, offset)
                want, _ = dist.fill(st, 0, len(es), sname, sprm, dt)
                compared += len(es)
                if got != want:
                    bad.append((kind, dt, n, t))
    RESULTS["thread_stream_elements_compared"] = compared
    check("thread_streams_equal_spec8", not bad and compared > 0, bad[:5])


def test_dropout_streams():
    seed, offset = 20240601, 8
    bad = []
    src = lambda e: Fraction(((e * 37) % 255) - 127, 8)  # noqa: E731
    for dt, n, vec_expect in [("float32", 1000, 4), ("float32", 1002, 2), ("float32", 1001, 1),
                              ("float16", 1000, 8), ("bfloat16", 1004, 4), ("float64", 1000, 2),
                              ("float64", 999, 1), ("float16", 3 * 4096 + 8, 8)]:
        prm = {"p": 0.3, "src": src}
        v = order.dropout_vec(dt, n)
        if v != vec_expect:
            bad.append(("vec", dt, n, v))
        if not _bijection("dropout", dt, prm, n, SMALL_SM, SMALL_TPS):
            bad.append(("bijection", dt, n))
        _, g = order.launch(n, SMALL_SM, SMALL_TPS)
        p1m = dist.rnd(1 - Fraction(0.3), dist.F64)
        for t in sorted({0, 1, g // 3}):
            es = order.thread_elements("dropout", dt, n, t, SMALL_SM, SMALL_TPS, **prm)
            if not es:
                continue
            got, _ = order.elements("dropout", dt, n, seed, offset, SMALL_SM, SMALL_TPS, indices=es, **prm)
            st = ps.curand_init_state(seed, t, offset)
            if v == 2:   # each iteration draws a new curand_uniform4 and uses x, y only
                words = [ps.word(st, 4 * (j // 2) + j % 2) for j in range(len(es))]
            else:
                words = ps.stream_words(st, 0, len(es))
            acc = "float64" if dt == "float64" else "float32"
            pa = dist.rnd(p1m, acc)
            masks = [1 if dist.value(dist.u32(w), "float32") < pa else 0 for w in words]
            if [m for _, m in got] != masks:
                bad.append(("mask", dt, n, t))
            # output: masked values are signed zeros, kept ones x * scale
            scale = dist.rnd(dist.rnd(1 / pa, dist.F64), acc)
            for (ob, m), e in zip(got, es):
                x = src(e)
                want = dist.round_bits(dist.rnd(x * scale, acc), dt) if m and x else \
                    dist.round_bits(0, dt, negative_zero=x < 0)
                if ob != want:
                    bad.append(("out", dt, n, e))
                    break
    check("dropout_masks_and_outputs", not bad, bad[:5])


# ----------------------------------------------------------- 3. offsets ------
def test_offsets():
    sm, tps = 132, 2048
    gmax = 270336
    off = 0
    chain = [("uniform", "float32", 5, {}), ("uniform", "float32", 4 * gmax + 1, {}),
             ("normal", "float64", 2 * gmax + 1, {}), ("random_from_to", "int64", 1000, {"low": 0, "high": 2**31}),
             ("dropout", "float16", 8 * gmax + 8, {"p": 0.3, "src": lambda e: 1.0}),
             ("uniform", "float32", 1, {})]
    offs = [off]
    for kind, dt, n, prm in chain:
        _, off = order.elements(kind, dt, n, 7, off, sm, tps, indices=[0], **prm)
        offs.append(off)
    check("offset_chain", offs == [0, 4, 12, 20, 24, 36, 40], offs)
    # calls beyond the reservation: dropout VEC=8 (float16, n = 8G + 8): thread 0 makes 2
    # iterations x 2 calls = 4 calls, the offset advances by 12 (3 calls).
    over = []
    for dt, n in [("float16", 8 * gmax + 8), ("float32", 4 * gmax + 2), ("float32", 4 * gmax + 4),
                  ("float32", 4 * gmax + 1), ("bfloat16", 8 * gmax)]:
        inc = order.offset_increment("dropout", dt, n, sm, tps, p=0.3)
        es = order.thread_elements("dropout", dt, n, 0, sm, tps, p=0.3)
        used = 1 + max(order.word_address("dropout", e, n, sm, tps, dt, p=0.3)[1] for e in es)
        over.append({"dtype": dt, "n": n, "vec": order.dropout_vec(dt, n), "reserved_calls": inc // 4,
                     "thread0_calls": used})
    RESULTS["dropout_calls_vs_reservation"] = over
    check("dropout_overrun_found", [o["thread0_calls"] > o["reserved_calls"] for o in over]
          == [True, True, False, False, False], over)


# ----------------------------------------------------- 4. curand.txt ---------
def test_curand_txt():
    path = os.path.join(REC, "curand.txt")
    n = bad = 0
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.split()
        name = f[0]
        if name not in ("bits", "uniform4", "uniform2d"):
            continue
        seed, sub, off, i, val = int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5], 16)
        if name == "uniform2d":
            blk = order.philox_block(seed, off, sub, i // 2)
            want = dist.u53(blk[2 * (i % 2)], blk[2 * (i % 2) + 1])
        else:
            w = order.philox_block(seed, off, sub, i // 4)[i % 4]
            want = w if name == "bits" else dist.u32(w)
        n += 1
        bad += want != val
    RESULTS["curand_txt_values"] = n
    check("curand_txt", n > 0 and bad == 0, f"{bad} of {n}")


# ------------------------------------------------------ 5. torch.txt ---------
DT = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "u8": "uint8",
      "bool": "bool", "i32": "int32", "i64": "int64"}


def test_torch_txt():
    path = os.path.join(REC, "torch.txt")
    meta = None
    rows = {}
    for line in open(path):
        if line.startswith("# torch_capture.py:"):
            meta = line
        if line.startswith("#"):
            continue
        key, li, hx = line.split()
        rows.setdefault(key, []).append((int(li), int(hx, 16)))
    seed = int(meta.split("seed ")[1].split()[0])
    n = int(meta.split(" n ")[1].split()[0])
    sms = int(meta.split("SMs ")[1].split()[0])
    tps = 2048  # H100; for n = 4096 any threads_per_sm >= 256 gives the same launch
    exact = tol = 0
    bad = []
    worst_normal = {}
    for key, vals in rows.items():
        kind, rest = key.split("_", 1)
        *prm, dt = rest.split("_")
        dtype = DT[dt]
        idx = [li for li, _ in vals]
        if kind == "integers":
            params = {"low": int(prm[0]), "high": int(prm[1])}
            okind = "random_from_to"
        else:
            fp = [float(p.replace("m", "-")) for p in prm]
            okind = kind
            params = {"uniform": lambda: {"low": fp[0], "high": fp[1]},
                      "normal": lambda: {"mean": fp[0], "std": fp[1]},
                      "bernoulli": lambda: {"p": fp[0]}}[kind]()
        got, new_off = order.elements(okind, dtype, n, seed, 0, sms, tps, indices=idx, **params)
        if new_off != 4:
            bad.append((key, "offset", new_off))
        for (li, rec), mine in zip(vals, got):
            if kind != "normal":
                exact += 1
                if mine != rec:
                    bad.append((key, li, hex(rec), hex(mine)))
                continue
            t, b, lane = order.word_address(okind, li, n, sms, tps, dtype, **params)
            blk = order.philox_block(seed, 0, t, b)
            ex = order.normal_exact(blk, lane, dtype, params["mean"], params["std"])
            ok, d = order.normal_within_gpu_tolerance(rec, dtype, ex, params["mean"], params["std"])
            tol += 1
            worst_normal[dt] = max(worst_normal.get(dt, 0.0), float(d))
            if not ok:
                bad.append((key, li, "normal", float(d)))
    RESULTS["torch_txt_summary"] = {"arrays": len(rows), "exact_values": exact, "normal_values": tol,
                            "normal_max_abs_diff": worst_normal, "mismatches": len(bad)}
    check("torch_txt", not bad and exact > 0, bad[:5])


# -------------------------------------------------- 6. torch_bulk.json -------
def test_torch_bulk():
    rec = json.load(open(os.path.join(REC, "torch_bulk.json")))
    sms, tps = 132, 2048
    n = rec["n"]
    _, gf = order.launch(n, sms, tps)
    _, gd = order.launch(rec["rand_f64_n"], sms, tps)
    ok = gf == rec["G_float"] and gd == rec["G_double"]
    rng = random.Random(3)
    bad = 0
    # torch_bulk.py placed element li at thread li % G, call li // (U*G), lane (li // G) % U
    for dt, u, nn, g in (("float32", 4, n, gf), ("float64", 2, rec["rand_f64_n"], gd)):
        for li in [0, 1, g - 1, g, u * g - 1, u * g, nn - 1] + [rng.randrange(nn) for _ in range(2000)]:
            want = (li % g, li // (u * g), (li // g) % u)
            bad += order.word_address("uniform", li, nn, sms, tps, dt) != want
            bad += order.word_address("normal", li, nn, sms, tps, dt) != want
    RESULTS["torch_bulk"] = {"G": [gf, gd], "gpu_mismatches_recorded": [rec["rand_f32_mismatches"],
                             rec["rand_f64_mismatches"]], "layout_disagreements": bad}
    check("torch_bulk_layout", ok and bad == 0 and rec["rand_f32_mismatches"] == 0
          and rec["rand_f64_mismatches"] == 0, RESULTS["torch_bulk"])


# ------------------------------------------------------------ extra ---------
def test_misc():
    # update_from / update_to (the header's own example: half, to = 65504 -> 65472)
    check("update_to_half_65504", order._update_to(65504, "float16") == 65472, order._update_to(65504, "float16"))
    check("update_to_float_2p24", order._update_to(2**24, "float32") == 2**24)
    # path selection
    check("int_paths", [order.unroll("random_from_to", "int64", low=0, high=h) for h in (2**28 - 1, 2**28, 2**31)]
          == [4, 2, 2])
    check("full64_path", order.unroll("random_from_to", "int64", low=-(1 << 63), high=None) == 2)
    check("random_paths", [order.unroll("random", d) for d in ("int64", "float64", "int32", "float32", "bool")]
          == [2, 2, 4, 4, 4])
    try:
        order.elements("uniform", "float32", (1 << 29) + 1, 1, 0, 132, 2048, indices=[0])
        check("32bit_split_refused", False)
    except NotImplementedError:
        check("32bit_split_refused", True)


def test_dry_run():
    """--dry-run: capture_torch_cuda.plan() recorded from order.py itself, then check_order.py
    on it (needs NumPy; about 30 s): every planned call is modelled and the checker's
    plumbing (offsets, chains, hashes, hypotheses) works."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "check.json")
        r = subprocess.run([sys.executable, os.path.join(HERE, "check_order.py"), "--make-synthetic", d,
                            "--full", "1024", "--json", js], capture_output=True, text=True)
        try:
            res = json.load(open(js))
        except (OSError, ValueError):
            res = {"result": "unparsable", "stderr": r.stderr[-2000:]}
        RESULTS["dry_run"] = {k: res.get(k) for k in ("calls", "values", "hypotheses", "full_hash", "result")}
        check("dry_run_capture_plan", r.returncode == 0 and res.get("result") == "PASS", r.stderr[-500:])


def main():
    t0 = time.time()
    tests = [test_geometry, test_misc, test_offsets, test_curand_txt, test_torch_bulk, test_torch_txt,
             test_thread_streams, test_dropout_streams]
    if "--dry-run" in sys.argv:
        tests.append(test_dry_run)
    for f in tests:
        f()
    RESULTS["seconds"] = round(time.time() - t0, 1)
    RESULTS["failures"] = FAILS
    print(json.dumps(RESULTS, indent=1, default=str))
    print("order_selftest:", "PASS" if not FAILS else f"FAIL ({len(FAILS)})")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
