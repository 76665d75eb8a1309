// Where `generate --out` writes, such that a failed or interrupted run never
// leaves a truncated FILE and never destroys an older one.
//
//   --out -          standard output (binary); nothing to rename or remove.
//   an existing file that is not a regular file (/dev/null, /dev/full, a FIFO),
//                    or /dev/stdout, /dev/stderr, /dev/fd/N, /proc/...: written
//                    in place and never removed.
//   anything else    a new temporary file beside FILE (".FILE.randtensor-XXXXXX",
//                    same directory, so the same file system), synced and
//                    renamed over FILE only when complete. A symbolic link to
//                    a regular file has its target replaced; the link stays.
//                    Any failure, SIGINT, SIGTERM or SIGHUP removes the
//                    temporary file (SIGKILL cannot be caught: a killed run
//                    may leave one behind, never a partial FILE).
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

// A temporary file beside `target` for kReplace, with the mode `target` has
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
  // Not committed (an exception passes by): removes the temporary file.
  ~OutputFile();

  void Write(const void* data, size_t size);
  // Completes the output: syncs and renames a temporary file over FILE.
  void Commit();

  bool to_stdout() const { return kind_ == OutputKind::kStdout; }

 private:
  [[noreturn]] void Abandon(int error);

  std::string path_;    // as given, for messages
  std::string target_;  // kReplace: the file renamed over
  std::string temp_;    // kReplace: the temporary file
  OutputKind kind_;
  int fd_ = -1;
  uint64_t written_ = 0;  // bytes written so far: where the next write lands
};

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_OUTPUT_FILE_H_
