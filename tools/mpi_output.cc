#include "tools/mpi_output.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#if RANDTENSOR_WITH_MPI
#include <mpi.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <future>
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

// O_DIRECT's unit here: offsets, lengths and addresses of direct writes are
// multiples of it (the logical block size of common devices divides it).
constexpr uint64_t kPage = 4096;

// RANDTENSOR_MPI_DIRECT=0: every byte through the page cache, as before
// direct writes (for comparison, and for file systems that accept O_DIRECT
// but serve it badly).
bool DirectWritesDisabled() {
  const char* v = std::getenv("RANDTENSOR_MPI_DIRECT");
  return v != nullptr && std::strcmp(v, "0") == 0;
}

// Completes `request` without spinning: Open MPI's blocking calls poll a
// core until the others arrive, and on a node whose cores the ranks' fill
// threads and the kernel's writeback share, that core is what the slower
// rank needs. A check every 200 us costs nothing next to a chunk's write.
void WaitQuietly(MPI_Request* request) {
  for (int done = 0;;) {
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
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

// Collective: every rank calls it at the same point with its own failure,
// if any. When any rank failed, every rank throws the failure of the lowest
// failing rank (its message and status), so they all stop together.
void Agree(const std::optional<CliError>& failure) {
  const int mine = failure.has_value() ? g_rank : g_size;
  int lowest = g_size;
  MPI_Request request;
  MPI_Iallreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &request);
  WaitQuietly(&request);
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
  int fd = -1;       // rank 0: until the writing starts
  bool watched = false;
  ~TemporaryGuard() {
    if (fd >= 0) close(fd);
    if (!path.empty()) DiscardTemporary(path);
    if (watched) UnwatchTemporary();
  }
};

// This rank's descriptor of the shared file, closed if an error passes by.
struct FileGuard {
  int fd = -1;
  ~FileGuard() {
    if (fd >= 0) close(fd);
  }
};

// Whether any rank has failed, agreed on without holding the ranks in
// lockstep: each step posts a nonblocking reduction of this rank's flag and
// waits only for the one posted kWindow steps earlier, so a rank may run up
// to kWindow chunks ahead of the slowest. Every rank posts the same
// reductions in the same order, so all see a failure at the same step.
class PipelinedAgreement {
 public:
  static constexpr int kWindow = 4;
  PipelinedAgreement() = default;
  PipelinedAgreement(const PipelinedAgreement&) = delete;
  PipelinedAgreement& operator=(const PipelinedAgreement&) = delete;
  ~PipelinedAgreement() { Drain(); }

  // Posts this step's flag; true when a reduction completed now says that
  // some rank failed (then every rank gets true at this same call).
  bool Post(bool failed) {
    Slot& slot = slots_[next_ % kWindow];
    bool any = false;
    if (slot.request != MPI_REQUEST_NULL) any = Complete(&slot);
    slot.mine = failed ? 1 : 0;
    MPI_Iallreduce(&slot.mine, &slot.any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &slot.request);
    ++next_;
    return any;
  }

  // Completes every reduction still in flight (collectively).
  void Drain() {
    for (uint64_t i = 0; i < kWindow; ++i) {
      Slot& slot = slots_[(next_ + i) % kWindow];  // oldest first
      if (slot.request != MPI_REQUEST_NULL) Complete(&slot);
    }
  }

 private:
  struct Slot {
    int mine = 0;
    int any = 0;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  static bool Complete(Slot* slot) {
    WaitQuietly(&slot->request);
    return slot->any != 0;
  }
  Slot slots_[kWindow];
  uint64_t next_ = 0;
};

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  if (!LaunchedByMpi()) return;
#ifdef OPEN_MPI
  // The ranks exchange a few small messages (agreements, a file name): Open
  // MPI's default search for a fast network (pml cm and its mtls) costs
  // MPI_Init 0.2 s here for nothing. So pml ob1 unless the user chose a pml
  // or an mtl (mpirun --mca X, or OMPI_MCA_X in the environment), over btl
  // self,vader,tcp unless they chose btls: TCP reaches every node (docs/mpi.md).
  if (std::getenv("OMPI_MCA_pml") == nullptr && std::getenv("OMPI_MCA_mtl") == nullptr) {
    setenv("OMPI_MCA_pml", "ob1", 0);
  }
  setenv("OMPI_MCA_btl", "self,vader,tcp", 0);  // 0: a value already set stays
#endif
  // hwloc's GL component looks for X displays, resolving "localhost" about
  // 30 times per process: seconds each where name lookups time out (a host
  // without /etc/hosts). Topology of displays is never needed here.
  setenv("HWLOC_COMPONENTS", "-gl", 0);
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
  const uint64_t chunks = plan.CountChunks(first, end);
  // Every rank takes part in as many agreements as the rank with the most
  // chunks has steps, doing nothing once its own slab is done.
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
        temporary.fd = CreateTemporary(target, *path, &temp);
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
  // Every rank writes its own range of the file with pwrite(): each slab is
  // one contiguous range, so MPI-IO's collective buffering would only funnel
  // the bytes through aggregator ranks in lockstep, and Open MPI 4.1's ompio
  // reports a failed write (a full disk) as a success.
  FileGuard file;
  if (path.has_value()) {
    std::optional<CliError> failure;
    if (g_rank == 0) {
      file.fd = std::exchange(temporary.fd, -1);
    } else {
      file.fd = open(temp.c_str(), O_WRONLY | O_CLOEXEC);
      if (file.fd < 0) {
        failure = CliError{kExitFailure, "--out: cannot open '" + *path + "' (as '" + temp +
                                             "'): " + std::strerror(errno)};
      }
    }
    Agree(failure);
  }
  // A second descriptor with O_DIRECT for the whole 4 KiB pages inside each
  // chunk: two ranks' buffered writes into one file queue on its inode in the
  // page cache (0.5-0.7 of independent files at 8 GiB, docs/mpi.md), direct
  // ones go to the device from each rank's buffer. Where the file system
  // refuses O_DIRECT (tmpfs) or a direct write fails as unsupported, the
  // rank writes everything through the page cache, as before.
  FileGuard direct;
  if (path.has_value() && !DirectWritesDisabled()) {
    direct.fd = open(temp.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
  }
  const std::string written = path.has_value() ? "--out: writing '" + *path + "' failed" : "";
  const auto write_fd = [&](int fd, uint64_t at, const void* data, uint64_t bytes) {
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
      const ssize_t n = pwrite(fd, p, static_cast<size_t>(bytes), static_cast<off_t>(at));
      if (n < 0) {
        if (errno == EINTR) continue;
        if (fd == direct.fd && errno == EINVAL) return false;  // not for this file system
        Fail(kExitFailure, written + ": " + std::strerror(errno));
      }
      p += n;
      at += static_cast<uint64_t>(n);
      bytes -= static_cast<uint64_t>(n);
    }
    return true;
  };
  const auto write_at = [&](uint64_t at, const void* data, uint64_t bytes) {
    write_fd(file.fd, at, data, bytes);
  };
  // A chunk at file offset `at` from `data` (data = at mod kPage, see
  // ChunkShift): the partial pages at its ends through the page cache, the
  // whole pages between them direct.
  const auto write_chunk = [&](uint64_t at, const uint8_t* data, uint64_t bytes) {
    const uint64_t head = std::min(bytes, (kPage - at % kPage) % kPage);
    const uint64_t middle = (bytes - head) / kPage * kPage;
    if (direct.fd < 0 || middle == 0) return write_at(at, data, bytes);
    write_at(at, data, head);
    if (!write_fd(direct.fd, at + head, data + head, middle)) {
      close(std::exchange(direct.fd, -1));
      write_at(at + head, data + head, middle);
    }
    write_at(at + head + middle, data + head + middle, bytes - head - middle);
  };

  // Two buffers when the slab has several chunks large enough to be worth a
  // thread: a helper thread fills the next chunk while this one (the only
  // thread that calls MPI) writes the last.
  const uint64_t capacity = (plan.max_chunk_elements() * job.element_bytes + 3) / 4 * 4;
  const bool overlap = path.has_value() && chunks > 1 && capacity >= kOverlapBytes;
  std::unique_ptr<Buffer> buffers[2];
  std::optional<CliError> failure = Try([&] {
    // kPage more, page-aligned: a chunk lies at its file offset mod kPage.
    if (chunks > 0) buffers[0] = std::make_unique<Buffer>(capacity + kPage, kPage);
    if (overlap) buffers[1] = std::make_unique<Buffer>(capacity + kPage, kPage);
    if (path.has_value() && g_rank == 0) write_at(0, job.header.data(), job.header.size());
  });
  Agree(failure);
  const auto chunk_at = [&job](const Chunk& chunk) {
    return job.header.size() + chunk.first_element * job.element_bytes;
  };
  // Where in a buffer a chunk starts: its file offset's place in a page, so
  // that its whole pages are page-aligned in memory too (O_DIRECT).
  const auto chunk_data = [&](int b, const Chunk& chunk) {
    return buffers[b]->data() + chunk_at(chunk) % kPage;
  };
  const auto fill = [&job, capacity](const Chunk& chunk, uint8_t* data) {
    const randtensor::Status status = FillChunk(job, chunk, data, capacity, nullptr);
    if (!status.ok()) Fail(kExitFailure, status.message());
  };

  const uint64_t slab_bytes = (end - first) * plan.row_elements() * job.element_bytes;
  Progress progress(slab_bytes, g_rank == 0 && !job.quiet);  // rank 0's share stands for all
  uint64_t done = 0;
  PipelinedAgreement agreement;
  // Step 0 fills the first chunk; step s > 0 writes chunk s - 1 (when this
  // rank has one) while the helper fills chunk s.
  uint64_t row = first;
  Chunk current, next;
  int which = 0;  // the buffer that holds `current`
  for (uint64_t step = 0; step <= steps; ++step) {
    if (!failure.has_value()) {
      // Declared after the chunks and the buffers: an error that unwinds
      // waits for the fill in flight before they go.
      std::future<void> filling;
      failure = Try([&] {
        const bool have_current = step > 0 && current.elements > 0;
        next = Chunk{};
        if (row < end) {
          next = plan.ChunkAt(row, end);
          row += next.rows;
          uint8_t* data = chunk_data(overlap ? which ^ 1 : 0, next);
          if (overlap && have_current) {
            filling = std::async(std::launch::async, [&fill, &next, data] { fill(next, data); });
          } else if (!have_current) {
            fill(next, data);
          }
        }
        if (have_current && path.has_value()) {
          const uint64_t at = chunk_at(current);
          const uint64_t bytes = current.elements * job.element_bytes;
          write_chunk(at, chunk_data(which, current), bytes);
          // Each rank starts its own chunk's writeback now, in parallel with
          // the other ranks and the next fill: the final fsync of one shared
          // file would otherwise write every rank's pages from one process.
          StartWriteback(file.fd, at, bytes);
        }
        if (filling.valid()) filling.get();  // rethrows the fill's error
        if (have_current && next.elements > 0 && !overlap) fill(next, chunk_data(0, next));
        if (have_current) done += current.elements * job.element_bytes;
        if (overlap && next.elements > 0) which ^= 1;
        current = next;
      });
    }
    if (agreement.Post(failure.has_value())) break;  // some rank failed
    progress.Update(done);
  }
  agreement.Drain();
  Agree(failure);
  if (!path.has_value()) return;

  // Raw padding after the last element (fewer than 4 bytes), then the data
  // reaches the disk before rank 0 renames the file into place.
  failure.reset();
  if (g_rank == 0 && job.tail_bytes != 0) {
    failure = Try([&] {
      const std::vector<char> tail(static_cast<size_t>(job.tail_bytes),
                                   static_cast<char>(job.pad_byte));
      write_at(job.file_bytes() - job.tail_bytes, tail.data(), tail.size());
    });
  }
  Agree(failure);
  // Each rank syncs the file (its chunks' writeback already started, so the
  // fsyncs mostly wait for it); close() may report a write error (NFS) only
  // here.
  Agree(Try([&] {
    if (fsync(file.fd) != 0) Fail(kExitFailure, written + ": " + std::strerror(errno));
  }));
  Agree(Try([&] {
    if (close(std::exchange(file.fd, -1)) != 0) {
      Fail(kExitFailure, written + ": " + std::strerror(errno));
    }
  }));
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
