#include "tools/progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace randtensor_cli {
namespace {

constexpr std::chrono::milliseconds kQuietStart(1000);
constexpr std::chrono::milliseconds kRedraw(250);

// The quiet first second; the tests set RANDTENSOR_PROGRESS_DELAY_MS=0 to see
// progress without waiting for a run that long.
std::chrono::milliseconds QuietStart() {
  const char* text = std::getenv("RANDTENSOR_PROGRESS_DELAY_MS");
  if (text == nullptr || *text == '\0') return kQuietStart;
  char* end = nullptr;
  const long ms = std::strtol(text, &end, 10);
  return *end == '\0' && ms >= 0 ? std::chrono::milliseconds(ms) : kQuietStart;
}

// "1:05:09", "4:09", "7 s": what a person reads at a glance.
void FormatSeconds(double seconds, char* out, size_t size) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) {
    std::snprintf(out, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  } else if (s >= 60) {
    std::snprintf(out, size, "%ld:%02ld", s / 60, s % 60);
  } else {
    std::snprintf(out, size, "%ld s", s);
  }
}

}  // namespace

Progress::Progress(uint64_t total_bytes, bool wanted)
    : total_(total_bytes),
      enabled_(wanted && isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      next_draw_(start_ + QuietStart()) {}

Progress::~Progress() {
  // Carriage return, erase to the end of the line: the terminal is as it was.
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void Progress::Update(uint64_t done_bytes) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  if (now < next_draw_ || done_bytes >= total_) return;
  next_draw_ = now + kRedraw;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  if (seconds <= 0) return;
  const double rate = static_cast<double>(done_bytes) / seconds;  // bytes per second
  char left[32] = "?";
  if (rate > 0) FormatSeconds(static_cast<double>(total_ - done_bytes) / rate, left, sizeof left);
  std::fprintf(stderr, "\rrandtensor: %.2f of %.2f GB (%.0f%%), %.2f GB/s, %s left\033[K",
               static_cast<double>(done_bytes) / 1e9, static_cast<double>(total_) / 1e9,
               100.0 * static_cast<double>(done_bytes) / static_cast<double>(total_), rate / 1e9,
               left);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace randtensor_cli
