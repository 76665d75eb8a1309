#include "tools/mpi_output.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#if RANDTENSOR_WITH_MPI
#include <mpi.h>
#include <unistd.h>

#include <exception>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "tools/buffer.h"
#include "tools/chunks.h"
#include "tools/cli_args.h"
#include "tools/output_file.h"
#include "tools/packed_output.h"
#include "tools/progress.h"
#endif

namespace randtensor_cli {
namespace {

bool g_active = false;
int g_rank = 0;
int g_size = 1;
int g_node_size = 1;  // ranks on this node

}  // namespace

bool MpiActive() { return g_active; }
int MpiRank() { return g_rank; }
int MpiSize() { return g_size; }

unsigned MpiDefaultThreads() {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1u, hardware / static_cast<unsigned>(g_node_size));
}

#if !RANDTENSOR_WITH_MPI

MpiSession::MpiSession(int*, char***) {}
MpiSession::~MpiSession() {}
void MpiWritePacked(const PackedJob&, const std::optional<std::string>&) {}

#else

namespace {

// What launchers put in the environment of the processes they start: Open
// MPI's mpirun, Hydra (MPICH, Intel MPI) and PMIx-based launchers (srun).
bool LaunchedByMpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

std::string MpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

// Runs a rank's own step and returns its failure, if any, instead of
// throwing: a rank must never leave the others waiting in a collective call.
template <typename Step>
std::optional<CliError> Try(const Step& step) {
  try {
    step();
    return std::nullopt;
  } catch (const CliError& error) {
    return error;
  } catch (const std::bad_alloc&) {
    return CliError{kExitFailure, "out of memory"};
  } catch (const std::exception& e) {
    return CliError{kExitFailure, e.what()};
  }
}

std::optional<CliError> MpiFailure(int code, const std::string& what) {
  if (code == MPI_SUCCESS) return std::nullopt;
  return CliError{kExitFailure, what + ": " + MpiErrorText(code)};
}

// Collective: every rank calls it at the same point with its own failure,
// if any. When any rank failed, every rank throws the failure of the lowest
// failing rank (its message and status), so they all stop together.
void Agree(const std::optional<CliError>& failure) {
  const int mine = failure.has_value() ? g_rank : g_size;
  int lowest = g_size;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (lowest == g_size) return;
  int head[2] = {0, 0};  // exit status, message length
  std::string message;
  if (g_rank == lowest) {
    head[0] = failure->exit_code;
    head[1] = static_cast<int>(failure->message.size());
    message = failure->message;
  }
  MPI_Bcast(head, 2, MPI_INT, lowest, MPI_COMM_WORLD);
  message.resize(static_cast<size_t>(head[1]));
  MPI_Bcast(message.data(), head[1], MPI_CHAR, lowest, MPI_COMM_WORLD);
  throw CliError{head[0], g_size > 1 ? "rank " + std::to_string(lowest) + ": " + message : message};
}

void BroadcastString(std::string* text) {
  int length = static_cast<int>(text->size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  text->resize(static_cast<size_t>(length));
  MPI_Bcast(text->data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
}

// The temporary file: rank 0 removes it unless published; every rank
// removes it if a signal ends the job (a launcher that kills the job may
// SIGKILL the slower ranks as soon as the first one dies).
struct TemporaryGuard {
  std::string path;  // rank 0: to remove
  bool watched = false;
  ~TemporaryGuard() {
    if (!path.empty()) DiscardTemporary(path);
    if (watched) UnwatchTemporary();
  }
};

// The shared file, closed (collectively: every rank unwinds from the same
// Agree) if an error passes by.
struct FileGuard {
  MPI_File file = MPI_FILE_NULL;
  ~FileGuard() {
    if (file != MPI_FILE_NULL) MPI_File_close(&file);
  }
};

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  if (!LaunchedByMpi()) return;
  // Only the main thread calls MPI; the library's threads never do.
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &g_node_size);
  MPI_Comm_free(&node);
  g_active = true;
}

MpiSession::~MpiSession() {
  if (g_active) MPI_Finalize();
}

void MpiWritePacked(const PackedJob& job, const std::optional<std::string>& path) {
  const ChunkPlan plan(job.sizes, static_cast<uint64_t>(job.element_bytes), job.chunk_bytes);
  uint64_t first = 0, end = 0;
  plan.Slab(static_cast<uint64_t>(g_rank), static_cast<uint64_t>(g_size), &first, &end);
  // Collective writes are matched call for call: every rank makes as many as
  // the rank with the most chunks, writing nothing once its slab is done.
  uint64_t steps = 0;
  for (int r = 0; r < g_size; ++r) {
    uint64_t r_first = 0, r_end = 0;
    plan.Slab(static_cast<uint64_t>(r), static_cast<uint64_t>(g_size), &r_first, &r_end);
    steps = std::max(steps, plan.CountChunks(r_first, r_end));
  }

  // Rank 0 makes the temporary file beside PATH and tells the others its name.
  TemporaryGuard temporary;
  std::string target, temp;
  if (path.has_value()) {
    std::optional<CliError> failure;
    if (g_rank == 0) {
      failure = Try([&] {
        if (ClassifyOutput(*path, &target) != OutputKind::kReplace) {
          Fail(kExitUsage, "--out: under mpirun FILE must be a regular file or a new one, not '" +
                               *path + "'");
        }
        const int fd = CreateTemporary(target, *path, &temp);
        close(fd);
        temporary.path = temp;
      });
    }
    Agree(failure);
    BroadcastString(&temp);
    if (g_rank != 0) {
      WatchTemporary(temp);
      temporary.watched = true;
    }
  }
  FileGuard file;
  if (path.has_value()) {
    Agree(MpiFailure(
        MPI_File_open(MPI_COMM_WORLD, temp.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file.file),
        "--out: cannot open '" + *path + "' (as '" + temp + "')"));
  }
  const std::string written = path.has_value() ? "--out: writing '" + *path + "' failed" : "";
  if (path.has_value()) {
    std::optional<CliError> failure;
    if (g_rank == 0 && !job.header.empty()) {  // the .npy header
      failure = MpiFailure(MPI_File_write_at(file.file, 0, job.header.data(),
                                             static_cast<int>(job.header.size()), MPI_BYTE,
                                             MPI_STATUS_IGNORE),
                           written);
    }
    Agree(failure);
  }

  std::unique_ptr<Buffer> buffer;
  const uint64_t capacity = (plan.max_chunk_elements() * job.element_bytes + 3) / 4 * 4;
  Agree(Try([&] {
    if (end > first) buffer = std::make_unique<Buffer>(capacity);
  }));
  const uint64_t slab_bytes = (end - first) * plan.row_elements() * job.element_bytes;
  Progress progress(slab_bytes, g_rank == 0 && !job.quiet);  // rank 0's share stands for all
  uint64_t done = 0;
  char nothing = 0;  // the buffer of a rank that writes nothing
  for (uint64_t step = 0, row = first; step < steps; ++step) {
    MPI_Offset at = 0;
    int bytes = 0;
    Agree(Try([&] {
      if (row >= end) return;
      const Chunk chunk = plan.ChunkAt(row, end);
      row += chunk.rows;
      const randtensor::Status status = FillChunk(job, chunk, buffer->data(), capacity, nullptr);
      if (!status.ok()) Fail(kExitFailure, status.message());
      at = static_cast<MPI_Offset>(job.header.size() + chunk.first_element * job.element_bytes);
      bytes = static_cast<int>(chunk.elements * job.element_bytes);  // <= kMaxChunkBytes
    }));
    if (path.has_value()) {
      void* data = bytes > 0 ? static_cast<void*>(buffer->data()) : &nothing;
      Agree(MpiFailure(
          MPI_File_write_at_all(file.file, at, data, bytes, MPI_BYTE, MPI_STATUS_IGNORE),
          written));
    }
    done += static_cast<uint64_t>(bytes);
    progress.Update(done);
  }
  if (!path.has_value()) return;

  // Raw padding after the last element (fewer than 4 bytes), then the data
  // reaches the disk before rank 0 renames the file into place.
  std::optional<CliError> failure;
  if (g_rank == 0 && job.tail_bytes != 0) {
    const std::vector<char> tail(static_cast<size_t>(job.tail_bytes),
                                 static_cast<char>(job.pad_byte));
    failure = MpiFailure(
        MPI_File_write_at(file.file,
                          static_cast<MPI_Offset>(job.file_bytes() - job.tail_bytes),
                          tail.data(), static_cast<int>(tail.size()), MPI_BYTE,
                          MPI_STATUS_IGNORE),
        written);
  }
  Agree(failure);
  Agree(MpiFailure(MPI_File_sync(file.file), written));
  Agree(MpiFailure(MPI_File_close(&file.file), written));
  if (temporary.watched) {  // rank 0 renames it now: nothing left to remove
    UnwatchTemporary();
    temporary.watched = false;
  }
  failure.reset();
  if (g_rank == 0) {
    failure = Try([&] { PublishTemporary(temp, target, *path); });
    temporary.path.clear();  // published, or removed by PublishTemporary
  }
  Agree(failure);
}

#endif  // RANDTENSOR_WITH_MPI

}  // namespace randtensor_cli
