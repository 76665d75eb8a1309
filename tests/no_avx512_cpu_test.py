"""randtensor on a CPU without AVX-512, simulated by valgrind.

valgrind's virtual CPU runs AVX2 at most and hides AVX-512 from CPUID, so a
process under it is what an AVX2-only machine (most desktop CPUs before 2022)
sees: the library must list AVX3 as compiled but unsupported, never execute
an instruction of it, run the widest target that is left, and write the same
values as every other target. (An EVEX instruction executed anywhere, even
while the target table is built, stops valgrind with "unrecognised
instruction", as it would raise SIGILL on such a CPU.)

    RANDTENSOR_CLI=build/tools/randtensor RANDTENSOR_ENV_TARGET_TEST=... \
    RANDTENSOR_VALGRIND=/usr/bin/valgrind python3 -m pytest tests/no_avx512_cpu_test.py
"""

import os
import re
import subprocess

import pytest

CLI = os.environ["RANDTENSOR_CLI"]
VALGRIND = os.environ.get("RANDTENSOR_VALGRIND", "")
ENV_TARGET_TEST = os.environ.get("RANDTENSOR_ENV_TARGET_TEST")

# Every test is skipped (not the module: a run that collects nothing fails)
# where valgrind is missing, except under scripts/test.sh (and so CI), which
# sets RANDTENSOR_REQUIRE_VALGRIND; and under a sanitizer's build
# (scripts/sanitize.sh), which valgrind cannot run: the regular suite has it.
HAVE_VALGRIND = bool(VALGRIND) and not VALGRIND.endswith("-NOTFOUND")
if not HAVE_VALGRIND and os.environ.get("RANDTENSOR_REQUIRE_VALGRIND"):
    raise RuntimeError("valgrind not found (scripts/install-deps.sh test installs it)")
pytestmark = [
    pytest.mark.skipif(not HAVE_VALGRIND, reason="valgrind not found"),
    pytest.mark.skipif(bool(os.environ.get("RANDTENSOR_UNDER_SANITIZER")),
                       reason="valgrind cannot run sanitizer builds"),
]

# --tool=none: only the virtual CPU, no checking (some 5x slower, not 50x).
UNDER_VALGRIND = [VALGRIND, "--tool=none", "--quiet", "--error-exitcode=99"]


def run(args, valgrind, env=None):
    cmd = (UNDER_VALGRIND if valgrind else []) + args
    environment = dict(os.environ)
    environment.pop("RANDTENSOR_TARGET", None)
    environment.update(env or {})
    proc = subprocess.run(cmd, capture_output=True, text=True, env=environment, timeout=600)
    assert proc.returncode == 0, f"{cmd}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def targets(valgrind):
    """[(name, supported, active)] from `randtensor targets`."""
    table = []
    for line in run([CLI, "targets"], valgrind).splitlines():
        m = re.fullmatch(r"(\S+) (supported|unsupported)( active)?", line.strip())
        assert m, line
        table.append((m.group(1), m.group(2) == "supported", m.group(3) is not None))
    return table


@pytest.fixture(scope="module")
def simulated():
    """The target table valgrind's CPU gets."""
    return targets(valgrind=True)


def test_avx3_is_listed_but_not_run(simulated):
    names = [name for name, _, _ in simulated]
    assert names == [name for name, _, _ in targets(valgrind=False)]  # the same build
    if "AVX3" not in names:
        pytest.skip("this build compiled no AVX3 target")
    assert ("AVX3", False, False) in simulated
    active = [name for name, supported, is_active in simulated if is_active]
    widest_left = [name for name, supported, _ in simulated if supported][0]
    assert active == [widest_left]


CASES = [
    ["--dist", "bits", "--dtype", "uint32"],
    ["--dist", "uniform", "--dtype", "float16", "--low", "-2", "--high", "3"],
    ["--dist", "uniform", "--dtype", "float64"],
    ["--dist", "normal", "--dtype", "float32", "--std", "0.5"],
    ["--dist", "normal", "--dtype", "bfloat16"],
    ["--dist", "bernoulli", "--dtype", "uint8", "--p", "0.3"],
    ["--dist", "integers", "--dtype", "int64", "--low", "-7", "--high", "1000"],
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[1] + "-" + c[3])
def test_values_equal_a_native_run(simulated, case, tmp_path):
    """Fills under valgrind (its widest target, forced narrower ones) equal
    the native run's on every target this machine runs natively."""
    # 3 x 1000 + 5: whole vectors, ends and a row-crossing tail.
    common = ["generate", "--sizes", "3,1005", "--seed", "42", "--offset", "3", "--format", "npy"]
    natively = {}
    for name, supported, _ in targets(valgrind=False):
        if supported:
            out = tmp_path / f"native-{name}.npy"
            state = run([CLI, *common, *case, "--target", name, "--out", str(out)], False)
            natively[name] = (state, out.read_bytes())
    assert len(set(natively.values())) == 1, "targets disagree natively"
    expected = next(iter(natively.values()))
    supported = [name for name, ok, _ in simulated if ok]
    for name in [None, *supported[:2]]:  # auto, then the two widest (valgrind is slow)
        out = tmp_path / f"valgrind-{name}.npy"
        force = [] if name is None else ["--target", name]
        state = run([CLI, *common, *case, *force, "--out", str(out)], True)
        assert (state, out.read_bytes()) == expected, f"target {name or 'auto'} under valgrind"


def test_forcing_each_compiled_target():
    """RANDTENSOR_TARGET naming each compiled target: the supported ones run
    and write the right values, AVX3 fails every fill with kUnsupportedTarget
    and writes nothing (tests/env_target_test.cc)."""
    if ENV_TARGET_TEST is None:
        pytest.skip("RANDTENSOR_ENV_TARGET_TEST not set")
    run([ENV_TARGET_TEST, "--each-compiled"], valgrind=True,
        env={"VALGRIND_OPTS": "--trace-children=yes"})
