"""randtensor.replay.torch_cuda against what an H100 computed.

tests/reference/torch_cuda/recorded/ holds 209 calls recorded on an H100
(torch 2.11.0+cu130; capture_torch_cuda.py, the script that recorded them):
sampled elements' bit patterns, the SHA-256 of every whole output and the
generator's (seed, offset) before and after each call. Each supported call is
replayed whole, on every SIMD target this CPU runs: bit-exact samples and
hashes for everything but normals, whose GPU side uses __sincosf (checked
within order.py's published tolerance), and the same new offset.
"""
import json
import os
import sys

import numpy as np
import pytest

import randtensor
from randtensor.replay import torch_cuda
from digest import sha256_hex

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "..", "tests", "reference", "torch_cuda")
RECORDED = os.path.join(REFERENCE, "recorded")
sys.path.insert(0, os.path.join(REFERENCE, ".."))  # distributions.py
sys.path.insert(0, REFERENCE)                      # order.py
import order  # noqa: E402

UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
FORMATS = {"float32": order.F32, "float64": order.F64, "float16": order.F16,
           "bfloat16": order.BF16}


def _load():
    with open(os.path.join(RECORDED, "torch_cuda_order.json")) as f:
        meta = json.load(f)
    return meta, np.load(os.path.join(RECORDED, "torch_cuda_order.npz"))


META, ARRAYS = _load()
GPU = (META["env"]["sm_count"], META["env"]["threads_per_sm"])

# What randtensor replays, as (kind, dtype) of the recording; the rest are
# listed so that a change in coverage is a deliberate one.
REPLAYED_KINDS = {"uniform", "normal", "bernoulli", "random_from_to"}
NOT_REPLAYED = set()  # bernoulli int64 and randint into uint8/bool/half types: through _VIA


def _replay(call):
    """(array, new_philox_offset) of the library for a recorded call."""
    seed, offset = call["state_before"]
    n, dtype, p = call["n"], call["dtype"], call["params"]
    kind = call["kind"]
    if kind == "uniform":
        return torch_cuda.uniform(n, p.get("low", 0.0), p.get("high", 1.0), dtype=dtype,
                                  seed=seed, philox_offset=offset, gpu=GPU)
    if kind == "normal":
        return torch_cuda.normal(n, p.get("mean", 0.0), p.get("std", 1.0), dtype=dtype,
                                 seed=seed, philox_offset=offset, gpu=GPU)
    if kind == "bernoulli":
        return torch_cuda.bernoulli(n, p["p"], dtype=dtype, seed=seed, philox_offset=offset,
                                    gpu=GPU)
    return torch_cuda.randint(p["low"], p["high"], n, dtype=dtype, seed=seed,
                              philox_offset=offset, gpu=GPU)


def _cases():
    return [c for c in META["calls"] if c["kind"] in REPLAYED_KINDS
            and (c["kind"], c["dtype"]) not in NOT_REPLAYED]


def _targets():
    return [t["name"] for t in randtensor.targets() if t["supported"]]


@pytest.fixture(params=_targets())
def target(request):
    randtensor.set_target(request.param)
    yield request.param
    randtensor.set_target("auto")


def test_coverage_of_the_recording():
    kinds = {(c["kind"], c["dtype"]) for c in META["calls"]}
    assert NOT_REPLAYED <= kinds
    assert len(_cases()) >= 160, len(_cases())


def _check_call(call):
    array, new_offset = _replay(call)
    assert [call["state_before"][0], new_offset] == call["state_after"], call["id"]
    bits = array.view(UNSIGNED[array.dtype.itemsize]).reshape(-1)
    idx = ARRAYS[f"c{call['id']}_idx"].astype(np.int64)
    got = ARRAYS[f"c{call['id']}_val"]
    if call["kind"] != "normal":
        np.testing.assert_array_equal(bits[idx], got, err_msg=f"call {call['id']}")
        assert sha256_hex(bits) == call["sha256"], call["id"]
        return 0.0
    mean, std = call["params"].get("mean", 0.0), call["params"].get("std", 1.0)
    worst = 0.0
    for e, g in zip(idx, got):
        mine = order.dist.value(int(bits[e]), FORMATS[call["dtype"]])
        ok, d = order.normal_within_gpu_tolerance(int(g), FORMATS[call["dtype"]], mine,
                                                  mean, std)
        assert ok, (call["id"], int(e), float(d))
        worst = max(worst, float(d))
    return worst


def test_every_recorded_call_on_every_target(target):
    for call in _cases():
        _check_call(call)


def test_chains_replay_with_the_generator():
    """A torch_cuda.Generator carries the Philox offset from call to call as the GPU's
    generator did (chain A: torch.manual_seed then consecutive calls)."""
    chain = [c for c in _cases() if c["chain"] == "A" and c["generator"] == "default"]
    first = chain[0]
    g = torch_cuda.Generator(first["state_before"][0], first["state_before"][1], gpu=GPU)
    done = 0
    for call in chain:
        if [g.seed, g.philox_offset] != call["state_before"]:
            break  # an unsupported call sat between: the chain resumes from the record
        p = call["params"]
        kind, dtype, n = call["kind"], call["dtype"], call["n"]
        if kind == "uniform":
            out = g.uniform(n, p.get("low", 0.0), p.get("high", 1.0), dtype=dtype)
        elif kind == "normal":
            out = g.normal(n, p.get("mean", 0.0), p.get("std", 1.0), dtype=dtype)
        elif kind == "bernoulli":
            out = g.bernoulli(n, p["p"], dtype=dtype)
        else:
            out = g.randint(p["low"], p["high"], n, dtype=dtype)
        assert [g.seed, g.philox_offset] == call["state_after"]
        if kind != "normal":
            bits = out.view(UNSIGNED[out.dtype.itemsize]).reshape(-1)
            assert sha256_hex(bits) == call["sha256"]
        done += 1
    assert done >= 10


def test_threads_and_fill_into_existing_arrays():
    call = max((c for c in _cases() if c["kind"] == "uniform" and c["dtype"] == "float32"),
               key=lambda c: c["n"])
    seed, offset = call["state_before"]
    for threads in (1, 2, 3):
        out = np.empty(call["n"], np.float32)
        new = torch_cuda.fill(out, "uniform", seed=seed, philox_offset=offset, gpu=GPU,
                              threads=threads)
        assert new == call["state_after"][1]
        assert sha256_hex(out) == call["sha256"]


def test_state_bytes_and_generator_state():
    raw = (1234).to_bytes(8, "little") + (40).to_bytes(8, "little")
    assert torch_cuda.state_from_bytes(raw) == (1234, 40)
    g = torch_cuda.Generator(5, 8)
    g.set_state(raw)
    assert (g.seed, g.philox_offset) == (1234, 40) and g.get_state() == raw


def test_offset_is_a_deprecated_spelling_of_philox_offset():
    """offset= (the name before philox_offset=) still works everywhere it did,
    with a DeprecationWarning, and means the same; recorded calls decide."""
    call = next(c for c in _cases() if c["kind"] == "uniform" and c["state_before"][1] > 0)
    seed, offset = call["state_before"]
    with pytest.warns(DeprecationWarning, match="philox_offset"):
        x, new = torch_cuda.uniform(call["n"], call["params"].get("low", 0.0),
                                    call["params"].get("high", 1.0), dtype=call["dtype"],
                                    seed=seed, offset=offset, gpu=GPU)
    assert new == call["state_after"][1]
    assert sha256_hex(x) == call["sha256"]
    for op in (torch_cuda.rand, torch_cuda.randn):
        with pytest.warns(DeprecationWarning):
            old = op(8, seed=3, offset=12)
        new_spelling = op(8, seed=3, philox_offset=12)
        np.testing.assert_array_equal(old[0], new_spelling[0])
        assert old[1] == new_spelling[1] == 16
    with pytest.warns(DeprecationWarning):
        assert torch_cuda.fill(np.empty(8, np.float32), "uniform", seed=3, offset=12) == 16
    with pytest.warns(DeprecationWarning):
        old = torch_cuda.dropout(np.ones(8, np.float32), 0.5, seed=3, offset=12)
    new_spelling = torch_cuda.dropout(np.ones(8, np.float32), 0.5, seed=3, philox_offset=12)
    np.testing.assert_array_equal(old[1], new_spelling[1])
    assert old[2] == new_spelling[2] == 16
    with pytest.warns(DeprecationWarning):
        g = torch_cuda.Generator(3, offset=12)
    assert g.philox_offset == 12
    with pytest.warns(DeprecationWarning):
        assert g.offset == 12
    with pytest.warns(DeprecationWarning):
        g.offset = 20
    assert g.philox_offset == 20
    with pytest.raises(TypeError, match="not both"):
        torch_cuda.rand(8, seed=3, philox_offset=4, offset=8)


def test_refusals():
    with pytest.raises(ValueError, match="philox_offset = 6"):
        torch_cuda.rand(4, seed=1, philox_offset=6)
    with pytest.raises(ValueError, match="depends on the GPU"):
        torch_cuda.rand(50000, seed=1)
    with pytest.raises(ValueError, match="gpu = 'nope'"):
        torch_cuda.rand(4, seed=1, gpu="nope")
    out = np.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match="C-contiguous"):
        torch_cuda.fill(out.T, "uniform", seed=1)
    assert not out.any()
    with pytest.raises(ValueError, match="gpu.sm_count = 1 and gpu.threads_per_sm = 100"):
        torch_cuda.rand(4, seed=1, gpu=(1, 100))
    big = 40961
    x, off = torch_cuda.rand(big, seed=1, gpu="unbounded")
    assert off == 4 and x.shape == (big,)
    assert set(torch_cuda.gpu_presets()) >= {"h100-sxm", "a100", "t4"}


def _dropout_input(n, dtype):
    """capture_torch_cuda.py's dropout input: ((e * 37) % 255 - 127) / 8, exact
    in every float type."""
    x = ((np.arange(n, dtype=np.int64) * 37) % 255 - 127).astype(np.float32) / 8
    if dtype == "bfloat16":
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    return x.astype(dtype)


DROPOUT_CALLS = [c for c in META["calls"] if c["kind"] == "dropout"]


def test_dropout_recorded_calls_on_every_target(target):
    assert len(DROPOUT_CALLS) >= 20
    for call in DROPOUT_CALLS:
        seed, offset = call["state_before"]
        n, dtype = call["n"], call["dtype"]
        x = _dropout_input(n, dtype)
        out, mask, new = torch_cuda.dropout(x, call["params"]["p"], seed=seed,
                                            philox_offset=offset, gpu=GPU,
                                            bfloat16=dtype == "bfloat16")
        assert new == call["state_after"][1], call["id"]
        bits = out.view(UNSIGNED[out.dtype.itemsize])
        idx = ARRAYS[f"c{call['id']}_idx"].astype(np.int64)
        np.testing.assert_array_equal(bits[idx], ARRAYS[f"c{call['id']}_val"],
                                      err_msg=f"call {call['id']}")
        assert sha256_hex(bits) == call["sha256"], call["id"]
        if "mask_sha256" in call:
            assert sha256_hex(mask.view(np.uint8)) == call["mask_sha256"]


def test_dropout_refusals():
    x = np.ones(8, np.float32)
    for p in (0.0, 1.0, -0.5):
        with pytest.raises(ValueError, match="p = "):
            torch_cuda.dropout(x, p, seed=1)
    with pytest.raises(ValueError, match="max_vector = 3"):
        torch_cuda.dropout(x, 0.5, seed=1, max_vector=3)
    with pytest.raises((TypeError, ValueError), match="dropout takes float32"):
        torch_cuda.dropout(np.ones(8, np.int32), 0.5, seed=1)
