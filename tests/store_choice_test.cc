// The automatic store mode's choice (src/store_choice.h) on its own, fed
// rates by hand: the policy its header states, fill by fill. The writer's
// use of it is Layouts.AutoStoresTryBothModesOnLargeOutputs (layout_test.cc).
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <memory>

#include "src/store_choice.h"

namespace {

using randtensor::detail::PageIsFresh;
using randtensor::detail::StoreChooser;
using randtensor::detail::StoreKey;

constexpr double kRegular = 12e9;  // bytes per second, made up

// Makes `fills` choices for `key`, recording `regular` or `streaming` as the
// rate of each; returns how many chose streaming.
int Choose(StoreChooser& chooser, const StoreKey& key, int fills, double regular, double streaming) {
  int streamed = 0;
  for (int i = 0; i < fills; ++i) {
    const bool s = chooser.Streaming(key);
    streamed += s;
    chooser.Record(key, s, s ? streaming : regular);
  }
  return streamed;
}

TEST(StoreChoice, TriesStreamingFirstThenRegularThenTheFaster) {
  auto chooser = std::make_unique<StoreChooser>();
  const StoreKey key;
  EXPECT_TRUE(chooser->Streaming(key));
  chooser->Record(key, true, 10e9);
  EXPECT_FALSE(chooser->Streaming(key));
  chooser->Record(key, false, kRegular);
  EXPECT_FALSE(chooser->Streaming(key));  // regular was faster
  EXPECT_FALSE(chooser->Streaming(key));
}

TEST(StoreChoice, AChoiceUntimedStaysUntried) {
  auto chooser = std::make_unique<StoreChooser>();
  const StoreKey key;
  EXPECT_TRUE(chooser->Streaming(key));
  chooser->Record(key, true, 0);  // a fill too short to time
  EXPECT_TRUE(chooser->Streaming(key));
  chooser->Record(key, true, -1);
  EXPECT_TRUE(chooser->Streaming(key));
}

// Rates within kClearGap: the worse mode again every kRetryClose fills.
TEST(StoreChoice, RetriesACloseLoserEveryRetryCloseFills) {
  auto chooser = std::make_unique<StoreChooser>();
  const StoreKey key;
  const double streaming = kRegular * 0.87;
  ASSERT_GE(0.87, StoreChooser::kClearGap);
  EXPECT_EQ(Choose(*chooser, key, 2, kRegular, streaming), 1);  // one of each
  // Fill 1 tried regular; streaming again at fills 33, 65, ...: fills 2..321
  // hold ten of them.
  static_assert(StoreChooser::kRetryClose == 32, "the count below assumes 32");
  EXPECT_EQ(Choose(*chooser, key, 320, kRegular, streaming), 10);
}

// A clearly worse mode: tried again only every kRetryClear fills.
TEST(StoreChoice, RetriesAClearLoserEveryRetryClearFills) {
  auto chooser = std::make_unique<StoreChooser>();
  const StoreKey key{16, false, false};
  const double regular = 45e9, streaming = 107e9;  // 16 threads on a Xeon
  EXPECT_EQ(Choose(*chooser, key, 2, regular, streaming), 1);
  static_assert(StoreChooser::kRetryClear == 256, "the count below assumes 256");
  // Regular again at fills 257 and 513 only.
  EXPECT_EQ(Choose(*chooser, key, 600, regular, streaming), 598);
}

// The host changes (another program takes the memory bandwidth): the
// loser's retry and the smoothed rates move the choice.
TEST(StoreChoice, FollowsAChangeOfWinner) {
  auto chooser = std::make_unique<StoreChooser>();
  const StoreKey key;
  Choose(*chooser, key, 40, kRegular, kRegular * 0.9);  // regular wins
  EXPECT_FALSE(chooser->Streaming(key));
  // Streaming now 1.05x regular, regular 0.9x of before: after a retry of
  // each, streaming leads.
  Choose(*chooser, key, 100, kRegular * 0.9, kRegular * 0.945);
  EXPECT_TRUE(chooser->Streaming(key));
}

// Thread count, fresh pages and tiles each keep a record of their own;
// thread counts from kMaxThreads on share one.
TEST(StoreChoice, KeysKeepSeparateRecords) {
  auto chooser = std::make_unique<StoreChooser>();
  const StoreKey keys[] = {{1, false, false}, {2, false, false}, {1, true, false},
                           {1, false, true},  {1, true, true},   {StoreChooser::kMaxThreads, false, false}};
  // Regular wins on every key.
  for (const StoreKey& key : keys) Choose(*chooser, key, 2, kRegular, kRegular / 2);
  for (const StoreKey& key : keys) EXPECT_FALSE(chooser->Streaming(key));
  // A key not yet seen starts over with streaming; one past kMaxThreads
  // shares kMaxThreads' record.
  EXPECT_TRUE(chooser->Streaming(StoreKey{3, false, false}));
  EXPECT_FALSE(chooser->Streaming(StoreKey{StoreChooser::kMaxThreads + 100, false, false}));
  EXPECT_FALSE(chooser->Streaming(StoreKey{0, false, false}));  // 0 threads: as 1
}

// Output sizes by factors of 4 from 128 MiB keep records of their own:
// regular stores winning on 64 MiB outputs decide nothing for 1 GiB ones.
TEST(StoreChoice, SizeClassesKeepSeparateRecords) {
  using randtensor::detail::StoreSizeClass;
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  EXPECT_EQ(StoreSizeClass(32 * kMiB), 0u);
  EXPECT_EQ(StoreSizeClass(128 * kMiB - 1), 0u);
  EXPECT_EQ(StoreSizeClass(128 * kMiB), 1u);
  EXPECT_EQ(StoreSizeClass(512 * kMiB - 1), 1u);
  EXPECT_EQ(StoreSizeClass(512 * kMiB), 2u);
  EXPECT_EQ(StoreSizeClass(1024 * kMiB), 2u);
  EXPECT_EQ(StoreSizeClass(2048 * kMiB), 3u);
  EXPECT_EQ(StoreSizeClass(~uint64_t{0}), 3u);
  auto chooser = std::make_unique<StoreChooser>();
  StoreKey small, large;
  small.size_class = StoreSizeClass(64 * kMiB);
  large.size_class = StoreSizeClass(1024 * kMiB);
  Choose(*chooser, small, 2, kRegular, kRegular / 2);
  EXPECT_FALSE(chooser->Streaming(small));
  Choose(*chooser, large, 2, kRegular, kRegular * 1.1);
  EXPECT_TRUE(chooser->Streaming(large));
  EXPECT_FALSE(chooser->Streaming(small));
  // Classes past the last share its record.
  StoreKey beyond = large;
  beyond.size_class = 3;
  EXPECT_TRUE(chooser->Streaming(beyond));  // untried: streaming first
  Choose(*chooser, beyond, 2, kRegular, kRegular / 2);
  beyond.size_class = 100;
  EXPECT_FALSE(chooser->Streaming(beyond));
}

TEST(StoreChoice, PageIsFreshUntilTouched) {
  const long page = sysconf(_SC_PAGESIZE);
  ASSERT_GT(page, 0);
  void* map = mmap(nullptr, static_cast<size_t>(page) * 4, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  char* p = static_cast<char*>(map);
  EXPECT_TRUE(PageIsFresh(p));
  EXPECT_TRUE(PageIsFresh(p + page + 17));
  p[page + 5] = 1;
  EXPECT_FALSE(PageIsFresh(p + page));
  EXPECT_FALSE(PageIsFresh(p + 2 * page - 1));
  EXPECT_TRUE(PageIsFresh(p + 2 * page));
  munmap(map, static_cast<size_t>(page) * 4);
  EXPECT_FALSE(PageIsFresh(p));  // no longer mapped: the system cannot tell
}

}  // namespace
