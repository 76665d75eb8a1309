"""Records, on a CUDA GPU with stock torch 2.x, what parity_parity_model.py's model and training step
draw, for python/tests/test_torch_backend_parity.py to replay on the CPU under
randtensor.torch's backend (rt.install(order="torch_cuda", gpu=...)). Needs torch and
NumPy only, not randtensor. From the repository root:

    python3 tests/reference/torch_backend/record_model.py --out tests/reference/torch_backend/recorded

(seconds; writes model_seed0.npz, model_seed20261127.npz and README.md, together about
0.2 MB). Without a GPU, --dry-run runs the same code on the CPU (stock torch's CPU
generator: offsets are recorded as -1 and the files are marked dry_run, so the parity
test refuses them in the committed directory); use it to check the script itself:

    python3 tests/reference/torch_backend/record_model.py --dry-run --out /tmp/dry
"""
import argparse
import datetime
import json
import os
import platform
import struct
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parity_model as M  # noqa: E402

SEEDS = (0, 20261127)
COMMAND = "python3 tests/reference/torch_backend/record_model.py --out tests/reference/torch_backend/recorded"


def cuda_state():
    """torch.cuda.get_rng_state() as (seed, offset): 16 bytes, uint64 LE seed, int64 LE
    offset (torch.cuda's Philox generator)."""
    s = torch.cuda.get_rng_state().numpy().tobytes()
    if len(s) != 16:
        raise RuntimeError(f"torch.cuda.get_rng_state() has {len(s)} bytes, not 16 (seed, offset)")
    return struct.unpack("<Qq", s)


def environment(dry_run):
    env = {"torch": torch.__version__, "torch_git": getattr(torch.version, "git_version", None),
           "numpy": np.__version__, "python": platform.python_version(),
           "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
           "command": COMMAND, "dry_run": dry_run}
    if dry_run:
        # Made-up geometry (an H100 SXM's) so the files have every field.
        env.update(device="cpu (dry run: stock torch CPU generator, not a GPU)",
                   sm_count=132, threads_per_sm=2048, cuda=None, capability=None)
    else:
        p = torch.cuda.get_device_properties(0)
        cap = torch.cuda.get_device_capability(0)
        tps = getattr(p, "max_threads_per_multi_processor", None)
        source = "torch.cuda.get_device_properties"
        if tps is None:
            # Older torch 2.x lacks the field: the CUDA programming guide's table
            # (maximum resident threads per SM by compute capability).
            tps = {(7, 5): 1024, (8, 6): 1536, (8, 7): 1536, (8, 9): 1536, (12, 0): 1536}.get(tuple(cap), 2048)
            source = "compute capability table (torch has no max_threads_per_multi_processor)"
        env.update(device=p.name, sm_count=p.multi_processor_count, threads_per_sm=int(tps),
                   threads_per_sm_source=source, cuda=torch.version.cuda, capability=list(cap),
                   allow_tf32_matmul=torch.backends.cuda.matmul.allow_tf32)
    return env


def record(seed, device, dry_run, env):
    states = []

    def offset():
        if dry_run:
            states.append((torch.initial_seed(), -1))
        else:
            states.append(cuda_state())
        return states[-1][1]

    t0 = time.time()
    arrays, info = M.run(seed, device, offset)
    if not dry_run:
        torch.cuda.synchronize()
    seeds = {s for s, _ in states}
    if seeds != {seed}:
        raise RuntimeError(f"generator seed {sorted(seeds)} during the run, manual_seed was {seed}")
    meta = dict(env, seed=seed, seconds=round(time.time() - t0, 3),
                rng_state_after_build=list(states[0]),
                stages=list(M.STAGES), **info)
    arrays["meta_json"] = np.array(json.dumps(meta, sort_keys=True))
    return arrays, meta


def readme(outdir, env, written):
    lines = [
        "# Recorded: parity_model.py's model and training step on a CUDA GPU",
        "",
        "Written by `record_model.py` (do not edit by hand; re-record instead). "
        "Replayed on the CPU by `python/tests/test_torch_backend_parity.py` under "
        "`randtensor.torch.installed(order=\"torch_cuda\", gpu=(sm_count, threads_per_sm))`.",
        "",
        f"- device: {env['device']}; {env['sm_count']} SMs x {env['threads_per_sm']} threads per SM "
        f"(G max = {256 * env['sm_count'] * (env['threads_per_sm'] // 256)} threads)",
        f"- torch {env['torch']} (git {env['torch_git']}), CUDA {env['cuda']}, capability {env['capability']}, "
        f"Python {env['python']}, NumPy {env['numpy']}",
        f"- recorded {env['date_utc']} UTC" + (" - DRY RUN on the CPU: not a GPU recording" if env["dry_run"] else ""),
        f"- command: `{env['command']}`",
        "",
        "## Files",
        "",
        "| file | seed | bytes | offset after build | after training step | after F.dropout |",
        "|---|---|---|---|---|---|",
    ]
    for fname, meta in written:
        o = meta["offsets"]
        lines.append(f"| `{fname}` | {meta['seed']} | {os.path.getsize(os.path.join(outdir, fname))} | "
                     f"{o['build']} | {o['backward']} | {o['fixed_dropout']} |")
    lines += [
        "",
        "Each `.npz` holds (`np.load`, no pickle needed):",
        "",
        "| key | what |",
        "|---|---|",
        "| `meta_json` | a JSON string: the environment above, `seed`, `rng_state_after_build` "
        "(`torch.cuda.get_rng_state()` as [seed, offset]), `offsets` (generator offset after each "
        "stage of `stages`), `big_weight_sha256`, `loss`, `dropout_input_strides`/`_shapes` |",
        "| `param/<name>` | every parameter as float32 (parity_model.py `INIT` says how each was initialised), "
        "except `big.weight` |",
        "| `big_weight_head` | the first 64 values of `big.weight` (Linear(1024, 512), uniform); "
        "the whole tensor is `big_weight_sha256`, the SHA-256 of its float32 bytes, row-major |",
        "| `tokens`, `targets` | `torch.randint(0, 256, (4, 16))` each, int64 |",
        "| `<d>_input_nonzero`, `<d>_keep` | for d in dropout1, dropout, dropout2 (the encoder layer's "
        "nn.Dropout, p = 0.1, in forward order): input != 0 and output != 0, bool, logical order; "
        "the keep mask is known where the input is nonzero |",
        "| `fixed_dropout_out`, `fixed_dropout_keep` | `F.dropout(torch.ones(1000), 0.3, training=True)` "
        "and its output != 0 |",
        "",
        "Attention-weight dropout is set to 0 (`self_attn.dropout = 0.0`): on CUDA it runs "
        "inside the fused scaled-dot-product-attention kernels, whose own Philox use no CPU replays.",
        "",
    ]
    with open(os.path.join(outdir, "README.md"), "w") as f:
        f.write("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Records parity_model.py's model, training step and generator "
                                 "offsets on a CUDA GPU (stock torch) for test_torch_backend_parity.py.")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorded"),
                    help="output directory (default: recorded/ next to this script)")
    ap.add_argument("--dry-run", action="store_true",
                    help="run on the CPU with stock torch (no GPU needed), to test this script")
    ap.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if not args.dry_run and not torch.cuda.is_available():
        sys.exit("record_model.py: no CUDA device (torch.cuda.is_available() is False); "
                 "use --dry-run to test the script on the CPU")
    device = "cpu" if args.dry_run else "cuda"
    if not args.dry_run:
        # The default since torch 1.12; set so the recorded loss is a float32 matmul's.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    os.makedirs(args.out, exist_ok=True)
    env = environment(args.dry_run)
    written = []
    for seed in args.seeds:
        arrays, meta = record(seed, device, args.dry_run, env)
        fname = f"model_seed{seed}.npz"
        np.savez_compressed(os.path.join(args.out, fname), **arrays)
        written.append((fname, meta))
        o = meta["offsets"]
        keep = {d: f"{int(arrays[d + '_keep'][arrays[d + '_input_nonzero']].sum())}/"
                   f"{int(arrays[d + '_input_nonzero'].sum())}" for d in M.DROPOUTS}
        print(f"seed {seed}: {env['device']} ({env['sm_count']} SMs x {env['threads_per_sm']}), "
              f"torch {env['torch']}: offsets build {o['build']} -> step {o['backward']} -> "
              f"F.dropout {o['fixed_dropout']}; big.weight sha256 {meta['big_weight_sha256'][:16]}..; "
              f"loss {meta['loss']:.6f}; kept {keep}; {meta['seconds']} s -> "
              f"{os.path.join(args.out, fname)} ({os.path.getsize(os.path.join(args.out, fname))} bytes)",
              flush=True)
    readme(args.out, env, written)
    total = sum(os.path.getsize(os.path.join(args.out, f)) for f, _ in written)
    total += os.path.getsize(os.path.join(args.out, "README.md"))
    print(f"wrote {len(written) + 1} files, {total} bytes, to {args.out}")


if __name__ == "__main__":
    main()
