"""randtensor on a CPU without AVX-512, simulated by valgrind.

valgrind's virtual CPU runs AVX2 at most and hides AVX-512 from CPUID, so a
process under it is what an AVX2-only machine (most desktop CPUs before 2022)
sees: the library must list AVX3 as compiled but unsupported, never execute
an instruction of it, run the widest target that is left, and write the same
values as every other target. (An EVEX instruction executed anywhere, even
while the target table is built, stops valgrind with "unrecognised
instruction", as it would raise SIGILL on such a CPU.)

Where valgrind cannot run the libraries the CLI loads at all, every test is
skipped with the reason: valgrind decodes some instructions only when the
host CPU has them (RDTSCP: on a VM whose CPUID lacks it, valgrind stops with
SIGILL in libhwy's hwy::platform::TimerResolution() while the libraries load,
before any randtensor code runs). A probe tells that case apart: the CLI's
`--version` under valgrind, and if that stops with SIGILL on an instruction
valgrind does not handle, the same libraries less randtensor's own, loaded by
the dynamic loader into `true`. Only when that stops on the same instruction
are the tests skipped; any other failure, an AVX-512 instruction in
randtensor's code among them, still fails them. They are also skipped in a
build without AVX3 kernels (scripts/test.sh on a CPU without AVX-512, unless
--all-targets, which CI passes): there is nothing for them to avoid.

    RANDTENSOR_CLI=build/tools/randtensor RANDTENSOR_ENV_TARGET_TEST=... \
    RANDTENSOR_VALGRIND=/usr/bin/valgrind python3 -m pytest tests/no_avx512_cpu_test.py
"""

import os
import re
import shutil
import signal
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


def valgrind_stop(cmd):
    """(the bytes valgrind printed, the frame it named) when valgrind stopped
    `cmd` with SIGILL on an instruction it does not handle; None when it ran,
    or failed in any other way."""
    environment = dict(os.environ)
    environment.pop("RANDTENSOR_TARGET", None)
    # Not --quiet: the "unhandled instruction bytes" line is only printed without it.
    proc = subprocess.run([VALGRIND, "--tool=none", "--num-callers=50", *cmd],
                          capture_output=True, text=True, env=environment, timeout=600)
    if proc.returncode not in (-signal.SIGILL, 128 + signal.SIGILL):
        return None
    instruction = re.search(r"unhandled instruction bytes: ((?:0x[0-9A-Fa-f]+ ?)+)", proc.stderr)
    if instruction is None:
        return None
    frame = re.search(r"Unrecognised instruction at address \S+\n==\d+==\s+at \S+: (.*)",
                      proc.stderr)
    return instruction.group(1).strip(), frame.group(1).strip() if frame else "?"


def libraries_without_randtensor(binary):
    """(dynamic loader, [the shared libraries `binary` loads, randtensor's
    own left out]) from ldd, or None where ldd cannot say."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return None
    proc = subprocess.run([ldd, binary], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return None
    loader, libraries = None, []
    for line in proc.stdout.splitlines():
        # "NAME => PATH (0x...)", or "PATH (0x...)": the loader, or a library
        # named by its path; linux-vdso.so.1 has no file.
        m = re.fullmatch(r"\s*(?:\S+ => )?(/\S+) \(0x[0-9a-f]+\)", line)
        if m is None:
            continue
        name = os.path.basename(m.group(1))
        if re.match(r"ld(64)?[-.].*so", name) and "=>" not in line:
            loader = m.group(1)
        elif not name.startswith("librandtensor"):
            libraries.append(m.group(1))
    return (loader, libraries) if loader and libraries else None


def instruction_name(instruction_bytes):
    """What valgrind stopped on, and why the host matters, where known."""
    if instruction_bytes.upper().startswith("0XF 0X1 0XF9"):
        try:
            with open("/proc/cpuinfo") as cpuinfo:
                flags = set(re.findall(r"^flags\s*:(.*)$", cpuinfo.read(), re.M)[0].split())
        except (OSError, IndexError):
            flags = None
        lacks = "this CPU's CPUID lacks it (no rdtscp in /proc/cpuinfo), and " \
            if flags is not None and "rdtscp" not in flags else ""
        return ("RDTSCP (%s; %svalgrind decodes RDTSCP only where the host CPU has it)"
                % (instruction_bytes, lacks))
    return "an instruction valgrind does not handle on this host (%s)" % instruction_bytes


@pytest.fixture(scope="module", autouse=True)
def valgrind_runs_here():
    """Skips every test where valgrind stops before any randtensor code runs
    (see the module's docstring), and where this build has no AVX3 kernels
    (scripts/test.sh compiles them only where the CPU has AVX-512, unless
    --all-targets): valgrind's CPU would then run what this machine runs
    natively; anything else is left to the tests."""
    if "AVX3" not in [name for name, _, _ in targets(valgrind=False)]:
        pytest.skip("this build has no AVX3 kernels: nothing a CPU without AVX-512 must avoid")
    stop = valgrind_stop([CLI, "--version"])
    if stop is None:
        return  # it ran (or failed otherwise: the tests say how)
    found = libraries_without_randtensor(CLI)
    true = shutil.which("true")
    if found is None or true is None:
        return
    loader, libraries = found
    alone = valgrind_stop([loader, "--preload", ":".join(libraries), true])
    if alone is None or alone[0] != stop[0]:
        return  # randtensor's own code, or no telling: the tests fail
    version = subprocess.run([VALGRIND, "--version"], capture_output=True, text=True,
                             timeout=60).stdout.strip()
    pytest.skip("%s cannot run the libraries randtensor loads on this machine: it stops with "
                "SIGILL on %s at %s while they load, before any randtensor code runs (as it "
                "does in %s with the same %d libraries, none of randtensor's, preloaded by %s)"
                % (version or "valgrind", instruction_name(stop[0]), stop[1], true,
                   len(libraries), loader))


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
