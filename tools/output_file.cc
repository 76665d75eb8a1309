#include "tools/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

#include "tools/cli_args.h"

namespace randtensor_cli {
namespace {

// The temporary file a signal handler must remove: a fixed buffer, since the
// handler may only make async-signal-safe calls (unlink, signal, raise).
char g_temp_path[PATH_MAX];
volatile std::sig_atomic_t g_have_temp = 0;
bool g_watching = false;  // the handlers are installed (g_have_temp may be 0)
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[sizeof(kCleanupSignals) / sizeof(kCleanupSignals[0])];

extern "C" void RemoveTemporaryAndDie(int signal_number) {
  if (g_have_temp) unlink(g_temp_path);
  // Die of the same signal, so the parent sees how the run ended.
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// Installs the handlers for `temp`; `armed` false: they remove nothing until
// Arm(), for a name that does not exist yet (it may be another file's).
void Watch(const std::string& temp, bool armed = true) {
  if (temp.size() >= sizeof(g_temp_path)) return;  // mkstemp would have refused it
  std::memcpy(g_temp_path, temp.c_str(), temp.size() + 1);
  g_have_temp = armed ? 1 : 0;
  g_watching = true;
  for (size_t i = 0; i < sizeof(kCleanupSignals) / sizeof(kCleanupSignals[0]); ++i) {
    struct sigaction action = {};
    action.sa_handler = RemoveTemporaryAndDie;
    sigemptyset(&action.sa_mask);
    sigaction(kCleanupSignals[i], &action, &g_previous[i]);
    // A signal the caller ignores (nohup's SIGHUP) stays ignored.
    if (g_previous[i].sa_handler == SIG_IGN) sigaction(kCleanupSignals[i], &g_previous[i], nullptr);
  }
}

void Arm() {
  if (g_watching) g_have_temp = 1;
}

void Unwatch() {
  if (!g_watching) return;
  for (size_t i = 0; i < sizeof(kCleanupSignals) / sizeof(kCleanupSignals[0]); ++i) {
    sigaction(kCleanupSignals[i], &g_previous[i], nullptr);
  }
  g_have_temp = 0;
  g_watching = false;
}

std::string DirectoryOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// The mode a new FILE gets: an existing file's, else what fopen would give.
mode_t ModeFor(const std::string& target) {
  struct stat st;
  if (stat(target.c_str(), &st) == 0) return st.st_mode & 07777;
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

// ".NAME.randtensor-" beside `target`: a temporary file's name less its
// six-character suffix.
std::string TemporaryPrefix(const std::string& target) {
  std::string name = std::filesystem::path(target).filename().string();
  if (name.size() > 200) name.resize(200);  // room for the prefix and suffix in NAME_MAX
  return DirectoryOf(target) + "/." + name + ".randtensor-";
}

// The name through which linkat() reaches the file open as `fd`.
std::string ProcFdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// An unnamed temporary file (O_TMPFILE) in the directory of `target`, with
// the mode `target` has (or 0666 less the umask), opened for writing: it has
// no name until NameUnnamedTemporary(), so a run that ends before then, even
// by SIGKILL, leaves nothing behind. Returns -1 where the kernel or the file
// system has no O_TMPFILE (EOPNOTSUPP, EISDIR, EINVAL), where /proc, which
// linkat() needs to name it, is missing, and on any other error: the caller
// then makes a named temporary file, which reports that error as before.
int CreateUnnamedTemporary(const std::string& target) {
#ifdef O_TMPFILE
  const int fd = open(DirectoryOf(target).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  struct stat st;
  if (stat(ProcFdPath(fd).c_str(), &st) != 0 || fchmod(fd, ModeFor(target)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
#else
  (void)target;
  return -1;
#endif
}

// Gives the unnamed temporary file `fd` a name beside `target`
// (".NAME.randtensor-XXXXXX", registered for removal on SIGINT, SIGTERM and
// SIGHUP like CreateTemporary's) and returns it: linkat() cannot replace
// FILE, so FILE is then replaced by rename() as from a named temporary file.
// On failure closes `fd` and fails naming `shown`.
std::string NameUnnamedTemporary(int fd, const std::string& target, const std::string& shown) {
  static constexpr char kLetters[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device random;
  std::uniform_int_distribution<size_t> letter(0, sizeof(kLetters) - 2);
  int error = EEXIST;
  for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
    std::string temp = TemporaryPrefix(target);
    for (int i = 0; i < 6; ++i) temp += kLetters[letter(random)];
    // The handlers are in place before the name exists, on whichever thread
    // a signal lands, and remove it only once it is this file's.
    Watch(temp, /*armed=*/false);
    if (linkat(AT_FDCWD, ProcFdPath(fd).c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      Arm();
      return temp;
    }
    error = errno;
    Unwatch();
  }
  close(fd);
  Fail(kExitFailure, "--out: cannot give the finished temporary file a name beside '" + shown +
                         "': " + std::strerror(error));
}

ssize_t WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  size_t left = size;
  while (left > 0) {
    // Linux writes at most 0x7ffff000 bytes per call; ask for no more.
    const ssize_t n = write(fd, p, left < (size_t{1} << 30) ? left : (size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(size);
}

}  // namespace

OutputKind ClassifyOutput(const std::string& path, std::string* target) {
  *target = path;
  if (path == "-") return OutputKind::kStdout;
  // /dev/stdout and friends name a file this process already has open (a
  // regular file when the shell redirected to one): never rename over it.
  for (const char* open_file : {"/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/"}) {
    if (path.compare(0, std::strlen(open_file), open_file) == 0) return OutputKind::kInPlace;
  }
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return OutputKind::kReplace;  // new (or unreachable: open says)
  if (S_ISLNK(st.st_mode)) {
    struct stat followed;
    if (stat(path.c_str(), &followed) != 0) return OutputKind::kReplace;  // dangling: replace the link
    if (!S_ISREG(followed.st_mode)) return OutputKind::kInPlace;
    char resolved[PATH_MAX];
    if (realpath(path.c_str(), resolved) != nullptr) *target = resolved;
    return OutputKind::kReplace;
  }
  return S_ISREG(st.st_mode) ? OutputKind::kReplace : OutputKind::kInPlace;
}

int CreateTemporary(const std::string& target, const std::string& shown, std::string* temp) {
  std::string pattern = TemporaryPrefix(target) + "XXXXXX";
  const int fd = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    // A missing directory reads as it did before temporary files.
    if (error == ENOENT || error == ENOTDIR) {
      Fail(kExitFailure, "--out: cannot open '" + shown + "': " + std::strerror(error));
    }
    Fail(kExitFailure, "--out: cannot create a temporary file in '" + DirectoryOf(target) +
                           "' for '" + shown + "' (FILE is replaced only when complete): " +
                           std::strerror(error));
  }
  Watch(pattern);
  if (fchmod(fd, ModeFor(target)) != 0) {
    const int error = errno;
    close(fd);
    DiscardTemporary(pattern);
    Fail(kExitFailure, "--out: cannot set the mode of a temporary file for '" + shown +
                           "': " + std::strerror(error));
  }
  *temp = pattern;
  return fd;
}

void StartWriteback(int fd, uint64_t offset, uint64_t bytes) {
#ifdef SYNC_FILE_RANGE_WRITE
  // Best effort: the final fsync() writes whatever this did not start and
  // reports any error (docs/mpi.md has the timings).
  sync_file_range(fd, static_cast<off_t>(offset), static_cast<off_t>(bytes), SYNC_FILE_RANGE_WRITE);
#else
  (void)fd, (void)offset, (void)bytes;
#endif
}

void SyncDirectoryOf(const std::string& path) {
  // Best effort: some file systems refuse to sync a directory; the data
  // itself was synced before the rename.
  const int dir = open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  fsync(dir);
  close(dir);
}

void PublishTemporary(const std::string& temp, const std::string& target,
                      const std::string& shown) {
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    DiscardTemporary(temp);
    Fail(kExitFailure, "--out: cannot rename the finished temporary file to '" + shown +
                           "': " + std::strerror(error));
  }
  Unwatch();
  SyncDirectoryOf(target);
}

void WatchTemporary(const std::string& temp) { Watch(temp); }

void UnwatchTemporary() { Unwatch(); }

void DiscardTemporary(const std::string& temp) {
  unlink(temp.c_str());
  Unwatch();
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  kind_ = ClassifyOutput(path_, &target_);
  switch (kind_) {
    case OutputKind::kStdout:
      // Binary data on a terminal helps nobody and can upset it.
      if (isatty(STDOUT_FILENO)) {
        Fail(kExitUsage, "--out -: standard output is a terminal; redirect it to a file or pipe");
      }
      fd_ = STDOUT_FILENO;
      break;
    case OutputKind::kInPlace:
      fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
      if (fd_ < 0) {
        Fail(kExitFailure, "--out: cannot open '" + path_ + "': " + std::strerror(errno));
      }
      break;
    case OutputKind::kReplace:
      // Unnamed until Commit() where the file system allows (temp_ stays
      // empty), else named from the start.
      fd_ = CreateUnnamedTemporary(target_);
      if (fd_ < 0) fd_ = CreateTemporary(target_, path_, &temp_);
      break;
  }
}

OutputFile::~OutputFile() {
  if (fd_ < 0) return;
  if (kind_ != OutputKind::kStdout) close(fd_);
  if (kind_ == OutputKind::kReplace && !temp_.empty()) DiscardTemporary(temp_);
}

void OutputFile::Write(const void* data, size_t size) {
  if (WriteAll(fd_, data, size) < 0) Abandon(errno);
  // Only a file that is synced at the end: a device or a pipe is not.
  if (kind_ == OutputKind::kReplace) StartWriteback(fd_, written_, size);
  written_ += size;
}

void OutputFile::Commit() {
  const int fd = std::exchange(fd_, -1);
  if (kind_ == OutputKind::kStdout) return;
  // The data reaches the disk before the name points at it: after a crash
  // FILE is the old file or the whole new one. close() may report a write
  // error (NFS) only here.
  if (kind_ == OutputKind::kReplace && fsync(fd) != 0) {
    fd_ = fd;
    Abandon(errno);
  }
  // An unnamed temporary file gets its name while still open (linkat()
  // reaches it through /proc/self/fd), then goes on as a named one.
  if (kind_ == OutputKind::kReplace && temp_.empty()) {
    temp_ = NameUnnamedTemporary(fd, target_, path_);
  }
  if (close(fd) != 0) {
    const int error = errno;
    if (kind_ == OutputKind::kReplace) DiscardTemporary(temp_);
    Fail(kExitFailure, "--out: writing '" + path_ + "' failed: " + std::strerror(error));
  }
  if (kind_ == OutputKind::kReplace) PublishTemporary(temp_, target_, path_);
}

void OutputFile::Abandon(int error) {
  if (kind_ != OutputKind::kStdout) close(fd_);
  fd_ = -1;
  if (kind_ == OutputKind::kReplace && !temp_.empty()) DiscardTemporary(temp_);
  Fail(kExitFailure, "--out: writing '" + (kind_ == OutputKind::kStdout ? std::string("-") : path_) +
                         "' failed: " + std::strerror(error));
}

}  // namespace randtensor_cli
