#include "reel/runtime/radix_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"
#include "reel/runtime/worker_pool.h"

namespace reel {
namespace {

std::vector<SortEntry> withSequence(const std::vector<uint64_t>& keys) {
  std::vector<SortEntry> entries;
  for (uint32_t i = 0; i < keys.size(); ++i) entries.push_back({keys[i], i, 0});
  return entries;
}

void expectMatchesStableSort(const std::vector<uint64_t>& keys) {
  std::vector<SortEntry> expected = withSequence(keys);
  std::stable_sort(expected.begin(), expected.end(),
                   [](const SortEntry& a, const SortEntry& b) { return a.key < b.key; });
  std::vector<SortEntry> actual = withSequence(keys);
  std::vector<SortEntry> scratch;
  radixSort(actual, scratch);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i].key, expected[i].key) << "at " << i;
    ASSERT_EQ(actual[i].sequence, expected[i].sequence) << "tie order broken at " << i;
  }
}

TEST(RadixSort, MatchesStableSortOnRandomKeys) {
  std::mt19937_64 rng(1);
  for (size_t n : {0u, 1u, 2u, 3u, 100u, 4097u, 100000u}) {
    std::vector<uint64_t> keys(n);
    for (auto& k : keys) k = rng();
    expectMatchesStableSort(keys);
  }
}

TEST(RadixSort, KeepsSubmissionOrderOfEqualKeys) {
  expectMatchesStableSort(std::vector<uint64_t>(5000, 0x1234'5678'9abc'def0ull));
  std::mt19937_64 rng(2);
  std::vector<uint64_t> fewDistinct(20000);
  for (auto& k : fewDistinct) k = (rng() % 7) << 40 | (rng() % 3);
  expectMatchesStableSort(fewDistinct);
}

TEST(RadixSort, SortedAndReversedInput) {
  std::vector<uint64_t> keys(30000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = i * 0x0101'0101'0101ull;
  expectMatchesStableSort(keys);
  std::reverse(keys.begin(), keys.end());
  expectMatchesStableSort(keys);
}

TEST(RadixSort, SkipsDigitPassesThatNeverVary) {
  std::vector<SortEntry> entries;
  // Only bits 24..31 vary: they all lie in the third 11-bit digit (bits 22..32).
  for (uint32_t i = 0; i < 1000; ++i)
    entries.push_back({uint64_t{(i * 7919u) % 256} << 24 | 0xAB00'0000'0000'0000ull, i, 0});
  std::vector<SortEntry> scratch;
  EXPECT_EQ(radixSort(entries, scratch), 1);
  EXPECT_TRUE(std::is_sorted(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.key < b.key; }));
  std::vector<SortEntry> same(100, SortEntry{42, 0, 0});
  EXPECT_EQ(radixSort(same, scratch), 0);
}

TEST(RadixSort, MajorDigitOrdersBeforeTheKeyAndKeepsTies) {
  std::mt19937_64 rng(3);
  for (size_t n : {2u, 17u, 5000u, 70000u}) {
    std::vector<uint64_t> keys(n);
    std::vector<uint32_t> major(n);
    for (size_t i = 0; i < n; ++i) {
      keys[i] = (rng() % 5) << (rng() % 60);  // few distinct keys: many ties
      // Passes (none among them) above bucket orders: every byte of the 24-bit major varies.
      const uint16_t pass = rng() % 4 == 0 ? PassId::kNone : static_cast<uint16_t>(rng() % 300);
      major[i] = sortPrefix(pass, static_cast<BucketOrder>(rng() % 3 * 64));
    }
    std::vector<SortEntry> expected = withSequence(keys);
    std::stable_sort(expected.begin(), expected.end(), [&](const SortEntry& a, const SortEntry& b) {
      return major[a.sequence] != major[b.sequence] ? major[a.sequence] < major[b.sequence] : a.key < b.key;
    });
    std::vector<SortEntry> actual = withSequence(keys);
    std::vector<SortEntry> scratch;
    radixSort(actual, scratch, major);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(actual[i].sequence, expected[i].sequence) << "n " << n << " at " << i;
  }
  // One major value for all: exactly the key-only sort, with no extra pass.
  std::vector<SortEntry> a = withSequence({5, 3, 9, 3});
  std::vector<SortEntry> b = a;
  std::vector<SortEntry> scratch;
  const std::vector<uint32_t> same(4, sortPrefix(7, BucketOrder::Scene));
  EXPECT_EQ(radixSort(a, scratch, same), radixSort(b, scratch));
  EXPECT_EQ(hashSortedOrder(a), hashSortedOrder(b));
}

// The parallel sort against the serial one: same entries in the same order, same order hash, for
// inputs that stress the split (ranges of one digit, empty ranges, every entry equal, one bit varying).
void expectParallelMatchesSerial(const std::vector<uint64_t>& keys, const std::vector<uint32_t>& major = {}) {
  std::vector<SortEntry> serial = withSequence(keys);
  std::vector<SortEntry> scratch;
  const int serialPasses = radixSort(serial, scratch, major);
  for (uint32_t threads : {2u, 3u, 8u}) {
    WorkerPool pool(threads);
    RadixSorter sorter(&pool, 0, 1);  // parallel from the smallest input on, every thread a range
    std::vector<SortEntry> parallel = withSequence(keys);
    EXPECT_EQ(sorter.sort(parallel, major), serialPasses) << threads << " threads";
    ASSERT_EQ(parallel.size(), serial.size());
    for (size_t i = 0; i < serial.size(); ++i) {
      ASSERT_EQ(parallel[i].key, serial[i].key) << threads << " threads, at " << i;
      ASSERT_EQ(parallel[i].sequence, serial[i].sequence) << threads << " threads, tie order at " << i;
    }
    EXPECT_EQ(hashSortedOrder(parallel), hashSortedOrder(serial));
  }
}

TEST(RadixSortParallel, MatchesTheSerialSortOnRandomKeys) {
  std::mt19937_64 rng(4);
  for (size_t n : {0u, 1u, 2u, 3u, 7u, 1000u, 65537u, 300000u}) {
    std::vector<uint64_t> keys(n);
    for (auto& k : keys) k = rng();
    expectParallelMatchesSerial(keys);
  }
}

TEST(RadixSortParallel, MatchesTheSerialSortOnAdversarialKeys) {
  std::mt19937_64 rng(5);
  const size_t n = 50000;
  expectParallelMatchesSerial(std::vector<uint64_t>(n, 42));  // one value: no pass, order untouched
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = (i < n / 2 ? 1ull : 0ull) << 63;  // one bit, halves swap
  expectParallelMatchesSerial(keys);
  for (size_t i = 0; i < n; ++i) keys[i] = n - i;  // reversed: every range writes behind the others
  expectParallelMatchesSerial(keys);
  for (size_t i = 0; i < n; ++i) keys[i] = i;  // already sorted
  expectParallelMatchesSerial(keys);
  for (auto& k : keys) k = (rng() % 3) << 40 | 0xFFFF'0000'0000'0000ull;  // many ties, few digits
  expectParallelMatchesSerial(keys);
  for (size_t i = 0; i < n; ++i) keys[i] = i % 2 ? ~0ull : 0;  // every digit varies, two values
  expectParallelMatchesSerial(keys);
  // Bucket orders: random, and one order only (the pass is skipped in both).
  std::vector<uint32_t> major(n);
  for (auto& m : major)
    m = sortPrefix(static_cast<uint16_t>(rng() % 3), static_cast<BucketOrder>(rng() % 4 * 64));
  for (auto& k : keys) k = rng() % 1000;
  expectParallelMatchesSerial(keys, major);
  expectParallelMatchesSerial(keys, std::vector<uint32_t>(n, sortPrefix(PassId::kNone, BucketOrder::Scene)));
}

// A frame above the threshold goes through the parallel sort on the renderer's workers: the observer's
// sorted entries and hash equal the serial sort of the same merged keys.
TEST(RadixSortParallel, RendererSortsALargeFrameAsTheSerialSort) {
  struct Sorted final : FrameObserver {
    std::vector<SortEntry> sorted;
    std::vector<uint64_t> mergedKeys;
    uint64_t hash = 0;
    void onFrame(const FrameView& frame) override {
      sorted.assign(frame.sorted.begin(), frame.sorted.end());
      hash = frame.sortedOrderHash;
    }
  } observer;
  NullDevice device;
  Renderer renderer(device, {.workers = 4});
  auto& bucket = renderer.createBucket<uint64_t>("many");
  auto registration = renderer.addObserver(observer);
  std::mt19937_64 rng(6);
  std::vector<uint64_t> keys(RadixSorter::kParallelMinKeys + 1000);
  for (auto& k : keys) {
    k = rng() % 5000 << 20;  // ties in plenty
    bucket.add<cmd::Draw>(k);
  }
  renderer.kick();
  renderer.flushAndWait();
  std::vector<SortEntry> expected = withSequence(keys);
  std::vector<SortEntry> scratch;
  radixSort(expected, scratch);
  ASSERT_EQ(observer.sorted.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_EQ(observer.sorted[i].sequence, expected[i].sequence) << i;
  EXPECT_EQ(observer.hash, hashSortedOrder(expected));
}

}  // namespace
}  // namespace reel
