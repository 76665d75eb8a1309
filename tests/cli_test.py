"""The randtensor command-line tool's contract, checked from outside.

Runs the binary named by $RANDTENSOR_CLI. Expected values never come from the
tool itself: they are SPEC.md's known answers (read from
data/known_answers.txt by known_answers.py) or the small pure-Python
Philox4x32-10 below, which is first checked against SPEC.md's Random123
vectors.

    RANDTENSOR_CLI=build-cli/tools/randtensor python3 -m pytest -q tests/cli_test.py
"""

import errno
import functools
import os
import re
import resource
import shutil
import signal
import stat
import struct
import subprocess
import time

import pytest

import known_answers

MASK32 = 0xFFFFFFFF

# ---------------------------------------------------------------------------
# Independent reference (SPEC.md sections 1-4)


def philox4x32_10(ctr, key):
    """Random123's philox4x32_R(10, ctr, key): four counter words, two key words."""
    x0, x1, x2, x3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0 = 0xD2511F53 * x0
        p1 = 0xCD9E8D57 * x2
        x0, x1, x2, x3 = (p1 >> 32) ^ x1 ^ k0, p1 & MASK32, (p0 >> 32) ^ x3 ^ k1, p0 & MASK32
        k0 = (k0 + 0x9E3779B9) & MASK32
        k1 = (k1 + 0xBB67AE85) & MASK32
    return (x0, x1, x2, x3)


def counter_of(state):
    return state[0] | state[1] << 32 | state[2] << 64 | state[3] << 96


def words_of(counter):
    counter %= 1 << 128
    return [(counter >> (32 * i)) & MASK32 for i in range(4)]


def element(state, e):
    """Value of logical element e: word e mod 4 of block C + floor(e / 4)."""
    block = philox4x32_10(words_of(counter_of(state) + e // 4), state[4:6])
    return block[e % 4]


def elements(state, n):
    out = []
    for b in range((n + 3) // 4):
        out.extend(philox4x32_10(words_of(counter_of(state) + b), state[4:6]))
    return out[:n]


def advanced(state, n):
    """Output state: counter + ceil(n / 4) mod 2^128, key unchanged."""
    return words_of(counter_of(state) + (n + 3) // 4) + list(state[4:6])


def packed_strides(sizes):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.insert(0, step)
        step *= s
    return strides


def offsets(sizes, strides):
    """Element offsets in logical row-major order (last dimension fastest)."""
    result = [0]
    for size, stride in zip(sizes, strides):
        result = [base + i * stride for base in result for i in range(size)]
    return result


def min_bytes(sizes, strides):
    span = sum((s - 1) * t for s, t in zip(sizes, strides)) + 1
    return (span * 4 + 3) // 4 * 4


def expected_buffer(state, sizes, strides=None, total=None, pad=0):
    """The whole output buffer as the tool must write it."""
    strides = strides or packed_strides(sizes)
    total = total if total is not None else min_bytes(sizes, strides)
    buf = bytearray([pad]) * total
    offs = offsets(sizes, strides)
    for off, value in zip(offs, elements(state, len(offs))):
        struct.pack_into("<I", buf, off * 4, value)
    return bytes(buf)


def state_line(words):
    return "state: " + " ".join("0x%08x" % w for w in words)


KNOWN = known_answers.load()

# SPEC.md section 6.
RANDOM123_VECTORS = [pytest.param(v.counter, v.key, v.block, id=v.name)
                     for v in KNOWN["block"].values()]
ZERO_STATE_TEN_VALUES = KNOWN["fill"]["zero"].values
ZERO_STATE_AFTER_TEN_LINE = state_line(KNOWN["fill"]["zero"].out_state)  # seed 0, 10 elements
WHOLE_OPERATOR_CASES = [pytest.param(f.state, f.n, f.values, f.out_state, id=f.name)
                        for f in KNOWN["fill"].values() if f.values]

# The seed page's worked example, corrected by SPEC.md section 3.
EXAMPLE = KNOWN["fill"]["directml_example"]
EXAMPLE_STATE = EXAMPLE.state
EXAMPLE_SIZES = EXAMPLE.sizes
EXAMPLE_STATE_LINE = state_line(EXAMPLE.out_state)

STATE_RE = re.compile(r"^state:( 0x[0-9a-f]{8}){6}$")
GBPS_RE = re.compile(r"^GBps: (\S+)$")
TARGET_LINE_RE = re.compile(r"^([A-Z0-9_]+) (supported|unsupported)( active)?$")

# ---------------------------------------------------------------------------
# Running the tool


def cli_path():
    path = os.environ.get("RANDTENSOR_CLI")
    if not path:
        pytest.fail("set RANDTENSOR_CLI to the randtensor binary")
    return os.path.abspath(path)  # some tests run it from another directory


def run(*args, env=None, preexec_fn=None):
    """Runs the tool; RANDTENSOR_TARGET is never inherited unless given in env.

    Under a sanitizer build (scripts/sanitize.sh), the sanitizer's own notes
    on stderr ("==PID==WARNING: AddressSanitizer failed to allocate ...", for
    the deliberately unallocatable buffer) are not the tool's output: drop them.
    """
    full_env = {k: v for k, v in os.environ.items() if k != "RANDTENSOR_TARGET"}
    full_env.update(env or {})
    result = subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True,
                            env=full_env, timeout=60, preexec_fn=preexec_fn)
    if os.environ.get("RANDTENSOR_UNDER_SANITIZER"):
        result.stderr = "".join(line for line in result.stderr.splitlines(keepends=True)
                                if not line.startswith("=="))
    return result


def ok(*args, **kwargs):
    result = run(*args, **kwargs)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


def assert_usage_error(result, names=None):
    """Exit 2, nothing on stdout, exactly one 'randtensor: ' line on stderr."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.endswith("\n") and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("randtensor: "), result.stderr
    if names is not None:
        assert re.search(names, result.stderr), result.stderr


def words(text):
    return ",".join("0x%x" % w for w in text)


def csv(values):
    return ",".join(str(v) for v in values)


def generate_file(tmp_path, name, *args, **kwargs):
    out = tmp_path / name
    lines = ok("generate", *args, "--out", out, **kwargs)
    return lines, out.read_bytes()


def target_table(env=None):
    """{name: (supported, active)} from `randtensor targets`."""
    table = {}
    for line in ok("targets", env=env):
        m = TARGET_LINE_RE.match(line)
        assert m, line
        table[m.group(1)] = (m.group(2) == "supported", m.group(3) is not None)
    return table


def supported_targets():
    return [name for name, (supported, _) in target_table().items() if supported]


# ---------------------------------------------------------------------------
# The reference itself


@pytest.mark.parametrize("ctr,key,block", RANDOM123_VECTORS)
def test_python_reference_matches_random123(ctr, key, block):
    assert list(philox4x32_10(ctr, key)) == block


@pytest.mark.parametrize("state,n,values,out_state", WHOLE_OPERATOR_CASES)
def test_python_reference_matches_whole_operator_cases(state, n, values, out_state):
    assert elements(state, n) == values
    assert advanced(state, n) == out_state


def test_python_reference_worked_example_state():
    assert state_line(advanced(EXAMPLE_STATE, EXAMPLE.n)) == EXAMPLE_STATE_LINE


# ---------------------------------------------------------------------------
# No arguments: the worked example


def main_job_lines(env=None):
    """The no-argument screen, and its lines that start with a key."""
    if env is None:
        return default_main_job()
    return read_main_job(ok(env=env))


@functools.lru_cache(maxsize=None)
def default_main_job():
    """One run of the main job (its timed fills take seconds of CPU) for the
    tests that read its default screen."""
    return read_main_job(ok())


def read_main_job(lines):
    keyed = {}
    for line in lines:
        key, sep, value = line.partition(": ")
        if sep and key in ("state", "target", "GBps"):
            assert key not in keyed, ("printed twice", key, lines)
            keyed[key] = value
    return lines, keyed


def test_no_arguments_runs_worked_example():
    lines, keyed = main_job_lines()
    assert EXAMPLE_STATE_LINE in lines
    assert float(keyed["GBps"]) > 0
    table = target_table()
    name = keyed["target"]
    assert name in table and table[name][0], (name, table)
    assert table[name][1], "the target that ran should be the active one"


def test_no_arguments_compares_with_the_memory_ceiling():
    lines, _ = main_job_lines()
    ceiling = [i for i, line in enumerate(lines) if line.startswith("This machine's memory ceiling")]
    assert len(ceiling) == 1, lines
    m = re.match(r"^  randtensor (\S+) GB/s, streaming-store fill (\S+) GB/s: (\S+) of the ceiling$",
                 lines[ceiling[0] + 1])
    assert m, lines[ceiling[0] + 1]
    ours, stream, ratio = (float(g) for g in m.groups())
    assert ours > 0 and stream > 0
    assert abs(ratio - ours / stream) <= 0.01 + 0.06 * ratio  # printed with 1-2 digits


def test_no_arguments_says_where_to_go_next(tmp_path, monkeypatch):
    lines, _ = main_job_lines()
    assert "Next:" in lines
    nxt = lines[lines.index("Next:") + 1:]
    assert any("randtensor generate --help" in line for line in nxt)
    assert any("README.md" in line for line in nxt)
    # The first suggestion is a command that works as printed.
    words = nxt[0].split()
    assert words[:2] == ["randtensor", "generate"], nxt[0]
    monkeypatch.chdir(tmp_path)
    assert ok(*words[1:])[0].startswith("state: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


def test_no_arguments_reports_the_forced_target():
    _, keyed = main_job_lines(env={"RANDTENSOR_TARGET": "SCALAR"})
    assert "state: " + keyed["state"] == EXAMPLE_STATE_LINE
    assert keyed["target"] == "SCALAR"


def test_worked_example_values(tmp_path):
    lines, data = generate_file(tmp_path, "ex.bin", "--sizes", csv(EXAMPLE_SIZES),
                                "--state", words(EXAMPLE_STATE))
    assert lines == [EXAMPLE_STATE_LINE]
    n = EXAMPLE.n
    assert n == 3 * 3 * 20 * 7219
    assert len(data) == 4 * n
    for e in (0, 1, 2, 3, 4, 7218, 7219, 144379, 144380, n - 2, n - 1):
        assert struct.unpack_from("<I", data, 4 * e)[0] == element(EXAMPLE_STATE, e), e


# ---------------------------------------------------------------------------
# generate: values, state, layout


@pytest.mark.parametrize("state,n,values,out_state", WHOLE_OPERATOR_CASES)
def test_whole_operator_cases(tmp_path, state, n, values, out_state):
    lines, data = generate_file(tmp_path, "out.bin", "--sizes", n, "--state", words(state))
    assert lines == [state_line(out_state)]
    assert data == struct.pack("<%dI" % n, *values)


def test_state_accepts_decimal_words():
    carry = KNOWN["fill"]["carry"]  # the words 4294967295,4294967295,4294967295,0,...
    lines = ok("generate", "--sizes", str(carry.n), "--state",
               ",".join(str(w) for w in carry.state))
    assert lines == [state_line(carry.out_state)]


def test_default_is_seed_zero(tmp_path):
    zero = KNOWN["fill"]["zero"]
    assert zero.state == [0] * 6 and zero.n == 10
    lines, data = generate_file(tmp_path, "a.bin", "--sizes", "10")
    assert lines == [ZERO_STATE_AFTER_TEN_LINE]
    assert data == struct.pack("<10I", *ZERO_STATE_TEN_VALUES)


@pytest.mark.parametrize("seed,key", [
    ("0x200000001", [1, 2]),
    ("0xcafef00ddeadbeef", [0xDEADBEEF, 0xCAFEF00D]),
    ("18446744073709551615", [MASK32, MASK32]),
    ("7", [7, 0]),
])
def test_seed_maps_to_key(tmp_path, seed, key):
    state = [0, 0, 0, 0] + key
    seed_lines, seed_data = generate_file(tmp_path, "seed.bin", "--sizes", "3,7", "--seed", seed)
    state_lines, state_data = generate_file(tmp_path, "state.bin", "--sizes", "3,7",
                                            "--state", words(state))
    assert seed_lines == state_lines == [state_line(advanced(state, 21))]
    assert seed_data == state_data == expected_buffer(state, [3, 7])


def test_strided_output_keeps_padding(tmp_path):
    state = [5, 6, 7, 8, 9, 10]
    _, data = generate_file(tmp_path, "s.bin", "--sizes", "3,5", "--strides", "8,1",
                            "--pad-byte", "0xAB", "--state", words(state))
    assert len(data) == (2 * 8 + 4 + 1) * 4
    element_bytes = set()
    for e, off in enumerate(offsets([3, 5], [8, 1])):
        assert struct.unpack_from("<I", data, off * 4)[0] == element(state, e)
        element_bytes.update(range(off * 4, off * 4 + 4))
    padding = [data[i] for i in range(len(data)) if i not in element_bytes]
    assert len(padding) == len(data) - 15 * 4
    assert all(b == 0xAB for b in padding)
    assert data == expected_buffer(state, [3, 5], [8, 1], pad=0xAB)


def test_total_bytes_above_minimum(tmp_path):
    state = [1, 2, 3, 4, 5, 6]
    lines, data = generate_file(tmp_path, "t.bin", "--sizes", "3,5", "--strides", "8,1",
                                "--total-bytes", "128", "--pad-byte", "171",
                                "--state", words(state))
    assert lines == [state_line(advanced(state, 15))]
    assert len(data) == 128
    assert data[84:] == b"\xab" * (128 - 84)
    assert data == expected_buffer(state, [3, 5], [8, 1], total=128, pad=0xAB)


def test_packed_total_bytes_tail_is_padding(tmp_path):
    _, data = generate_file(tmp_path, "p.bin", "--sizes", "2,3", "--total-bytes", "40",
                            "--pad-byte", "0x5a", "--seed", "42")
    assert data == expected_buffer([0, 0, 0, 0, 42, 0], [2, 3], total=40, pad=0x5A)


def test_permuted_strides(tmp_path):
    state = [0xFFFFFFFE, MASK32, MASK32, MASK32, 3, 4]  # also crosses the 128-bit wrap
    sizes, strides = [2, 3, 4], [1, 8, 2]
    lines, data = generate_file(tmp_path, "perm.bin", "--sizes", csv(sizes),
                                "--strides", csv(strides), "--state", words(state))
    assert lines == [state_line(advanced(state, 24))]
    assert len(data) == 24 * 4
    assert data == expected_buffer(state, sizes, strides)
    # Spot-check one element by hand: (1, 2, 3) is logical 1*12 + 2*4 + 3 = 23,
    # stored at 1*1 + 2*8 + 3*2 = 23 as well; (0, 1, 0) is 4, stored at 8.
    assert struct.unpack_from("<I", data, 8 * 4)[0] == element(state, 4)


def test_eight_dimensions(tmp_path):
    sizes = [2, 1, 3, 1, 2, 1, 1, 3]
    state = [9, 0, 0, 0, 1, 1]
    lines, data = generate_file(tmp_path, "r8.bin", "--sizes", csv(sizes), "--state", words(state))
    assert lines == [state_line(advanced(state, 36))]
    assert data == expected_buffer(state, sizes)


# ---------------------------------------------------------------------------
# Threads and targets never change values


BIG_SIZES = "999,1001"  # about 4 MB: enough to be cut into tasks; odd tail


def test_threads_do_not_change_values(tmp_path):
    results = [generate_file(tmp_path, "t%d.bin" % t, "--sizes", BIG_SIZES, "--seed", "77",
                             "--threads", t) for t in (1, 2, 3)]
    assert results[0] == results[1] == results[2]
    lines, data = results[0]
    state = [0, 0, 0, 0, 77, 0]
    n = 999 * 1001
    assert lines == [state_line(advanced(state, n))]
    for e in (0, 1, 5, 1000, 500000, n - 3, n - 1):
        assert struct.unpack_from("<I", data, 4 * e)[0] == element(state, e)


def test_every_supported_target_gives_identical_files(tmp_path):
    targets = supported_targets()
    assert "SCALAR" in targets
    big = {t: generate_file(tmp_path, t + ".bin", "--sizes", BIG_SIZES, "--seed", "77",
                            "--target", t) for t in targets}
    baseline = big["SCALAR"]
    for t, result in big.items():
        assert result == baseline, "%s differs from SCALAR" % t
    # A small strided tensor with padding and row lengths that are not a
    # multiple of any vector width, checked against the reference per target.
    state = [0xFFFFFFF0, MASK32, 0, 0, 0x1234, 0x5678]
    expected = expected_buffer(state, [5, 37], [40, 1], pad=0xEE)
    for t in targets:
        _, data = generate_file(tmp_path, t + "-s.bin", "--sizes", "5,37", "--strides", "40,1",
                                "--pad-byte", "0xee", "--state", words(state), "--target", t)
        assert data == expected, t


def test_target_names_ignore_case(tmp_path):
    lines = ok("generate", "--sizes", "10", "--target", "scalar")
    assert lines == [ZERO_STATE_AFTER_TEN_LINE]


# ---------------------------------------------------------------------------
# targets


def test_targets_format():
    lines = ok("targets")
    assert lines, "no targets listed"
    for line in lines:
        assert TARGET_LINE_RE.match(line), line
    assert sum(line.endswith(" active") for line in lines) == 1
    assert "SCALAR supported" in [line.replace(" active", "") for line in lines]


def test_targets_with_forced_target():
    table = target_table(env={"RANDTENSOR_TARGET": "SCALAR"})
    assert table["SCALAR"] == (True, True)
    assert sum(active for _, active in table.values()) == 1


def test_targets_with_bad_environment_lists_none_active():
    result = run("targets", env={"RANDTENSOR_TARGET": "bogus"})
    assert result.returncode == 2
    lines = result.stdout.splitlines()
    assert lines and all(TARGET_LINE_RE.match(line) for line in lines)
    assert not any(line.endswith(" active") for line in lines)
    assert result.stderr.count("\n") == 1 and "RANDTENSOR_TARGET" in result.stderr


def test_unknown_target_is_an_error(tmp_path):
    out = tmp_path / "x.bin"
    result = run("generate", "--sizes", "10", "--target", "NEON9000", "--out", out)
    assert_usage_error(result, r"--target|NEON9000")
    assert not out.exists()


def test_bad_environment_target_is_an_error(tmp_path):
    out = tmp_path / "x.bin"
    result = run("generate", "--sizes", "10", "--out", out, env={"RANDTENSOR_TARGET": "bogus"})
    assert_usage_error(result, r"RANDTENSOR_TARGET")
    assert not out.exists()


def test_target_option_overrides_bad_environment():
    lines = ok("generate", "--sizes", "10", "--target", "SCALAR",
               env={"RANDTENSOR_TARGET": "bogus"})
    assert lines == [ZERO_STATE_AFTER_TEN_LINE]


# ---------------------------------------------------------------------------
# Bad arguments


BAD_ARGUMENTS = [
    # (arguments after `generate`, a regex the message must match: the flag or field)
    pytest.param(["--sizes", "0"], r"Sizes\[0\]", id="zero-size"),
    pytest.param(["--sizes", "3,0,2"], r"Sizes\[1\]", id="zero-size-inner"),
    pytest.param(["--sizes", "1,1,1,1,1,1,1,1,1"], r"DimensionCount", id="nine-dims"),
    pytest.param(["--sizes", "2,3,4", "--strides", "12,1"], r"--strides.*2.*--sizes.*3",
                 id="strides-count"),
    pytest.param(["--sizes", "3,3", "--strides", "0,1"], r"Strides", id="zero-stride"),
    pytest.param(["--sizes", "3,3", "--strides", "2,1"], r"Strides", id="overlap"),
    pytest.param(["--sizes", "3,5", "--strides", "8,1", "--total-bytes", "80"],
                 r"TotalTensorSizeInBytes|--total-bytes", id="total-below-min"),
    pytest.param(["--sizes", "3,x"], r"--sizes", id="non-numeric"),
    pytest.param(["--sizes", "3,,4"], r"--sizes", id="empty-item"),
    pytest.param(["--sizes", "3,"], r"--sizes", id="trailing-comma"),
    pytest.param(["--sizes", "10abc"], r"--sizes", id="trailing-junk"),
    pytest.param(["--sizes", " 10"], r"--sizes", id="leading-space"),
    pytest.param(["--sizes", "+10"], r"--sizes", id="plus-sign"),
    pytest.param(["--sizes", "0x"], r"--sizes", id="bare-hex-prefix"),
    pytest.param(["--sizes", "-3"], r"--sizes", id="negative-size"),
    pytest.param(["--sizes", "4294967296"], r"--sizes", id="size-over-32-bits"),
    pytest.param(["--sizes", "3", "--strides", "0x100000000"], r"--strides",
                 id="stride-over-32-bits"),
    pytest.param(["--sizes", "99999999999999999999"], r"--sizes", id="size-over-64-bits"),
    pytest.param(["--sizes", "65536,65537"], r"Sizes", id="too-many-elements"),
    pytest.param(["--sizes", "4", "--seed", "-1"], r"--seed", id="negative-seed"),
    pytest.param(["--sizes", "4", "--seed", "12z"], r"--seed", id="seed-junk"),
    pytest.param(["--sizes", "4", "--seed", "18446744073709551616"], r"--seed",
                 id="seed-overflow"),
    pytest.param(["--sizes", "4", "--state", "0,0,0,0,0,0x100000000"], r"--state",
                 id="state-word-over-32-bits"),
    pytest.param(["--sizes", "4", "--state", "0,0,0,0,0"], r"--state", id="state-five-words"),
    pytest.param(["--sizes", "4", "--state", "0,0,0,0,0,0,0"], r"--state",
                 id="state-seven-words"),
    pytest.param(["--sizes", "4", "--state", "0,0,0,0,0,0", "--seed", "1"], r"--state.*--seed",
                 id="state-and-seed"),
    pytest.param(["--sizes", "4", "--bogus", "1"], r"--bogus", id="unknown-option"),
    pytest.param(["--sizes", "4", "-x"], r"-x", id="unknown-short-option"),
    pytest.param(["--sizes", "4", "stray"], r"stray", id="stray-word"),
    pytest.param(["--sizes"], r"--sizes", id="missing-value-at-end"),
    pytest.param(["--sizes", "--seed", "1"], r"--sizes", id="missing-value-before-option"),
    pytest.param(["--sizes=", "--seed", "1"], r"--sizes", id="empty-value"),
    pytest.param(["--seed", "1"], r"--sizes", id="no-sizes"),
    pytest.param(["--sizes", "4", "--sizes", "5"], r"--sizes", id="duplicate"),
    pytest.param(["--sizes", "4", "--pad-byte", "256"], r"--pad-byte", id="pad-byte-256"),
    pytest.param(["--sizes", "4", "--repeat", "0"], r"--repeat", id="repeat-zero"),
    pytest.param(["--sizes", "4", "--threads", "0"], r"--threads", id="threads-zero"),
    pytest.param(["--sizes", "4", "--threads", "0x100000000"], r"--threads",
                 id="threads-over-32-bits"),
    pytest.param(["--sizes", "4", "--total-bytes", "lots"], r"--total-bytes",
                 id="total-bytes-junk"),
    pytest.param(["--sizes", "4", "--format", "foo"], r"--format: 'foo'", id="format-foo"),
    pytest.param(["--sizes", "4", "--format", "NPY"], r"--format: 'NPY'", id="format-case"),
    pytest.param(["--sizes", "4", "--format="], r"--format", id="format-empty"),
]


@pytest.mark.parametrize("arguments,pattern", BAD_ARGUMENTS)
def test_bad_arguments(tmp_path, arguments, pattern):
    out = tmp_path / "out.bin"
    result = run("generate", *arguments, "--out", out)
    assert_usage_error(result, pattern)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_missing_out_value_creates_nothing(tmp_path):
    result = subprocess.run([cli_path(), "generate", "--sizes", "4", "--out"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert_usage_error(result, r"--out")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["frobnicate"], ["targets", "extra"], ["--bogus"]])
def test_bad_commands(args):
    assert_usage_error(run(*args))


def test_invalid_descriptor_leaves_existing_file_alone(tmp_path):
    out = tmp_path / "keep.bin"
    out.write_bytes(b"precious")
    assert_usage_error(run("generate", "--sizes", "3,3", "--strides", "2,1", "--out", out),
                       r"Strides")
    assert out.read_bytes() == b"precious"


# ---------------------------------------------------------------------------
# --format npy: the logical tensor as a NumPy file

NPY_LAYOUTS = [
    # (sizes, strides or None, --total-bytes or None)
    pytest.param([7], None, None, id="one-dim"),
    pytest.param([3, 5], None, None, id="packed"),
    pytest.param([3, 5], [8, 1], None, id="strided"),
    pytest.param([3, 5], [8, 1], 200, id="strided-total-bytes"),
    pytest.param([2, 3, 4], [1, 8, 2], None, id="permuted"),
    pytest.param([4, 3], [1, 5], None, id="column-major-padded"),
    pytest.param([2, 1, 3, 1, 2, 1, 1, 3], None, None, id="eight-dims"),
]


@pytest.mark.parametrize("sizes,strides,total", NPY_LAYOUTS)
def test_npy_holds_the_logical_tensor(tmp_path, sizes, strides, total):
    numpy = pytest.importorskip("numpy")
    state = [0xFFFFFFFE, MASK32, MASK32, MASK32, 3, 4]  # also crosses the 128-bit wrap
    n = len(offsets(sizes, packed_strides(sizes)))
    layout = (["--strides", csv(strides)] if strides else []) + \
        (["--total-bytes", total] if total else [])
    lines, _ = generate_file(tmp_path, "t.npy", "--sizes", csv(sizes), *layout,
                             "--pad-byte", "0xab", "--format", "npy", "--state", words(state))
    assert lines == [state_line(advanced(state, n))]
    array = numpy.load(tmp_path / "t.npy")
    assert array.dtype == numpy.dtype("<u4") and array.shape == tuple(sizes)
    assert array.flags.c_contiguous
    assert array.reshape(-1).tolist() == elements(state, n)


def test_npy_header_layout(tmp_path):
    """Version 1.0, a header padded to a multiple of 64 bytes, then exactly the
    elements: no padding bytes, whatever the strides."""
    _, data = generate_file(tmp_path, "h.npy", "--sizes", "3,5", "--strides", "8,1",
                            "--format", "npy", "--seed", "9")
    assert data[:8] == b"\x93NUMPY\x01\x00"
    header_length = struct.unpack_from("<H", data, 8)[0]
    end = 10 + header_length
    assert end % 64 == 0
    header = data[10:end].decode("latin-1")
    assert header.endswith("\n") and header.rstrip(" \n").endswith("}")
    assert header.startswith("{'descr': '<u4', 'fortran_order': False, 'shape': (3, 5), }")
    assert data[end:] == struct.pack("<15I", *elements([0, 0, 0, 0, 9, 0], 15))


def test_raw_format_is_the_default(tmp_path):
    args = ("--sizes", "3,5", "--strides", "8,1", "--pad-byte", "7", "--seed", "3")
    assert generate_file(tmp_path, "a.bin", *args, "--format", "raw") == \
        generate_file(tmp_path, "b.bin", *args)


def test_format_needs_out(tmp_path):
    result = subprocess.run([cli_path(), "generate", "--sizes", "4", "--format", "npy"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert_usage_error(result, r"--format npy needs --out")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------
# Write failures


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_write_failure_exits_1_and_keeps_devices():
    result = run("generate", "--sizes", "100000", "--out", "/dev/full")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "/dev/full" in result.stderr
    # The tool removes partial *files*; a device must survive.
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.parametrize("file_format", ["raw", "npy"])
def test_partial_file_is_removed(tmp_path, file_format):
    def small_file_limit():
        # Ignore SIGXFSZ so the write fails with EFBIG instead of killing the tool.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    out = tmp_path / "partial.bin"
    result = run("generate", "--sizes", "100000", "--out", out, "--format", file_format,
                 preexec_fn=small_file_limit)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "partial.bin" in result.stderr
    assert not out.exists()


def test_unopenable_output_exits_1(tmp_path):
    result = run("generate", "--sizes", "4", "--out", tmp_path / "no" / "such" / "dir.bin")
    assert result.returncode == 1
    assert result.stdout == "" and result.stderr.count("\n") == 1


def test_unallocatable_buffer_exits_1(tmp_path):
    out = tmp_path / "huge.bin"
    result = run("generate", "--sizes", "4", "--total-bytes", "0xffffffffffffff00", "--out", out)
    assert result.returncode == 1, result.stderr
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert not out.exists()


# ---------------------------------------------------------------------------
# An interrupted run leaves nothing behind: --out is written into an unnamed
# temporary file (O_TMPFILE) that gets a name only once complete, or, where
# the file system has none, into the named ".FILE.randtensor-XXXXXX".


def unnamed_temporaries_work(directory):
    """Whether `directory` takes O_TMPFILE and /proc/self/fd is there (the
    tool names such a file through it); else the tool uses a named one."""
    if not hasattr(os, "O_TMPFILE") or not os.path.isdir("/proc/self/fd"):
        return False
    try:
        os.close(os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o600))
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return False
        raise
    return True


def file_being_written(pid, directory):
    """(name as /proc shows it, size) of a file in `directory` that process
    `pid` has open for writing, or None. An unnamed one reads '/dir/#INODE
    (deleted)'."""
    fds = "/proc/%d/fd" % pid
    try:
        for fd in os.listdir(fds):
            try:
                name = os.readlink(os.path.join(fds, fd))
                if os.path.dirname(name) == directory:
                    with open("/proc/%d/fdinfo/%s" % (pid, fd)) as info:
                        flags = int(re.search(r"^flags:\s*(\d+)", info.read(), re.M).group(1), 8)
                    if flags & os.O_ACCMODE != os.O_RDONLY:
                        return os.path.basename(name), os.stat(os.path.join(fds, fd)).st_size
            except OSError:
                continue  # closed meanwhile
    except OSError:
        pass  # the process is gone (or a zombie)
    return None


# 1.6 GB of .npy (4e8 uint32), the size of the run: far more than is
# written before the signal, so the tool is killed while writing. Its files
# get at most 512 MiB (RLIMIT_FSIZE) should the signal come late: the run
# then fails on its own and the test says so.
BIG_NPY = ["generate", "--sizes", "20000,20000", "--format", "npy", "--quiet"]


def interrupt_a_big_write(tmp_path, signal_number, env=None):
    """Starts BIG_NPY over an older FILE, sends `signal_number` once the tool
    has written 1 MiB; returns (FILE, the name the tool was writing through)."""
    def limits():
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        cap = 512 << 20 if hard == resource.RLIM_INFINITY else min(hard, 512 << 20)
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, hard))

    out = tmp_path / "big.npy"
    out.write_bytes(b"older contents")
    directory = os.path.realpath(tmp_path)  # as /proc shows it
    full_env = {k: v for k, v in os.environ.items() if k != "RANDTENSOR_TARGET"}
    full_env.update(env or {})
    process = subprocess.Popen([cli_path(), *BIG_NPY, "--out", str(out)], env=full_env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               preexec_fn=limits)
    try:
        deadline = time.monotonic() + 8
        while True:
            writing = file_being_written(process.pid, directory)
            if writing is not None and writing[1] >= 1 << 20:
                break
            if process.poll() is not None:
                pytest.fail("the tool ended (status %d) before it was interrupted: %s" %
                            (process.returncode, process.stderr.read().decode()))
            if time.monotonic() > deadline:
                pytest.fail("the tool wrote no 1 MiB of %s within 8 s" % out)
            time.sleep(0.002)
        process.send_signal(signal_number)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == -signal_number, stderr.decode()
    return out, writing[0]


@pytest.mark.parametrize("signal_number", [signal.SIGKILL, signal.SIGTERM],
                         ids=["SIGKILL", "SIGTERM"])
def test_an_interrupted_write_leaves_nothing_behind(tmp_path, signal_number):
    """kill -9 in the middle of a 1.6 GB --format npy write: the older FILE
    stays as it was and no hidden temporary file is left beside it."""
    if not unnamed_temporaries_work(tmp_path):
        pytest.skip("no O_TMPFILE on this file system (or no /proc): the tool writes a named "
                    "temporary file, which SIGKILL may leave behind")
    out, written_through = interrupt_a_big_write(tmp_path, signal_number)
    assert written_through.endswith(" (deleted)"), written_through  # unnamed while written
    assert [p.name for p in tmp_path.iterdir()] == ["big.npy"]
    assert out.read_bytes() == b"older contents"


# An LD_PRELOAD library that refuses O_TMPFILE as a file system without it
# does (EOPNOTSUPP): the tool must fall back to a named temporary file.
NO_TMPFILE_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#define SHIM(name, ...)                                                      \
  int name(__VA_ARGS__, int flags, ...) {                                   \
    mode_t mode = 0;                                                         \
    if (flags & (O_CREAT | O_TMPFILE)) {                                     \
      va_list ap;                                                            \
      va_start(ap, flags);                                                   \
      mode = va_arg(ap, mode_t);                                             \
      va_end(ap);                                                            \
    }                                                                        \
    if ((flags & O_TMPFILE) == O_TMPFILE) {                                  \
      errno = EOPNOTSUPP;                                                    \
      return -1;                                                             \
    }                                                                        \
    return CALL_##name;                                                      \
  }
#define REAL(name, ...) ((int (*)())dlsym(RTLD_NEXT, #name))(__VA_ARGS__)
#define CALL_open REAL(open, path, flags, mode)
#define CALL_open64 REAL(open64, path, flags, mode)
#define CALL_openat REAL(openat, dir, path, flags, mode)
#define CALL_openat64 REAL(openat64, dir, path, flags, mode)
SHIM(open, const char* path)
SHIM(open64, const char* path)
SHIM(openat, int dir, const char* path)
SHIM(openat64, int dir, const char* path)
"""


@pytest.fixture(scope="module")
def no_tmpfile_env(tmp_path_factory):
    """The environment that makes the tool's O_TMPFILE fail with EOPNOTSUPP."""
    if os.environ.get("RANDTENSOR_UNDER_SANITIZER"):
        pytest.skip("a sanitizer's runtime must come first in LD_PRELOAD")
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler to build the LD_PRELOAD library that refuses O_TMPFILE")
    directory = tmp_path_factory.mktemp("no_tmpfile")
    (directory / "shim.c").write_text(NO_TMPFILE_SHIM)
    library = directory / "no_tmpfile.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(library),
                    str(directory / "shim.c"), "-ldl"], check=True, timeout=60)
    return {"LD_PRELOAD": str(library)}


def test_without_o_tmpfile_a_named_temporary_replaces_the_file(tmp_path, no_tmpfile_env):
    out = tmp_path / "keep.npy"
    out.write_bytes(b"old")
    out.chmod(0o640)
    expected = generate_file(tmp_path, "plain.npy", "--sizes", "3,5", "--format", "npy",
                             "--seed", "7")
    assert generate_file(tmp_path, "keep.npy", "--sizes", "3,5", "--format", "npy",
                         "--seed", "7", env=no_tmpfile_env) == expected
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.npy", "plain.npy"]


def test_without_o_tmpfile_sigterm_removes_the_named_temporary(tmp_path, no_tmpfile_env):
    out, written_through = interrupt_a_big_write(tmp_path, signal.SIGTERM, env=no_tmpfile_env)
    assert re.fullmatch(r"\.big\.npy\.randtensor-\w{6}", written_through), written_through
    assert [p.name for p in tmp_path.iterdir()] == ["big.npy"]
    assert out.read_bytes() == b"older contents"


# ---------------------------------------------------------------------------
# Timing, help, version


def test_repeat_prints_gbps_and_state_after_one_call(tmp_path):
    state = [100, 0, 0, 0, 1, 2]
    lines, data = generate_file(tmp_path, "r.bin", "--sizes", "1000", "--repeat", "3",
                                "--state", words(state))
    assert len(lines) == 3
    assert lines[0] == state_line(advanced(state, 1000))  # one call, not four
    gbps = GBPS_RE.match(lines[1])
    assert gbps and float(gbps.group(1)) > 0, lines[1]
    gelems = re.match(r"^Gelem/s: (\S+)$", lines[2])
    assert gelems, lines[2]
    # uint32: 4 bytes per element (both printed with 4 significant digits)
    assert abs(float(gbps.group(1)) / float(gelems.group(1)) - 4) < 0.01
    assert data == expected_buffer(state, [1000])


def test_repeat_without_out():
    lines = ok("generate", "--sizes", "7", "--repeat", "1")
    assert lines[0] == state_line([2, 0, 0, 0, 0, 0])
    assert GBPS_RE.match(lines[1])


def test_equals_form():
    assert ok("generate", "--sizes=10", "--seed=0") == [ZERO_STATE_AFTER_TEN_LINE]


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["generate", "--help"]])
def test_help(args):
    result = run(*args)
    assert result.returncode == 0 and result.stderr == ""
    assert "generate" in result.stdout and "--sizes" in result.stdout
    assert "--repeat" in result.stdout and "--format raw|npy" in result.stdout


def test_version():
    lines = ok("--version")
    assert len(lines) == 1 and re.match(r"^randtensor \d+\.\d+\.\d+", lines[0]), lines


# ---------------------------------------------------------------------------
# Distributions (--dist, --dtype): values from the independent reference model
# (tests/reference/distributions.py, checked against an H100).

import sys  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
reference = pytest.importorskip("distributions")  # needs python3-mpmath

NPY_DESCR = {"float32": "<f4", "float16": "<f2", "bfloat16": "<u2", "uint8": "|u1",
             "bool": "|b1", "int32": "<i4", "int64": "<i8", "uint32": "<u4", "float64": "<f8"}
WIDTH = {"float32": 4, "float16": 2, "bfloat16": 2, "uint8": 1, "bool": 1, "int32": 4,
         "int64": 8, "uint32": 4, "float64": 8}


def read_npy(path):
    """(descr, shape, raw little-endian element bytes) of a version 1.0 .npy file."""
    data = path.read_bytes()
    assert data[:8] == b"\x93NUMPY\x01\x00"
    length = struct.unpack_from("<H", data, 8)[0]
    header = eval(data[10:10 + length].decode("latin1"))  # a Python dict literal
    return header["descr"], header["shape"], data[10 + length:]


@pytest.mark.parametrize("dist,dtype,flags,params", [
    ("uniform", "float32", ["--low", "-3.7", "--high", "11.3"], (-3.7, 11.3)),
    ("uniform", "float16", ["--low", "-3.7", "--high", "11.3"], (-3.7, 11.3)),
    ("uniform", "bfloat16", [], (0.0, 1.0)),
    ("bernoulli", "bool", ["--p", "0.3"], (0.3,)),
    ("bernoulli", "float32", ["--p", "0.75"], (0.75,)),
    ("integers", "int32", ["--low", "-100", "--high", "1000"], (-100, 1000)),
    ("integers", "int64", ["--high", "7"], (0, 7)),
    ("geometric", "int64", ["--p", "0.2"], (0.2,)),
    ("geometric", "uint8", ["--p", "0.5"], (0.5,)),
    ("exponential", "float32", ["--lambda", "1.5"], (1.5,)),
    ("cauchy", "float64", ["--median", "0.5", "--sigma", "2"], (0.5, 2.0)),
])
def test_distribution_values_match_the_reference(tmp_path, dist, dtype, flags, params):
    state = [0x12345678, 0x9ABCDEF0, 0x0F1E2D3C, 0x4B5A6978, 42, 7]
    sizes, offset = [3, 7], 5
    path = tmp_path / "d.npy"
    lines = ok("generate", "--sizes", csv(sizes), "--state", words(state), "--dist", dist,
               "--dtype", dtype, "--offset", offset, *flags, "--out", path, "--format", "npy")
    want, want_state = reference.fill(state, offset, 21, dist, params, dtype)
    assert lines == [state_line(want_state)]
    descr, shape, raw = read_npy(path)
    assert descr == NPY_DESCR[dtype] and shape == tuple(sizes)
    w = WIDTH[dtype]
    got = [int.from_bytes(raw[i * w:(i + 1) * w], "little") for i in range(21)]
    if dist in ("exponential", "cauchy"):  # docs/SPEC.md 8.1: within an ulp or two
        assert all(abs(g - v) <= 2 for g, v in zip(got, want)), (got, want)
    else:
        assert got == want


def test_distribution_through_a_strided_layout_leaves_padding(tmp_path):
    path = tmp_path / "p.bin"
    lines = ok("generate", "--sizes", "2,3", "--strides", "5,1", "--dist", "uniform",
               "--dtype", "float16", "--pad-byte", "0xee", "--out", path)
    data = path.read_bytes()
    assert len(data) == 16  # the span (8 elements of 2 bytes), rounded up to 4 bytes
    want, _ = reference.fill([0] * 6, 0, 6, "uniform", (0.0, 1.0), "float16")
    got = [struct.unpack_from("<H", data, 2 * (5 * r + c))[0] for r in range(2) for c in range(3)]
    assert got == want
    assert data[6:10] == b"\xee" * 4  # the row padding (elements 3 and 4) untouched
    assert lines == [state_line(advanced([0] * 6, 6))]


@pytest.mark.parametrize("args,names", [
    (["--dist", "gaussian"], ["--dist", "gaussian"]),
    (["--dtype", "float8"], ["--dtype", "float8"]),
    (["--dist", "bernoulli", "--low", "3"], ["--low", "bernoulli"]),
    (["--dist", "uniform", "--low", "nan"], ["--low", "nan"]),
    (["--dist", "uniform", "--low", "2", "--high", "1"], ["distribution.low = 2"]),
    (["--dist", "bernoulli", "--p", "1.5"], ["distribution.p = 1.5"]),
    (["--dist", "integers"], ["--high"]),
    (["--dist", "uniform", "--dtype", "int32"], ["int32", "uniform"]),
    (["--dist", "bits", "--dtype", "float32"], ["float32", "bits"]),
    (["--dist", "exponential", "--lambda", "-1"], ["distribution.lambda = -1"]),
    (["--dist", "cauchy", "--p", "0.5"], ["--p", "cauchy"]),
    (["--dist", "geometric"], ["--p"]),
    (["--dist", "geometric", "--p", "0.05", "--dtype", "uint8"], ["distribution.p = 0.05"]),
    (["--dist", "log_normal", "--std", "0"], ["distribution.std = 0"]),
])
def test_distribution_errors_name_the_flag_and_write_nothing(tmp_path, args, names):
    out = tmp_path / "x.npy"
    result = run("generate", "--sizes", "4", *args, "--out", out, "--format", "npy")
    assert_usage_error(result)
    for name in names:
        assert name in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []
