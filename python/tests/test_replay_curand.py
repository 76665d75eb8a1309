"""randtensor.replay.curand_host against cuRAND's host generator on an H100.

tests/reference/curand_host/recorded holds 856 curandGenerate* calls
(CURAND_RNG_PSEUDO_PHILOX4_32_10, default ordering; CUDA 13.0 / cuRAND 10.4,
capture_curand_host.cu): sampled outputs and the SHA-256 of every whole
output. Each chain is replayed with the library's generator, which carries
its own offset and skew from call to call (the model's state is not used):
bits and uniforms bit for bit, whole outputs by SHA-256; normals within the
checker's published tolerance of cuRAND's fast-math values; on every SIMD
target this CPU runs.
"""
import gzip
import json
import os
import sys

import numpy as np
import pytest

import randtensor
from randtensor.replay import curand_host
from digest import sha256_hex

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "..", "tests", "reference", "curand_host")
sys.path.insert(0, REFERENCE)
import check_curand_host as check  # noqa: E402
import plan  # noqa: E402

RECORDED = json.load(gzip.open(os.path.join(REFERENCE, "recorded", "curand_host.json.gz"), "rt"))
METHODS = {"bits": "generate", "unif": "generate_uniform", "unifd": "generate_uniform_double",
           "norm": "generate_normal", "normd": "generate_normal_double"}
VIEW = {"bits": np.uint32, "unif": np.uint32, "unifd": np.uint64}


def _chains():
    """The recorded chains the library replays: not the DYNAMIC ordering (not
    modelled), not the seed changed after generating (ORDERING.md), not the
    refused SEEDED ordering, not log-normals."""
    for ch in plan.plan():
        if ch["chain"].startswith("orderDYNAMIC") or ch["chain"] in check.NOT_MODELLED:
            continue
        if any(RECORDED["calls"][c["id"]]["status"] != 0 for c in ch["calls"]):
            continue
        if any(c["func"] not in METHODS for c in ch["calls"]):
            continue
        yield ch


def _replay_chain(ch, big_ok):
    g = curand_host.Generator(ch["seed"] if ch["seed"] is not None else 0)
    if ch["offset"] is not None:
        g.set_offset(ch["offset"])
    resets = {r["after"]: r for r in ch["resets"]}
    checked = 0
    for k, c in enumerate(ch["calls"]):
        meta = RECORDED["calls"][c["id"]]
        if c["n"] > (1 << 21) and not big_ok:
            return checked
        out = getattr(g, METHODS[c["func"]])(c["n"], *((c["mean"], c["std"])
                                                        if c["func"] in ("norm", "normd") else ()))
        idx = np.array(meta["idx"], dtype=np.int64)
        vals = np.array([int(v, 16) for v in meta["val"]], dtype=np.uint64)
        name = f"{ch['chain']}[{k}] {c['func']} n={c['n']}"
        if c["func"] in VIEW:
            bits = out.view(VIEW[c["func"]])
            np.testing.assert_array_equal(bits[idx], vals.astype(VIEW[c["func"]]), err_msg=name)
            if "sha256" in meta:  # every call but the empty ones
                assert sha256_hex(out) == meta["sha256"], name
            else:
                assert c["n"] == 0 and out.size == 0, name
        elif len(idx):
            got = vals.astype(np.uint32).view(np.float32) if c["func"] == "norm" else vals.view(np.float64)
            err = check.rel_err(out[idx].astype(np.float64), got, c["func"])
            assert err.max() <= check.TOL_ULPS[c["func"]], (name, float(err.max()))
        checked += 1
        if k in resets:
            r = resets[k]
            if "seed" in r:
                g.set_seed(r["seed"])
            if "offset" in r:
                g.set_offset(r["offset"])
    return checked


@pytest.mark.parametrize("target", [t["name"] for t in randtensor.targets() if t["supported"]])
def test_recorded_chains_on_every_target(target):
    randtensor.set_target(target)
    try:
        # Whole outputs up to 2^21 on every target; the 2^24 ones once, below.
        assert sum(_replay_chain(ch, big_ok=False) for ch in _chains()) >= 600
    finally:
        randtensor.set_target("auto")


def test_recorded_chains_whole():
    assert sum(_replay_chain(ch, big_ok=True) for ch in _chains()) >= 700


def test_refusals():
    g = curand_host.Generator(1)
    with pytest.raises(ValueError, match="stddev = -1"):
        g.generate_normal(4, 0.0, -1.0)
    assert g.offset == 0
    with pytest.raises(ValueError, match="seed"):
        curand_host.Generator(-1)
