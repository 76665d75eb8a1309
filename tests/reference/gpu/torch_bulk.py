"""Bulk check of torch.rand / torch.randn on the GPU machine (NumPy; mpmath for float64 normals).

    python3 torch_bulk.py OUTDIR [N]

Generates N (default 2^24) values with a fresh CUDA generator (offset 0) and checks
them against SPEC.md section 8 placed by SPEC.md section 9's PyTorch launch order
(block 256, grid = min(ceil(n/256), SMs * maxThreadsPerSM / 256), G = 256 * grid,
element li = thread li mod G, call li // (U*G), lane (li // G) mod U):
  torch.rand float32 / float64: bit-exact;
  torch.randn float32: ulp / absolute difference from the exact formula (float64 NumPy);
  torch.randn float64: ulp difference from the formula evaluated by mpmath (the
  reference's box_muller_d, in a process pool) on a sample of M values (default 2^20).
Writes OUTDIR/torch_bulk.json.
"""
import json
import os
import sys
import time

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.dirname(here))
import compare as cmp  # noqa: E402

SEED = 987654321


def layout(n, unroll):
    props = torch.cuda.get_device_properties(0)
    grid = min((n + 255) // 256, props.multi_processor_count * (props.max_threads_per_multi_processor // 256))
    g = 256 * grid
    li = np.arange(n, dtype=np.int64)
    return g, li % g, li // (unroll * g), (li // g) % unroll


def blocks(g, calls):
    """Philox blocks of threads 0..g-1 (curand_init(SEED, t, 0)), calls 0..calls-1: (calls*g, 4)."""
    t = np.tile(np.arange(g, dtype=np.uint64), calls)
    k = np.repeat(np.arange(calls, dtype=np.uint64), g)
    ctr = np.stack([k & np.uint64(0xFFFFFFFF), k >> np.uint64(32), t & np.uint64(0xFFFFFFFF),
                    t >> np.uint64(32)], axis=1)
    return cmp.philox_np(ctr, (SEED & 0xFFFFFFFF, SEED >> 32)).reshape(-1, 4)


def _d_worker(args):
    import distributions as dist
    out = []
    for a, b, c, d, lane, got in args:
        z = dist.box_muller_d(a, b, c, d)[lane]
        out.append((dist.ulp_diff(got, z, "float64"), float(dist.abs_diff(got, z))))
    return out


def main(outdir, n=1 << 24, m=1 << 20):
    res = {"n": n, "seed": SEED, "torch": torch.__version__}
    t0 = time.time()
    # float32: U = 4
    g, t, k, lane = layout(n, 4)
    res["G_float"] = int(g)
    w = blocks(g, int(k.max()) + 1)
    b = k * g + t
    gen = torch.Generator(device="cuda")
    gen.manual_seed(SEED)
    rand = torch.rand(n, device="cuda", generator=gen).cpu().numpy()
    ref = cmp.u32_np(w[b, lane])
    res["rand_f32_mismatches"] = int(np.count_nonzero(ref.view(np.uint32) != rand.view(np.uint32)))
    gen.manual_seed(SEED)
    randn = torch.randn(n, device="cuda", generator=gen).cpu().numpy()
    pair = lane // 2
    u = cmp.u32_np(w[b, 2 * pair]).astype(np.float64)
    v = cmp.v_float_np(w[b, 2 * pair + 1]).astype(np.float64)
    s = np.sqrt(-2.0 * np.log(u))
    zex = np.where(lane % 2 == 0, s * np.sin(v), s * np.cos(v))
    diff = np.abs(randn.astype(np.float64) - zex)
    ulps = diff / cmp.ulp32(zex.astype(np.float32))
    res["randn_f32"] = {"max_ulp": float(ulps.max()), "max_abs": float(diff.max()),
                        "count_over_2ulp_and_2^-22": int(np.count_nonzero((ulps > 2) & (diff > 2.0 ** -22))),
                        "count_over_2^-20_abs": int(np.count_nonzero(diff > 2.0 ** -20))}
    del w, b, u, v, s, zex, diff, ulps
    # float64: U = 2
    nd = n // 4
    g, t, k, lane = layout(nd, 2)
    res["G_double"] = int(g)
    w = blocks(g, int(k.max()) + 1)
    b = k * g + t
    gen.manual_seed(SEED)
    randd = torch.rand(nd, device="cuda", dtype=torch.float64, generator=gen).cpu().numpy()
    ref = cmp.u53_np(w[b, 2 * lane], w[b, 2 * lane + 1])
    res["rand_f64_n"] = nd
    res["rand_f64_mismatches"] = int(np.count_nonzero(ref.view(np.uint64) != randd.view(np.uint64)))
    gen.manual_seed(SEED)
    randnd = torch.randn(nd, device="cuda", dtype=torch.float64, generator=gen).cpu().numpy()
    rng = np.random.default_rng(5)
    idx = np.sort(rng.choice(nd, size=min(m, nd), replace=False))
    ws = w[b[idx]]
    jobs = [(int(x[0]), int(x[1]), int(x[2]), int(x[3]), int(ln), float(gv))
            for x, ln, gv in zip(ws, lane[idx], randnd[idx])]
    from multiprocessing import Pool
    with Pool(os.cpu_count()) as pool:
        chunks = [jobs[i:i + 4096] for i in range(0, len(jobs), 4096)]
        outs = [r for part in pool.map(_d_worker, chunks) for r in part]
    ul = np.array([o[0] for o in outs])
    ab = np.array([o[1] for o in outs])
    res["randn_f64"] = {"checked": len(outs), "of": nd, "max_ulp": float(ul.max()), "max_abs": float(ab.max()),
                        "count_over_4ulp_and_2^-50": int(np.count_nonzero((ul > 4) & (ab > 2.0 ** -50)))}
    res["seconds"] = time.time() - t0
    with open(os.path.join(outdir, "torch_bulk.json"), "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
