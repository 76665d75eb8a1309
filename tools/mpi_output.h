// `generate` under an MPI launcher (mpirun -np P randtensor generate ...):
// every rank fills its slab of the global tensor, chunk by chunk (each chunk
// a region, SPEC.md section 10), on a helper thread while it pwrite()s the
// last chunk into its own range of one shared file, so the file is byte for
// byte the one a single process writes. docs/mpi.md is the user's side.
//
// MPI starts only when the environment says a launcher started this process
// (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK): a plain run never touches MPI.
// In a build without MPI (RANDTENSOR_WITH_MPI undefined) nothing here starts
// and MpiActive() is false.
#ifndef RANDTENSOR_TOOLS_MPI_OUTPUT_H_
#define RANDTENSOR_TOOLS_MPI_OUTPUT_H_

#include <optional>
#include <string>

namespace randtensor_cli {

struct PackedJob;

// Starts MPI for the life of the object when launched by mpirun (or another
// launcher) and this build has MPI; MPI_Finalize at destruction.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession();
};

// Whether MPI runs (an MpiSession started it), this process's rank and the
// number of ranks (0 and 1 without MPI).
bool MpiActive();
int MpiRank();
int MpiSize();

// Threads per rank when --threads is not given: the hardware threads shared
// among the ranks on this node, at least 1.
unsigned MpiDefaultThreads();

// Fills the job's tensor across all ranks (collectively: every rank calls it
// with the same job) and, with `path`, writes it into a temporary file beside
// PATH that rank 0 renames over PATH once every rank has written its slab.
// A failure on any rank fails on every rank (CliError, status 1) with the
// message of the lowest failing rank; the temporary file is removed.
void MpiWritePacked(const PackedJob& job, const std::optional<std::string>& path);

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_MPI_OUTPUT_H_
