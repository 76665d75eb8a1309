// Where `generate --out` writes, such that a failed or interrupted run never
// leaves a truncated FILE and never destroys an older one.
//
//   --out -          standard output (binary); nothing to rename or remove.
//   an existing file that is not a regular file (/dev/null, /dev/full, a FIFO),
//                    or /dev/stdout, /dev/stderr, /dev/fd/N, /proc/...: written
//                    in place and never removed.
//   anything else    a new temporary file beside FILE (same directory, so the
//                    same file system), synced and renamed over FILE only when
//                    complete. A symbolic link to a regular file has its
//                    target replaced; the link stays. The temporary file is
//                    unnamed while it is written (O_TMPFILE), so a run that
//                    ends before it is complete, even by SIGKILL, leaves
//                    nothing behind; once synced it is linked (linkat through
//                    /proc/self/fd) as ".FILE.randtensor-XXXXXX" and renamed
//                    over FILE (linkat cannot replace a file). Where the file
//                    system or kernel has no O_TMPFILE, or /proc is missing,
//                    it is named ".FILE.randtensor-XXXXXX" from the start, as
//                    under mpirun, where the other ranks open it by name.
//                    Any failure, SIGINT, SIGTERM or SIGHUP removes a named
//                    temporary file; SIGKILL cannot be caught, so a killed run
//                    may leave a named one behind (and, with O_TMPFILE, only
//                    in the instant between the link and the rename), never a
//                    partial FILE.
//
// Every failure ends the program (CliError, status 1) with one line naming FILE.
#ifndef RANDTENSOR_TOOLS_OUTPUT_FILE_H_
#define RANDTENSOR_TOOLS_OUTPUT_FILE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace randtensor_cli {

// How an --out path is written.
enum class OutputKind {
  kStdout,   // "-"
  kInPlace,  // an existing non-regular file
  kReplace,  // a temporary file renamed over the target
};

// What `path` is and, for kReplace, the file to replace (the path itself, or
// the regular file a symbolic link names).
OutputKind ClassifyOutput(const std::string& path, std::string* target);

// A named temporary file beside `target` for kReplace (OutputFile tries an
// unnamed one first; MPI's rank 0 makes this one), with the mode `target` has
// (or 0666 less the umask when it does not exist), registered for removal on
// SIGINT, SIGTERM and SIGHUP. Returns its open descriptor (read-write) and its
// path. `shown` is the --out text used in messages.
int CreateTemporary(const std::string& target, const std::string& shown, std::string* temp);

// Renames `temp` over `target` and syncs the directory; on failure removes
// `temp` and fails naming `shown`. Unregisters `temp` either way.
void PublishTemporary(const std::string& temp, const std::string& target,
                      const std::string& shown);

// Removes `temp` (a failure is ignored: there is nothing better to do) and
// unregisters it.
void DiscardTemporary(const std::string& temp);

// Registers `temp` (created by another process: rank 0 of an MPI job) for
// removal on SIGINT, SIGTERM and SIGHUP, until UnwatchTemporary(). Whichever
// process a launcher signals first removes it.
void WatchTemporary(const std::string& temp);
void UnwatchTemporary();

// Starts writing bytes [offset, offset + bytes) of `fd` to the disk without
// waiting (Linux; elsewhere nothing): a file that is fsync()ed before its
// rename anyway gets its writeback overlapped with the fill of the next
// chunk instead of all of it in the final fsync, which still reports errors.
void StartWriteback(int fd, uint64_t offset, uint64_t bytes);

// Syncs the directory that holds `path`, so a rename in it is durable.
void SyncDirectoryOf(const std::string& path);

// An --out being written by this process alone.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Not committed (an exception passes by): removes the temporary file (an
  // unnamed one goes with its descriptor).
  ~OutputFile();

  void Write(const void* data, size_t size);
  // Completes the output: syncs a temporary file, names it if it is unnamed
  // and renames it over FILE.
  void Commit();

  bool to_stdout() const { return kind_ == OutputKind::kStdout; }

 private:
  [[noreturn]] void Abandon(int error);

  std::string path_;    // as given, for messages
  std::string target_;  // kReplace: the file renamed over
  std::string temp_;    // kReplace: the temporary file; empty while it is unnamed
  OutputKind kind_;
  int fd_ = -1;
  uint64_t written_ = 0;  // bytes written so far: where the next write lands
};

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_OUTPUT_FILE_H_
