"""mpi4py: every rank fills its rows of one global tensor (a region, SPEC.md
section 10) and writes them into one .npy file with collective MPI-IO. The
elements are byte for byte what one process writes, whatever the number of
ranks:

    PYTHONPATH=build/python mpirun -np 4 python3 examples/mpi/fill_mpi4py.py normal.npy 1000 300
    build/tools/randtensor generate --sizes 1000,300 --dist normal --seed 42 \\
        --format npy --out one.npy
    python3 -c "import numpy as n; assert (n.load('normal.npy') == n.load('one.npy')).all()"
"""
import io
import sys

import numpy as np
from mpi4py import MPI

import randtensor


def main():
    out, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    comm = MPI.COMM_WORLD
    rank, ranks = comm.Get_rank(), comm.Get_size()

    # This rank's slab: rows first .. end - 1 (none when there are more ranks
    # than rows), filled with exactly the values the whole global fill gives
    # them. The returned state is the whole fill's, the same on every rank.
    first, end = rows * rank // ranks, rows * (rank + 1) // ranks
    slab = np.empty((end - first, cols), dtype=np.float32)
    state = randtensor.fill(slab, seed=42, dist="normal", region=((rows, cols), (first, 0)))

    # NumPy's own .npy header, then every rank's rows at their offset.
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (rows, cols)})
    header = header.getvalue()
    fh = MPI.File.Open(comm, out, MPI.MODE_WRONLY | MPI.MODE_CREATE)
    fh.Set_size(0)  # an older, longer file: truncated
    if rank == 0:
        fh.Write_at(0, header)
    fh.Write_at_all(len(header) + first * cols * slab.itemsize, slab)
    fh.Close()
    if rank == 0:
        print("state:", " ".join("0x%08x" % w for w in state))


if __name__ == "__main__":
    main()
