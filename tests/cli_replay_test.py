"""`randtensor generate --order torch-cuda` against the H100 recording.

The CLI replays recorded calls of tests/reference/torch_cuda/recorded (torch
2.11 on an H100, capture_torch_cuda.py) into .npy files: the SHA-256 of the
data equals the GPU tensor's and the printed `philox-offset:` equals the
generator's Philox offset after the call. Runs the binary named by
$RANDTENSOR_CLI.

    RANDTENSOR_CLI=build/tools/randtensor python3 -m pytest -q tests/cli_replay_test.py
"""
import hashlib
import json
import os
import struct

import pytest

from cli_test import assert_usage_error, ok, run

RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference", "torch_cuda",
                        "recorded", "torch_cuda_order.json")
with open(RECORDED) as f:
    CALLS = json.load(f)["calls"]


def npy_data(path):
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY" and raw[6:8] == b"\x01\x00"
    (header_len,) = struct.unpack("<H", raw[8:10])
    return raw[10 + header_len:]


def cli_args(call, offset_option="--philox-offset"):
    """The generate options of a recorded call (uniform, bernoulli, integers)."""
    seed, offset = call["state_before"]
    p = call["params"]
    args = ["--sizes", call["n"], "--seed", seed, offset_option, offset, "--order", "torch-cuda",
            "--gpu", "h100-sxm", "--dtype", call["dtype"]]
    if call["kind"] == "uniform":
        return args + ["--dist", "uniform", "--low", p.get("low", 0.0), "--high", p.get("high", 1.0)]
    if call["kind"] == "bernoulli":
        return args + ["--dist", "bernoulli", "--p", p["p"]]
    return args + ["--dist", "integers", "--low", p["low"], "--high", p["high"]]


def pick(kind, dtype, largest=False):
    calls = [c for c in CALLS if c["kind"] == kind and c["dtype"] == dtype]
    return max(calls, key=lambda c: c["n"]) if largest else calls[0]


CASES = [pick("uniform", "float32"), pick("uniform", "float32", largest=True),
         pick("uniform", "bfloat16", largest=True), pick("uniform", "float64", largest=True),
         pick("bernoulli", "bool", largest=True), pick("bernoulli", "float16"),
         pick("random_from_to", "int64", largest=True), pick("random_from_to", "int32", largest=True)]


@pytest.mark.parametrize("call", CASES, ids=lambda c: f"{c['id']}-{c['kind']}-{c['dtype']}-{c['n']}")
def test_replays_the_recorded_call(call, tmp_path):
    out = tmp_path / "x.npy"
    lines = ok("generate", *cli_args(call), "--out", out, "--format", "npy")
    assert lines[1] == f"philox-offset: {call['state_after'][1]}"
    assert hashlib.sha256(npy_data(out)).hexdigest() == call["sha256"]


@pytest.mark.parametrize("call", [c for c in CASES if c["state_before"][1] > 0][:2],
                         ids=lambda c: f"{c['id']}-{c['kind']}-{c['dtype']}-{c['n']}")
def test_offset_is_the_deprecated_spelling_of_philox_offset(call, tmp_path):
    """Under --order torch-cuda, --offset (the spelling before --philox-offset)
    still means the generator's Philox offset, and the run prints `offset: N`
    as it did, so scripts written for it keep working."""
    out = tmp_path / "x.npy"
    lines = ok("generate", *cli_args(call, "--offset"), "--out", out, "--format", "npy")
    assert lines[1] == f"offset: {call['state_after'][1]}"
    assert hashlib.sha256(npy_data(out)).hexdigest() == call["sha256"]


def test_philox_offset_refusals(tmp_path):
    out = tmp_path / "x.bin"
    assert_usage_error(run("generate", "--sizes", "5", "--philox-offset", "4", "--out", out),
                       "--philox-offset.*--order torch-cuda")
    assert_usage_error(run("generate", "--sizes", "5", "--order", "torch-cuda", "--offset", "4",
                           "--philox-offset", "4", "--out", out), "not both")
    assert_usage_error(run("generate", "--sizes", "5", "--order", "torch-cuda",
                           "--philox-offset", "6", "--out", out),
                       "--philox-offset: .*offset = 6 is not a multiple of 4")
    assert list(tmp_path.iterdir()) == []


def test_refusals():
    assert_usage_error(run("generate", "--sizes", "50000", "--order", "torch-cuda"),
                       "above 40960 .* --gpu NAME")
    assert_usage_error(run("generate", "--sizes", "5", "--order", "torch-cuda", "--offset", "6"),
                       "offset = 6 is not a multiple of 4")
    assert_usage_error(run("generate", "--sizes", "5", "--gpu", "h100-sxm"), "need --order torch-cuda")
    assert_usage_error(run("generate", "--sizes", "5", "--order", "torch-cuda", "--gpu", "nope"),
                       "--gpu: 'nope' is not a preset")
    assert_usage_error(run("generate", "--sizes", "5", "--order", "cuda"), "--order: 'cuda'")
    assert_usage_error(run("generate", "--sizes", "5", "--order", "torch-cuda", "--sm-count", "4"),
                       "go together")
    assert_usage_error(run("generate", "--sizes", "4,4", "--strides", "1,4", "--order",
                           "torch-cuda"), "strides")
    assert_usage_error(run("generate", "--sizes", "5", "--order", "torch-cuda", "--state",
                           "0,0,0,0,0,0"), "--seed and --philox-offset .*not --state")


# --order curand-host against cuRAND's host generator (tests/reference/curand_host).
CURAND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference", "curand_host")


def curand_cases():
    import gzip
    import sys
    sys.path.insert(0, CURAND)
    import plan
    recorded = json.load(gzip.open(os.path.join(CURAND, "recorded", "curand_host.json.gz"), "rt"))
    picked = {}
    for ch in plan.plan():
        c = ch["calls"][0]
        if len(ch["calls"]) != 1 or ch["resets"] or ch["order"] is not None or c["n"] < 1000:
            continue
        if c["func"] in ("bits", "unif", "unifd") and "sha256" in recorded["calls"][c["id"]]:
            key = (c["func"], ch["offset"] != 0)
            picked.setdefault(key, (ch, c, recorded["calls"][c["id"]]))
    return list(picked.values())


ARGS = {"bits": ["--dist", "bits"], "unif": ["--dist", "uniform", "--dtype", "float32"],
        "unifd": ["--dist", "uniform", "--dtype", "float64"]}


@pytest.mark.parametrize("case", curand_cases(), ids=lambda c: f"{c[1]['func']}-{c[1]['n']}-{c[0]['offset']}")
def test_curand_host_recorded_call(case, tmp_path):
    ch, c, meta = case
    out = tmp_path / "x.npy"
    lines = ok("generate", "--sizes", c["n"], "--seed", ch["seed"] or 0, "--offset", ch["offset"] or 0,
               "--order", "curand-host", *ARGS[c["func"]], "--out", out, "--format", "npy")
    assert lines[0] == f"offset: {(ch['offset'] or 0) + c['n']}"
    assert hashlib.sha256(npy_data(out)).hexdigest() == meta["sha256"]


def test_curand_host_refusals():
    assert_usage_error(run("generate", "--sizes", "5", "--order", "curand-host", "--dist", "uniform",
                           "--low", "1", "--high", "2"), "uniform \\(0, 1\\)")
    assert_usage_error(run("generate", "--sizes", "5", "--order", "curand-host", "--state",
                           "0,0,0,0,0,0"), "not --state")
