// Timing for `generate --repeat` and the main job: the median time of many
// calls, with the clock's own cost kept out of small calls.
#ifndef RANDTENSOR_TOOLS_TIMING_H_
#define RANDTENSOR_TOOLS_TIMING_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

namespace randtensor_cli {

// Median wall time of `repeat` calls of `call`, in seconds.
template <typename Call>
double MedianSeconds(uint32_t repeat, const Call& call) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  // Calls are timed in batches of at least 20 us (the repeat calls split
  // evenly, at least one per batch), so that reading the clock (some 20-40
  // ns a reading here) stays out of the per-call time of small fills; the
  // median is over the batches' per-call means.
  const auto probe = Clock::now();
  call();
  const double one = std::max(since(probe), 1e-9);
  const uint32_t batch =
      static_cast<uint32_t>(std::min<double>(repeat, std::max(1.0, std::ceil(20e-6 / one))));
  std::vector<double> seconds(std::max<uint32_t>(1, repeat / batch));
  for (double& s : seconds) {
    const auto start = Clock::now();
    for (uint32_t i = 0; i < batch; ++i) call();
    s = since(start) / batch;
  }
  std::sort(seconds.begin(), seconds.end());
  const size_t mid = seconds.size() / 2;
  return seconds.size() % 2 == 1 ? seconds[mid] : (seconds[mid - 1] + seconds[mid]) / 2;
}

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_TIMING_H_
