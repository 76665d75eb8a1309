// MPI: every rank fills its rows of one global tensor (a region, SPEC.md
// section 10) and writes them into one shared file with collective MPI-IO.
// The file is byte for byte what one process writes, whatever the number of
// ranks:
//
//   mpirun -np 4 build/examples/mpi/fill_mpi normal.bin 1000 300
//   build/tools/randtensor generate --sizes 1000,300 --dist normal --seed 42 --out one.bin
//   cmp normal.bin one.bin
//
// (Each rank holds its whole slab here, at most 2 GiB: MPI counts bytes in an
// int. `mpirun randtensor generate` writes in chunks, any size.)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "randtensor/fill.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc != 4) {
    if (rank == 0) std::fprintf(stderr, "usage: fill_mpi OUT ROWS COLS\n");
    MPI_Finalize();
    return 2;
  }
  const int64_t global[2] = {std::atoll(argv[2]), std::atoll(argv[3])};

  // This rank's slab: rows [first, end), near-equal contiguous ranges (empty
  // when there are more ranks than rows).
  const int64_t first = global[0] * rank / ranks, end = global[0] * (rank + 1) / ranks;
  const int64_t local[2] = {end - first, global[1]};
  const int64_t start[2] = {first, 0};
  std::vector<float> slab(static_cast<size_t>(local[0] * local[1]) + 1);  // + 1: never empty

  // The region gets exactly the values the whole global fill gives it, and
  // the output state is the whole fill's, the same on every rank.
  randtensor::Region region;
  region.rank = 2;
  region.global_sizes = global;
  region.start = start;
  randtensor::TensorDesc desc;
  desc.dtype = randtensor::DataType::kFloat32;
  desc.rank = 2;
  desc.sizes = local;
  randtensor::FillOptions options;
  options.distribution = randtensor::Distribution::Normal(0.0, 1.0);
  options.region = &region;
  randtensor::PhiloxState state = randtensor::PhiloxState::FromSeed(42);
  const randtensor::Status status =
      randtensor::Fill(desc, slab.data(), slab.size() * sizeof(float), state, &state, options);
  if (!status.ok()) {
    std::fprintf(stderr, "rank %d: %s\n", rank, status.message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  // One file, every rank's rows at their offset, written collectively.
  // (MPI-IO returns errors from file calls rather than aborting.)
  MPI_File file;
  int rc = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_WRONLY | MPI_MODE_CREATE,
                         MPI_INFO_NULL, &file);
  if (rc == MPI_SUCCESS) rc = MPI_File_set_size(file, 0);  // an older, longer file: truncated
  if (rc == MPI_SUCCESS) {
    const MPI_Offset at = static_cast<MPI_Offset>(first * global[1] * sizeof(float));
    rc = MPI_File_write_at_all(file, at, slab.data(),
                               static_cast<int>(local[0] * local[1] * sizeof(float)), MPI_BYTE,
                               MPI_STATUS_IGNORE);
  }
  if (rc == MPI_SUCCESS) rc = MPI_File_close(&file);
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "rank %d: writing %s failed (MPI error %d)\n", rank, argv[1], rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    std::printf("state:");
    for (uint32_t word : state.words) std::printf(" 0x%08x", word);
    std::printf("\n");
  }
  MPI_Finalize();
  return 0;
}
