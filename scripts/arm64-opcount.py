#!/usr/bin/env python3
"""Instructions per 16 Philox blocks of a compiled aarch64 kernel loop.

    scripts/arm64-opcount.py LIBRARY FUNCTION [VECTOR_BITS]

Disassembles FUNCTION (a substring of its demangled name, e.g.
"N_NEON::convert::ConvertRun<randtensor::N_NEON::convert::Bits, false, (randtensor::N_NEON::convert::Placing)0>") in LIBRARY
with aarch64-linux-gnu-objdump,
takes the loop (a backward branch and the instructions it jumps over) of at
least two blocks that spends the fewest instructions per 32x32->64-bit
product (the batch loop), and prints its instructions by mnemonic and per 16
blocks. VECTOR_BITS is the SVE vector length the count
is for (an SVE loop's instructions are the same at every length; the blocks
they compute grow with it); NEON is 128.

Blocks per iteration come from the products: Philox4x32-10 needs 2 per block
in each of its 10 rounds, and the kernels take round 0's first product
(kMul0 * counter) as a running sum and multiply only one word in round 1, so
17 per block (docs/kernel-speed.md counts the x86 kernels the same way).
"""
import collections
import re
import subprocess
import sys

PRODUCTS_PER_BLOCK = 17


def products(op, args, vl):
    """32x32->64-bit products one instruction computes."""
    if op in ("umull", "umull2") and ".2d" in args:
        return 2  # NEON: two 64-bit products
    if not args.startswith("z"):
        return 0
    if op in ("umullb", "umullt") or (op == "mul" and ".d" in args):
        return vl // 64  # SVE2 / SVE: one product per 64-bit lane
    if op in ("mul", "umulh") and ".s" in args:
        return vl // 64  # low and high words of 32-bit lanes: half a product each
    return 0


def main():
    lib, want = sys.argv[1], sys.argv[2]
    vl = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    nm = subprocess.run(["aarch64-linux-gnu-nm", "-C", "-S", lib], capture_output=True,
                        text=True, check=True).stdout
    found = [l.split(None, 3) for l in nm.splitlines() if want in l]
    found = [f for f in found if len(f) == 4]
    if not found:
        sys.exit(f"no function matches {want!r}")
    addr, size, _, name = found[0]
    addr, size = int(addr, 16), int(size, 16)
    dis = subprocess.run(["aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn",
                          f"--start-address={addr}", f"--stop-address={addr + size}", lib],
                         capture_output=True, text=True, check=True).stdout
    ins = []
    for line in dis.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2), m.group(3)))
    index = {a: i for i, (a, _, _) in enumerate(ins)}
    best = None
    for i, (a, op, args) in enumerate(ins):
        branch = op == "b" or op.startswith("b.") or op in ("cbz", "cbnz", "tbz", "tbnz")
        m = re.search(r"\b([0-9a-f]+) <", args)
        if not branch or not m or int(m.group(1), 16) > a or int(m.group(1), 16) not in index:
            continue
        body = ins[index[int(m.group(1), 16)]:i + 1]
        p = sum(products(o, r, vl) for _, o, r in body)
        # The loop that computes blocks most cheaply: the batch loop, not an
        # outer loop around it and the lone-vector tail (the run driver keeps
        # both in one function), nor a one-vector tail loop.
        if p >= 2 * PRODUCTS_PER_BLOCK and (best is None or len(body) / p < len(best[1]) / best[0]):
            best = (p, body)
    if best is None:
        sys.exit("no loop of two or more blocks in " + name)
    p, body = best
    blocks = p / PRODUCTS_PER_BLOCK
    ops = collections.Counter(o for _, o, _ in body)
    print(name[:160])
    print(f"loop {body[0][0]:x}-{body[-1][0]:x}: {len(body)} instructions, "
          f"{blocks:g} blocks at {vl} bits; {len(body) * 16 / blocks:.1f} per 16 blocks")
    print("  " + " ".join(f"{o} {n}" for o, n in ops.most_common()))


if __name__ == "__main__":
    main()
