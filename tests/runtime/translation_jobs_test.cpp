// Wide translation in the core: how a frame is cut into jobs, and the state each job starts from.
// A device that takes jobs records, per job, the packets it was given and whether they were replayed state.

#include "reel/runtime/translation_jobs.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <vector>

#include "reel/runtime/renderer.h"

namespace reel {
namespace {

class JobDevice final : public Device {
 public:
  struct Call {
    CommandType type;
    bool replayed;
    uint64_t head;  // the payload's first 8 bytes
    bool operator==(const Call&) const = default;
  };
  const char* name() const override { return "jobs"; }
  DeviceInfo info() const override { return {"jobs", "", "", "null"}; }
  void beginFrame(uint64_t) override {}
  void endFrame(uint64_t) override {}
  void waitIdle() override {}
  Result<std::vector<std::byte>> readBuffer(BufferHandle) override { return fail("no contents"); }
  Result<std::vector<std::byte>> readTexture(TextureHandle, uint32_t) override { return fail("no contents"); }
#define REEL_COMMAND(Name, Semantics, ...)                          \
  void execute(const cmd::Name& p, const PacketContext&) override { \
    record(CommandType::Name, &p, sizeof p);                        \
  }
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

  uint32_t jobCapacity() const override {
    return kMaxRenderWorkers;
  }
  void beginJobs(uint32_t count) override {
    jobs.assign(count, {});
    replaying.assign(count, 0);
  }
  void startJobRange() override {
    replaying[currentJob()] = 0;
  }

  std::vector<Call> serial;             // packets translated outside jobs
  std::vector<std::vector<Call>> jobs;  // the last wide frame's, per job

 protected:
  void beginJob(uint32_t job) override {
    replaying[job] = 1;
  }

 private:
  void record(CommandType type, const void* payload, size_t size) {
    Call call{type, false, 0};
    std::memcpy(&call.head, payload, std::min<size_t>(size, sizeof call.head));
    const uint32_t job = currentJob();
    if (job == kNoJob) return serial.push_back(call);
    call.replayed = replaying[job] != 0;
    jobs[job].push_back(call);  // each job's thread writes its own vector
  }
  std::vector<uint8_t> replaying;  // per job, written by that job's thread only
};

// The job's own packets, without the replayed state.
std::vector<JobDevice::Call> own(const std::vector<JobDevice::Call>& calls) {
  std::vector<JobDevice::Call> result;
  for (const auto& c : calls) {
    if (!c.replayed) result.push_back(c);
  }
  return result;
}
std::vector<JobDevice::Call> replayed(const std::vector<JobDevice::Call>& calls) {
  std::vector<JobDevice::Call> result;
  for (const auto& c : calls) {
    if (c.replayed) result.push_back(c);
  }
  return result;
}

TEST(TranslationJobs, JobCountKeepsEveryJobAtLeastTheMinimum) {
  EXPECT_EQ(jobCountFor(0, 8), 1u);
  EXPECT_EQ(jobCountFor(2 * kMinJobKeys - 1, 8), 1u) << "two jobs would leave one under the minimum";
  EXPECT_EQ(jobCountFor(2 * kMinJobKeys, 8), 2u);
  EXPECT_EQ(jobCountFor(100 * kMinJobKeys, 8), 8u) << "never more jobs than threads";
  EXPECT_EQ(jobCountFor(100 * kMinJobKeys, 1), 1u);
}

TEST(TranslationJobs, SmallFrameStaysOnTheRenderThread) {
  JobDevice device;
  Renderer renderer(device, {.workers = 4});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  for (uint32_t i = 0; i < 2 * kMinJobKeys - 1; ++i) bucket.add<cmd::Draw>(i).vertexCount = i;
  renderer.kick();
  renderer.flushAndWait();
  EXPECT_TRUE(device.jobs.empty()) << "no job was begun";
  EXPECT_EQ(device.serial.size(), 2 * kMinJobKeys - 1);
}

TEST(TranslationJobs, JobsCoverTheSortedFrameInOrder) {
  constexpr uint32_t kKeys = 1000;
  JobDevice device;
  Renderer renderer(device, {.workers = 4});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  for (uint32_t i = 0; i < kKeys; ++i) bucket.add<cmd::Draw>(kKeys - i).vertexCount = kKeys - i;  // reversed
  renderer.kick();
  renderer.flushAndWait();
  // More jobs than threads (kJobsPerThread), as many as the minimum job size allows.
  const uint32_t jobs = jobCountFor(kKeys, 4 * kJobsPerThread);
  ASSERT_EQ(device.jobs.size(), jobs);
  ASSERT_GT(jobs, 4u);
  std::vector<JobDevice::Call> joined;
  // One packet a key: each job gets its share of the keys, give or take one segment's keys.
  const size_t segmentKeys = kKeys / (kKeys / JobPlanner::kMinSegmentKeys) + 1;
  for (uint32_t j = 0; j < jobs; ++j) {
    const auto mine = own(device.jobs[j]);
    EXPECT_NEAR(double(mine.size()), double(kKeys) / jobs, double(segmentKeys)) << "job " << j;
    joined.insert(joined.end(), mine.begin(), mine.end());
  }
  ASSERT_EQ(joined.size(), kKeys);
  for (uint32_t i = 0; i < kKeys; ++i)
    EXPECT_EQ(joined[i].head & 0xffffffffu, i + 1) << "sort order, position " << i;
  EXPECT_TRUE(device.serial.empty());
}

TEST(TranslationJobs, JobsAreBalancedByPacketsNotKeys) {
  // The first quarter of the keys carry chains of 9 packets, the rest one: cut by keys, job 0 would
  // translate 9000 of the 12000 packets.
  constexpr uint32_t kKeys = 4000, kLong = 1000, kChain = 9;
  JobDevice device;
  Renderer renderer(device, {.workers = 4});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  for (uint32_t i = 0; i < kKeys; ++i) {
    cmd::Draw* draw = &bucket.add<cmd::Draw>(i);
    for (uint32_t c = 1; i < kLong && c < kChain; ++c) draw = &bucket.append<cmd::Draw>(draw);
  }
  renderer.kick();
  renderer.flushAndWait();
  const uint32_t jobs = jobCountFor(kKeys, 4 * kJobsPerThread);
  ASSERT_EQ(device.jobs.size(), jobs);
  const double total = kLong * kChain + (kKeys - kLong);
  // Boundaries fall on segments (of 32 keys here): a job is off its share by one segment at most, while
  // a cut by keys would give each of the first jobs 9x the packets of the last ones.
  const double segment = double(JobPlanner::kMinSegmentKeys) + 1;
  size_t sum = 0;
  for (uint32_t j = 0; j < jobs; ++j) {
    const size_t packets = own(device.jobs[j]).size();
    EXPECT_NEAR(double(packets), total / jobs, segment * kChain) << "job " << j;
    sum += packets;
  }
  EXPECT_EQ(sum, size_t(total));
}

// The state a job starts from, against the single-threaded walk, on a frame whose state changes, passes
// and markers are spread over every segment (so the summaries and their combination decide it): the
// viewport, four texture slots, the open pass and the stack of open markers.
TEST(TranslationJobs, JobStateEqualsTheSerialWalkAcrossSegments) {
  struct State {
    uint64_t viewport = 0;
    std::array<uint64_t, 4> textures{};
    uint64_t pass = 0;
    std::vector<uint64_t> markers;
    bool operator==(const State&) const = default;
    void apply(const JobDevice::Call& c) {
      switch (c.type) {
        case CommandType::SetViewport:
          viewport = c.head;
          break;
        case CommandType::BindTexture:
          textures[c.head & 3] = c.head >> 32;
          break;
        case CommandType::BeginRenderPass:
          pass = c.head & 0xffffffffu;
          break;
        case CommandType::EndRenderPass:
          pass = 0;
          break;
        case CommandType::DebugMarkerBegin:
          markers.push_back(c.head);
          break;
        case CommandType::DebugMarkerEnd:
          if (!markers.empty()) markers.pop_back();
          break;
        default:
          break;
      }
    }
  };
  constexpr uint32_t kKeys = 4000;
  JobDevice device;
  Renderer renderer(device, {.workers = 4});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  std::mt19937 rng(9);
  bool open = false;
  int depth = 0;
  for (uint32_t i = 0; i < kKeys; ++i) {
    const uint32_t r = rng() % 100;
    if (r < 5) {
      bucket.add<cmd::SetViewport>(i).x = float(i);
    } else if (r < 15) {
      auto& bind = bucket.add<cmd::BindTexture>(i);
      bind.slot = rng() % 4;
      bind.texture = TextureHandle{i + 1};
    } else if (r < 18) {
      if (open) {
        bucket.add<cmd::EndRenderPass>(i);
      } else {
        bucket.add<cmd::BeginRenderPass>(i).target = RenderTargetHandle{i + 1};
      }
      open = !open;
    } else if (r < 21) {
      bucket.add<cmd::DebugMarkerBegin>(i).color[0] = float(i);
      ++depth;
    } else if (r < 24 && depth > 0) {
      bucket.add<cmd::DebugMarkerEnd>(i);
      --depth;
    } else {
      bucket.add<cmd::Draw>(i).vertexCount = i;
    }
  }
  renderer.kick();
  renderer.flushAndWait();
  ASSERT_GT(device.jobs.size(), 4u);
  State serial;  // the single-threaded walk, up to the job's first packet
  for (uint32_t j = 0; j < device.jobs.size(); ++j) {
    State job;
    for (const auto& c : replayed(device.jobs[j])) job.apply(c);
    EXPECT_TRUE(job == serial) << "job " << j << " starts from another state than the serial walk";
    for (const auto& c : own(device.jobs[j])) serial.apply(c);
  }
}

TEST(TranslationJobs, EachJobStartsFromTheStateInForceAtItsFirstKey) {
  constexpr uint32_t kDraws = 300;  // two jobs (jobCountFor: fewer than 3 x kMinJobKeys keys)
  JobDevice device;
  Renderer renderer(device, {.workers = 2});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  uint32_t key = 0;
  // State before the pass, then a closed pass, then an open one: job 1 (from about key 156 on) must see the
  // last value of each scope, the open pass and the open marker, in sort order, and nothing superseded.
  bucket.add<cmd::SetViewport>(key++).width = 1;  // overridden below
  bucket.add<cmd::BeginRenderPass>(key++).target = RenderTargetHandle{7};
  bucket.add<cmd::EndRenderPass>(key++);
  auto& texA = bucket.add<cmd::BindTexture>(key++);
  texA.slot = 1;
  texA.texture = TextureHandle{11};
  auto& tex0 = bucket.add<cmd::BindTexture>(key++);
  tex0.slot = 0;
  tex0.texture = TextureHandle{10};
  bucket.add<cmd::BeginRenderPass>(key++).target = RenderTargetHandle{8};
  bucket.add<cmd::SetViewport>(key++).width = 2;
  bucket.add<cmd::DebugMarkerBegin>(key++);
  bucket.add<cmd::DebugMarkerBegin>(key++);
  bucket.add<cmd::DebugMarkerEnd>(key++);
  const uint32_t pushed = 0xabcd;
  auto& push = bucket.add<cmd::PushConstants>(key++, sizeof pushed);
  std::memcpy(bucket.aux(push).data(), &pushed, sizeof pushed);
  // The boundary lies near the middle packet, on a segment boundary (of ~32 keys): texB, a quarter of
  // the frame later, is job 1's own.
  for (uint32_t i = 0; i < kDraws * 3 / 4; ++i) bucket.add<cmd::Draw>(key++).vertexCount = 3;
  auto& texB = bucket.add<cmd::BindTexture>(key++);
  texB.slot = 1;
  texB.texture = TextureHandle{12};
  for (uint32_t i = 0; i < kDraws / 4; ++i) bucket.add<cmd::Draw>(key++).vertexCount = 3;
  renderer.kick();
  renderer.flushAndWait();
  ASSERT_EQ(device.jobs.size(), 2u);
  EXPECT_TRUE(replayed(device.jobs[0]).empty()) << "the first job starts from nothing";
  const auto prefix = replayed(device.jobs[1]);
  using C = CommandType;
  const std::vector<C> expected = {C::BindTexture, C::BindTexture,      C::BeginRenderPass,
                                   C::SetViewport, C::DebugMarkerBegin, C::PushConstants};
  ASSERT_EQ(prefix.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(prefix[i].type, expected[i]) << "replayed packet " << i;
  EXPECT_EQ(prefix[0].head >> 32, 11u) << "slot 1: texture 11, bound before the boundary";
  EXPECT_EQ(prefix[1].head >> 32, 10u) << "slot 0";
  EXPECT_EQ(prefix[2].head & 0xffffffffu, 8u) << "the open pass, not the closed one";
  // Job 1's own packets: the rest of the frame, from its first key on.
  const auto mine = own(device.jobs[1]);
  ASSERT_FALSE(mine.empty());
  EXPECT_EQ(own(device.jobs[0]).size() + mine.size(), key) << "every key once, one packet each";
}

TEST(TranslationJobs, APassClosedBeforeTheBoundaryIsNotReplayed) {
  JobDevice device;
  Renderer renderer(device, {.workers = 2});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  uint32_t key = 0;
  bucket.add<cmd::BeginRenderPass>(key++).target = RenderTargetHandle{7};
  bucket.add<cmd::EndRenderPass>(key++);
  bucket.add<cmd::DebugMarkerBegin>(key++);
  bucket.add<cmd::DebugMarkerEnd>(key++);
  for (uint32_t i = 0; i < 4 * kMinJobKeys; ++i) bucket.add<cmd::Draw>(key++).vertexCount = 3;
  renderer.kick();
  renderer.flushAndWait();
  ASSERT_GE(device.jobs.size(), 2u);
  for (size_t j = 1; j < device.jobs.size(); ++j)
    EXPECT_TRUE(replayed(device.jobs[j]).empty()) << "no pass and no marker is open at boundary " << j;
}

}  // namespace
}  // namespace reel
