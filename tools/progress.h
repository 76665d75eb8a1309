// Progress of a long `generate` on a terminal: bytes written, rate and time
// left, redrawn on one line of stderr a few times a second. Silent unless
// stderr is a terminal (a log or a pipe gets nothing) and --quiet is absent,
// and silent for the first second, so short runs print nothing at all.
#ifndef RANDTENSOR_TOOLS_PROGRESS_H_
#define RANDTENSOR_TOOLS_PROGRESS_H_

#include <chrono>
#include <cstdint>

namespace randtensor_cli {

class Progress {
 public:
  // `total_bytes`: what Update(total_bytes) means "done"; `wanted`: not --quiet.
  Progress(uint64_t total_bytes, bool wanted);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // Clears the line (on success or while an error unwinds, before its message).
  ~Progress();

  void Update(uint64_t done_bytes);

 private:
  using Clock = std::chrono::steady_clock;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point next_draw_;
};

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_PROGRESS_H_
