// Wide translation in the core: how a frame is cut into jobs, and the state each job starts from.
// A device that takes jobs records, per job, the packets it was given and whether they were replayed state.

#include "reel/runtime/translation_jobs.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "reel/runtime/renderer.h"
#include "reel/runtime/silent_device.h"

namespace reel {
namespace {

class JobDevice final : public SilentDevice {
 public:
  struct Call {
    CommandType type;
    bool replayed;
    uint64_t head;  // the payload's first 8 bytes
    bool operator==(const Call&) const = default;
  };
  JobDevice() : SilentDevice("jobs") {}

  void beginJobs(std::span<const QueueClass> queues) override {
    const size_t count = queues.size();
    jobQueues.assign(queues.begin(), queues.end());
    jobs.assign(count, {});
    jobThreads.assign(count, {});
    preparedInJobs.assign(count, {});
    replaying.assign(count, 0);
  }
  void startJobRange() override { replaying[currentJob()] = 0; }

  std::vector<Call> serial;                 // packets translated outside jobs
  std::vector<std::vector<Call>> jobs;      // the last wide frame's, per job
  std::vector<std::thread::id> jobThreads;  // the thread that translated each of them
  size_t threadsThatTranslated() const {
    return std::set<std::thread::id>(jobThreads.begin(), jobThreads.end()).size();
  }
  std::vector<QueueClass> jobQueues;  // the last wide frame's, per job
  // Each prepareReads on the render thread, and how many serial packets came before it.
  std::vector<std::pair<size_t, std::vector<GraphResource>>> prepared;
  // Each prepareReads in a job (but those of the state it replays), by job.
  std::vector<std::vector<std::vector<GraphResource>>> preparedInJobs;
  void prepareReads(std::span<const GraphResource> reads) override {
    const uint32_t job = currentJob();
    if (job == kNoJob) {
      prepared.emplace_back(serial.size(), std::vector<GraphResource>(reads.begin(), reads.end()));
    } else if (!replaying[job]) {
      preparedInJobs[job].emplace_back(reads.begin(), reads.end());  // the job's thread's own vector
    }
  }
  // The last planTransients.
  std::vector<TransientLife> lives;
  bool livesKnown = false;
  void planTransients(std::span<const TransientLife> given, bool known) override {
    lives.assign(given.begin(), given.end());
    livesKnown = known;
  }
  // Each preferQueue, how many serial packets came before it, and whether a job's thread called it.
  struct QueueCall {
    size_t at;
    QueueClass queue;
    bool inJob;
    bool operator==(const QueueCall&) const = default;
  };
  std::vector<QueueCall> queueCalls;
  void preferQueue(QueueClass queue) override {
    const bool inJob = currentJob() != kNoJob;
    if (inJob) {
      std::lock_guard lock(queueMutex);
      queueCalls.push_back({0, queue, true});
      return;
    }
    queueCalls.push_back({serial.size(), queue, false});
  }
  std::mutex queueMutex;
  // Each discardAtPassEnd, as calls of type kDiscard (one per attachment, `head` its handle) among the
  // packets, so that a test sees which begin it came before and whether the same job ended that pass.
  static constexpr auto kDiscard = CommandType::Count;
  void discardAtPassEnd(std::span<const GraphResource> attachments) override {
    const uint32_t job = currentJob();
    for (const GraphResource& a : attachments) {
      const Call call{kDiscard, job != kNoJob && replaying[job] != 0, a.handle};
      (job == kNoJob ? serial : jobs[job]).push_back(call);
    }
  }

 protected:
  void beginJob(uint32_t job) override {
    replaying[job] = 1;
    jobThreads[job] = std::this_thread::get_id();  // each job's thread writes its own entry
  }
  void record(CommandType type, const void* payload, size_t size) override {
    Call call{type, false, 0};
    std::memcpy(&call.head, payload, std::min<size_t>(size, sizeof call.head));
    const uint32_t job = currentJob();
    if (job == kNoJob) return serial.push_back(call);
    call.replayed = replaying[job] != 0;
    jobs[job].push_back(call);  // each job's thread writes its own vector
  }

 private:
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

// limitWorkers caps the threads of the frames processed after it, and 0 lifts the cap.
TEST(TranslationJobs, LimitWorkersCapsTheThreadsOfLaterFrames) {
  constexpr uint32_t kKeys = 32 * kMinJobKeys;
  JobDevice device;
  Renderer renderer(device, {.workers = 8});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  auto frame = [&] {
    for (uint32_t i = 0; i < kKeys; ++i) bucket.add<cmd::Draw>(i).vertexCount = 3;
    renderer.kick();
    renderer.flushAndWait();
  };
  frame();
  EXPECT_EQ(device.jobs.size(), jobCountFor(kKeys, 8 * kJobsPerThread));
  EXPECT_EQ(renderer.activeWorkers(), 8u);
  renderer.limitWorkers(2);
  EXPECT_EQ(renderer.activeWorkers(), 2u);
  frame();
  EXPECT_EQ(device.jobs.size(), jobCountFor(kKeys, 2 * kJobsPerThread));
  EXPECT_LE(device.threadsThatTranslated(), 2u);
  renderer.limitWorkers(1);
  const size_t serialBefore = device.serial.size();
  frame();
  EXPECT_EQ(device.serial.size() - serialBefore, kKeys) << "one thread: the render thread translates it all";
  renderer.limitWorkers(100);
  EXPECT_EQ(renderer.activeWorkers(), 8u) << "never more than the workers";
  renderer.limitWorkers(0);
  frame();
  EXPECT_EQ(device.jobs.size(), jobCountFor(kKeys, 8 * kJobsPerThread));
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

// ---- declared passes (declared_passes.h): begun and ended by the renderer, on one thread or in jobs ----

uint32_t low32(uint64_t head) {
  return static_cast<uint32_t>(head & 0xffffffffu);
}

std::vector<JobDevice::Call> withoutRequests(const std::vector<JobDevice::Call>& calls) {
  std::vector<JobDevice::Call> result;
  for (const auto& c : calls) {
    if (commandInfo(c.type).queue == CommandQueue::Sorted) result.push_back(c);
  }
  return result;
}

TEST(DeclaredPasses, TheRendererBeginsAndEndsEachPassAroundItsKeys) {
  JobDevice device;
  Renderer renderer(device, {.workers = 1});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  PassDesc a;
  a.target = RenderTargetHandle{7};
  a.viewport[0] = 1.0f, a.viewport[2] = 30.0f, a.viewport[3] = 40.0f;
  const PassId passA = renderer.resources().declarePass("a", a);
  const PassId passB = renderer.resources().declarePass("b: compute", PassDesc{});  // no target
  PassDesc c;
  c.target = RenderTargetHandle{8};
  c.colorLoad = LoadOp::Load;
  renderer.resources().declarePass("c: no keys", c);
  PassDesc d;
  d.target = RenderTargetHandle{9};
  const PassId passD = renderer.resources().declarePass("d", d);
  EXPECT_EQ(passA.value, 0);
  EXPECT_EQ(passD.value, 3);
  // Recorded out of order; the key alone would put the pass-less draw first.
  bucket.add<cmd::Draw>(passD, 1).vertexCount = 104;
  bucket.add<cmd::Draw>(0).vertexCount = 100;
  bucket.add<cmd::Draw>(passA, 5).vertexCount = 102;
  bucket.add<cmd::Dispatch>(passB, 2).groupsX = 103;
  bucket.add<cmd::Draw>(passA, 3).vertexCount = 101;
  renderer.kick();
  renderer.flushAndWait();
  using C = CommandType;
  const std::vector<std::pair<C, uint32_t>> expected = {
      {C::BeginRenderPass, 7}, {C::SetViewport, std::bit_cast<uint32_t>(1.0f)},
      {C::Draw, 101},          {C::Draw, 102},
      {C::EndRenderPass, 0},   {C::Dispatch, 103},     // pass b begins nothing
      {C::BeginRenderPass, 8}, {C::EndRenderPass, 0},  // pass c: no key names it, it still runs (a load)
      {C::BeginRenderPass, 9}, {C::Draw, 104},
      {C::EndRenderPass, 0},   {C::Draw, 100},  // no pass: after every declared one
  };
  const auto calls = withoutRequests(device.serial);
  ASSERT_EQ(calls.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(calls[i].type, expected[i].first) << "call " << i;
    if (expected[i].second != 0) {
      EXPECT_EQ(low32(calls[i].head), expected[i].second) << "call " << i;
    }
  }
  EXPECT_TRUE(device.takeErrors().empty());

  // Ids restart every frame; a key naming a pass the frame did not declare is reported and runs after.
  device.serial.clear();
  const PassId again = renderer.resources().declarePass("a again", a);
  EXPECT_EQ(again.value, 0);
  bucket.add<cmd::Draw>(PassId{5}, 0).vertexCount = 200;
  bucket.add<cmd::Draw>(again, 9).vertexCount = 201;
  renderer.kick();
  renderer.flushAndWait();
  const auto second = withoutRequests(device.serial);
  ASSERT_EQ(second.size(), 5u);
  EXPECT_EQ(second[0].type, C::BeginRenderPass);
  EXPECT_EQ(low32(second[2].head), 201u);
  EXPECT_EQ(second[3].type, C::EndRenderPass);
  EXPECT_EQ(low32(second[4].head), 200u);
  const auto errors = device.takeErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("1 keys name a pass the frame did not declare"), std::string::npos) << errors[0];
}

TEST(DeclaredPasses, APassThatPrefersAnotherQueueIsAnnouncedAroundItsKeysOnTheRenderThreadOnly) {
  JobDevice device;
  Renderer renderer(device, {.workers = 4});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  auto declare = [&] {
    PassDesc draws;
    draws.target = RenderTargetHandle{7};
    draws.queue = QueueClass::AsyncCompute;  // a pass with a target draws: it stays on graphics
    PassDesc compute;
    compute.queue = QueueClass::AsyncCompute;
    PassDesc copies;
    copies.queue = QueueClass::Transfer;
    return std::array{renderer.resources().declarePass("draws", draws),
                      renderer.resources().declarePass("compute", compute),
                      renderer.resources().declarePass("copies", copies),
                      renderer.resources().declarePass("graphics work", PassDesc{})};
  };
  auto passes = declare();
  bucket.add<cmd::Draw>(passes[0], 0).vertexCount = 1;
  bucket.add<cmd::Dispatch>(passes[1], 0).groupsX = 2;
  bucket.add<cmd::Dispatch>(passes[1], 1).groupsX = 3;
  bucket.add<cmd::CopyBuffer>(passes[2], 0);
  bucket.add<cmd::Dispatch>(passes[3], 0).groupsX = 4;
  renderer.kick();
  renderer.flushAndWait();
  using Q = QueueClass;
  // Serial calls: BeginRenderPass, Draw, EndRenderPass (3), the two dispatches (5), the copy (6).
  const size_t requests = device.serial.size() - withoutRequests(device.serial).size();
  const std::vector<JobDevice::QueueCall> expected = {
      {requests + 3, Q::AsyncCompute, false}, {requests + 5, Q::Graphics, false},
      {requests + 5, Q::Transfer, false},     {requests + 6, Q::Graphics, false},
      {requests + 7, Q::Graphics, false},  // the frame's end
  };
  EXPECT_EQ(device.queueCalls, expected);

  // A wide frame: nothing announces a queue (preferQueue is device-wide, jobs run at once); instead each
  // job is for one queue (beginJobs), and the compute pass's keys, between graphics work, make jobs of
  // their own, for async compute.
  device.queueCalls.clear();
  passes = declare();
  // Pass sizes that the jobs' even shares do not meet.
  constexpr uint32_t kComputeKeys = 4 * kMinJobKeys + 37;
  for (uint32_t i = 0; i < kMinJobKeys - 29; ++i) bucket.add<cmd::Draw>(passes[0], i).vertexCount = 1;
  for (uint32_t i = 0; i < kComputeKeys; ++i) bucket.add<cmd::Dispatch>(passes[1], i).groupsX = i + 2;
  for (uint32_t i = 0; i < 2 * kMinJobKeys + 11; ++i) bucket.add<cmd::Dispatch>(passes[3], i).groupsX = 1;
  renderer.kick();
  renderer.flushAndWait();
  ASSERT_GT(device.jobs.size(), 2u) << "the frame went wide";
  EXPECT_TRUE(device.queueCalls.empty());
  EXPECT_TRUE(device.takeErrors().empty());
  ASSERT_EQ(device.jobQueues.size(), device.jobs.size());
  // Job by job: each job's first own packet (the draws' pass begins with BeginRenderPass) says where it
  // lies; a job on async compute holds the compute pass's dispatches (groupsX = key) and nothing else.
  size_t computeDispatches = 0;
  for (size_t j = 0; j < device.jobs.size(); ++j) {
    size_t dispatches = 0, others = 0;
    for (const JobDevice::Call& c : device.jobs[j]) {
      if (c.replayed) continue;
      const bool compute = c.type == CommandType::Dispatch && low32(c.head) != 1;
      (compute ? dispatches : others) += 1;
    }
    if (device.jobQueues[j] == Q::AsyncCompute) {
      EXPECT_GT(dispatches, 0u) << "job " << j;
      EXPECT_EQ(others, 0u) << "job " << j << " on async compute holds other work";
      computeDispatches += dispatches;
    } else {
      EXPECT_EQ(dispatches, 0u) << "job " << j << " holds compute-pass work on graphics";
    }
  }
  EXPECT_EQ(computeDispatches, kComputeKeys);
}

// In a wide frame, a pass on async compute that samples a depth texture stays there (a dispatch may read
// depth on any queue); one that copies textures and touches a depth texture runs on graphics, where depth
// can be copied. Each pass is a job of its own (the cuts), so each job's queue says which.
TEST(DeclaredPasses, AWideJobOnAsyncComputeStaysThereUnlessItsPassCopiesADepthTexture) {
  JobDevice device;
  Renderer renderer(device, {.workers = 4});
  ResourceContext& r = renderer.resources();
  const TextureHandle depth =
      r.createTexture({64, 64, 1, Format::D32Float, texture_usage::kDepthTarget | texture_usage::kSampled});
  const TextureHandle color = r.createTexture({64, 64, 1, Format::RGBA8Unorm, texture_usage::kSampled});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  renderer.kick();  // the textures exist before the frame that uses them
  renderer.flushAndWait();
  PassDesc compute;
  compute.queue = QueueClass::AsyncCompute;
  const PassId graphics = r.declarePass("graphics work", PassDesc{});
  const PassId samples = r.declarePass("samples depth", compute);
  const PassId copies = r.declarePass("copies depth", compute);
  const PassId after = r.declarePass("more graphics work", PassDesc{});
  for (uint32_t i = 0; i < kMinJobKeys + 5; ++i) bucket.add<cmd::Dispatch>(graphics, i).groupsX = 1;
  for (uint32_t i = 0; i < kMinJobKeys + 7; ++i) {
    auto& bind = bucket.add<cmd::BindTexture>(samples, i);
    bind.texture = depth;
    bucket.append<cmd::Dispatch>(&bind).groupsX = 2;
  }
  for (uint32_t i = 0; i < kMinJobKeys + 3; ++i) {
    auto& copy = bucket.add<cmd::CopyTexture>(copies, i);
    copy.source = depth;
    copy.destination = color;
    bucket.append<cmd::Dispatch>(&copy).groupsX = 3;
  }
  for (uint32_t i = 0; i < kMinJobKeys; ++i) bucket.add<cmd::Dispatch>(after, i).groupsX = 1;
  renderer.kick();
  renderer.flushAndWait();
  ASSERT_GT(device.jobs.size(), 3u) << "the frame went wide";
  ASSERT_EQ(device.jobQueues.size(), device.jobs.size());
  std::map<uint64_t, std::set<QueueClass>> queuesByWork;  // a dispatch's groupsX: the queues of its jobs
  for (size_t j = 0; j < device.jobs.size(); ++j) {
    for (const JobDevice::Call& c : own(device.jobs[j])) {
      if (c.type == CommandType::Dispatch) queuesByWork[low32(c.head)].insert(device.jobQueues[j]);
    }
  }
  EXPECT_EQ(queuesByWork[2], std::set<QueueClass>{QueueClass::AsyncCompute}) << "the pass sampling depth";
  EXPECT_EQ(queuesByWork[3], std::set<QueueClass>{QueueClass::Graphics}) << "the pass copying depth";
  EXPECT_EQ(queuesByWork[1], std::set<QueueClass>{QueueClass::Graphics});
  EXPECT_TRUE(device.takeErrors().empty());
}

// What a device sees at each draw: the pass open and the viewport set (a pass's begin resets it).
struct DrawState {
  uint32_t target, viewportX, draw;
  bool operator==(const DrawState&) const = default;
};
void simulate(const std::vector<JobDevice::Call>& calls, std::vector<DrawState>& draws) {
  uint32_t target = 0, viewportX = UINT32_MAX;
  for (const auto& c : calls) {
    switch (c.type) {
      case CommandType::BeginRenderPass:
        target = low32(c.head);
        viewportX = UINT32_MAX;
        break;
      case CommandType::EndRenderPass:
        target = 0;
        break;
      case CommandType::SetViewport:
        viewportX = low32(c.head);
        break;
      case CommandType::Draw:
        draws.push_back({target, viewportX, low32(c.head)});
        break;
      default:
        break;
    }
  }
}

TEST(DeclaredPasses, JobsSeeEveryDrawInItsPassAsOneThreadDoes) {
  // Passes of random sizes (some empty, some without a target), keys recorded in random order, a viewport
  // set by the pass's description in some and by a packet inside it in others: each job, from the state
  // it replays, must draw every key in the pass and viewport the single-threaded walk does, and every
  // pass with a target must begin once outside the replayed state.
  auto record = [](Renderer& renderer, CommandBucket<uint32_t>& bucket) {
    std::mt19937 rng(11);
    constexpr uint32_t kPasses = 24;
    std::vector<PassId> passes;
    uint32_t targets = 0;
    for (uint32_t p = 0; p < kPasses; ++p) {
      PassDesc desc;
      if (rng() % 4 != 0) desc.target = RenderTargetHandle{100 + p}, ++targets;
      if (rng() % 2) desc.viewport[0] = float(p), desc.viewport[2] = 8.0f, desc.viewport[3] = 8.0f;
      passes.push_back(renderer.resources().declarePass("p", desc));
    }
    uint32_t draw = 0;
    for (uint32_t k = 0; k < 3000; ++k) {
      const uint32_t p = rng() % (kPasses + 4);  // a few passes get no key
      if (p >= kPasses) continue;
      const uint32_t key = rng() % 1000;
      if (key % 97 == 0) {
        auto& viewport = bucket.add<cmd::SetViewport>(passes[p], key);
        viewport.x = float(1000 + key), viewport.width = 4.0f, viewport.height = 4.0f;
      } else {
        bucket.add<cmd::Draw>(passes[p], key).vertexCount = draw++;
      }
    }
    for (uint32_t k = 0; k < 300; ++k) bucket.add<cmd::Draw>(k).vertexCount = draw++;  // no pass
    return targets;
  };
  JobDevice serialDevice;
  std::vector<DrawState> serial;
  uint32_t targets;
  {
    Renderer renderer(serialDevice, {.workers = 1});
    targets = record(renderer, renderer.createBucket<uint32_t>("b"));
    renderer.kick();
    renderer.flushAndWait();
    simulate(serialDevice.serial, serial);
  }
  JobDevice wideDevice;
  Renderer renderer(wideDevice, {.workers = 4});
  record(renderer, renderer.createBucket<uint32_t>("b"));
  renderer.kick();
  renderer.flushAndWait();
  ASSERT_GT(wideDevice.jobs.size(), 4u);
  std::vector<DrawState> wide;
  uint32_t begun = 0;
  for (const auto& job : wideDevice.jobs) {
    simulate(job, wide);
    for (const auto& c : own(job)) begun += c.type == CommandType::BeginRenderPass;
  }
  ASSERT_EQ(wide.size(), serial.size());
  for (size_t i = 0; i < serial.size(); ++i) {
    ASSERT_EQ(wide[i], serial[i]) << "draw " << i << " (vertexCount " << serial[i].draw << ")";
  }
  EXPECT_EQ(begun, targets) << "each pass with a target begins once, empty ones too";
  EXPECT_TRUE(wideDevice.takeErrors().empty());
}

TEST(DeclaredPasses, EachPassWithATargetPreparesWhatItReadsAndDoesNotWriteBeforeItBegins) {
  JobDevice device;
  Renderer renderer(device, {.workers = 1});
  ResourceContext& r = renderer.resources();
  const TextureHandle color = r.createTexture({8, 8, 1, Format::RGBA8Unorm, texture_usage::kColorTarget});
  const TextureHandle sampled = r.createTexture({8, 8, 1, Format::RGBA8Unorm, texture_usage::kSampled});
  const BufferHandle storage = r.createBuffer({64, buffer_usage::kStorage, MemoryDomain::Device});
  const BufferHandle uniforms = r.createBuffer({64, buffer_usage::kUniform, MemoryDomain::Device});
  RenderTargetDesc targetDesc{};
  targetDesc.colorCount = 1;
  targetDesc.colors[0] = color;
  const RenderTargetHandle target = r.createRenderTarget(targetDesc);
  renderer.kick();  // the resources exist before the frame that uses them
  renderer.flushAndWait();
  device.serial.clear();

  PassDesc draw;
  draw.target = target;
  const PassId compute = r.declarePass("compute", PassDesc{});  // no target: nothing to prepare
  const PassId pass = r.declarePass("draw", draw);
  auto& bucket = renderer.createBucket<uint32_t>("b");
  bucket.add<cmd::BindStorageBuffer>(compute, 0).buffer = storage;
  bucket.add<cmd::Dispatch>(compute, 1).groupsX = 1;
  bucket.add<cmd::BindTexture>(pass, 2).texture = sampled;
  bucket.add<cmd::BindStorageBuffer>(pass, 3).buffer = storage;  // read in a graphics pass
  const uint64_t bytes[2] = {1, 2};
  bucket.addWithData<cmd::UpdateBuffer>(pass, 4, bytes, sizeof bytes).buffer = uniforms;  // written here
  bucket.add<cmd::BindUniformBuffer>(pass, 5).buffer = uniforms;
  bucket.add<cmd::Draw>(pass, 6).vertexCount = 3;
  renderer.kick();
  renderer.flushAndWait();
  ASSERT_EQ(device.prepared.size(), 1u) << "the pass with a target, once";
  const auto& [before, reads] = device.prepared[0];
  EXPECT_EQ(reads, (std::vector<GraphResource>{{ResourceKind::Buffer, storage.value},
                                               {ResourceKind::Texture, sampled.value}}))
      << "not the uniforms it writes, not its attachment";
  ASSERT_LT(before, device.serial.size());
  EXPECT_EQ(device.serial[before].type, CommandType::BeginRenderPass) << "right before the pass begins";
  EXPECT_TRUE(device.takeErrors().empty());
}

// A wide frame's graph comes from the sweep's segments, a small frame's on one thread from a walk of its
// own: on the same frame (random passes, binds, copies and transient textures, keys in random order, some
// outside any pass) the device must be given the same prologue before each pass with a target and the
// same transient lives. Passes and resources are many, so that a pass's reads differ from segment to
// segment: a segment's part missing from the graph changes them.
TEST(DeclaredPasses, AWideFrameGetsTheGraphOneThreadBuilds) {
  struct Given {
    std::vector<std::vector<GraphResource>> prologues;
    std::vector<TransientLife> lives;
    bool known = false;
    size_t jobs = 0;
  };
  auto run = [](uint32_t workers) {
    JobDevice device;
    Renderer renderer(device, {.workers = workers});
    ResourceContext& r = renderer.resources();
    std::vector<TextureHandle> textures;
    for (uint32_t t = 0; t < 48; ++t) {
      const uint32_t transient = t % 2 ? texture_usage::kTransient : 0;
      textures.push_back(r.createTexture(
          {8, 8, 1, Format::RGBA8Unorm, texture_usage::kColorTarget | texture_usage::kSampled | transient}));
    }
    std::vector<BufferHandle> buffers;
    for (uint32_t b = 0; b < 24; ++b)
      buffers.push_back(r.createBuffer({64, buffer_usage::kStorage, MemoryDomain::Device}));
    std::vector<RenderTargetHandle> targets;
    for (uint32_t t = 0; t < 12; ++t) {
      RenderTargetDesc desc{};
      desc.colorCount = 1;
      desc.colors[0] = textures[t * 2 + 1];
      targets.push_back(r.createRenderTarget(desc));
    }
    renderer.kick();  // the resources exist before the frame that uses them
    renderer.flushAndWait();

    std::mt19937 rng(23);
    std::vector<PassId> passes;
    for (uint32_t p = 0; p < 40; ++p) {
      PassDesc desc;
      if (rng() % 3 != 0) desc.target = targets[rng() % targets.size()];
      if (rng() % 4 == 0) desc.colorLoad = LoadOp::Load;
      if (desc.target.isNull() && rng() % 2 == 0) desc.queue = QueueClass::AsyncCompute;
      passes.push_back(r.declarePass("p", desc));
    }
    auto& bucket = renderer.createBucket<uint32_t>("b");
    for (uint32_t k = 0; k < 2000; ++k) {
      const uint32_t key = rng() % 100000;
      const bool outside = rng() % 50 == 0;
      const PassId pass = passes[rng() % passes.size()];
      auto add = [&]<typename T>() -> T& { return outside ? bucket.add<T>(key) : bucket.add<T>(pass, key); };
      switch (rng() % 5) {
        case 0:
          add.operator()<cmd::BindTexture>().texture = textures[rng() % textures.size()];
          break;
        case 1:
          add.operator()<cmd::BindStorageBuffer>().buffer = buffers[rng() % buffers.size()];
          break;
        case 2: {
          auto& copy = add.operator()<cmd::CopyBuffer>();
          copy.source = buffers[rng() % buffers.size()];
          copy.destination = buffers[rng() % buffers.size()];
          break;
        }
        case 3:
          add.operator()<cmd::Dispatch>().groupsX = 1;
          break;
        default:
          add.operator()<cmd::Draw>().vertexCount = 3;
          break;
      }
    }
    renderer.kick();
    renderer.flushAndWait();
    Given given;
    for (const auto& [at, reads] : device.prepared) given.prologues.push_back(reads);
    for (const auto& job : device.preparedInJobs)
      given.prologues.insert(given.prologues.end(), job.begin(), job.end());
    given.lives = device.lives;
    given.known = device.livesKnown;
    given.jobs = device.jobs.size();
    return given;
  };
  const Given serial = run(1);
  const Given wide = run(4);
  ASSERT_EQ(serial.jobs, 0u);
  ASSERT_GT(wide.jobs, 4u) << "the frame went wide";
  EXPECT_TRUE(serial.known);
  EXPECT_TRUE(wide.known);
  ASSERT_FALSE(serial.prologues.empty());
  EXPECT_EQ(wide.prologues, serial.prologues);
  ASSERT_FALSE(serial.lives.empty());
  ASSERT_EQ(wide.lives.size(), serial.lives.size());
  for (size_t i = 0; i < serial.lives.size(); ++i) {
    const TransientLife &a = serial.lives[i], &b = wide.lives[i];
    EXPECT_EQ(b.texture, a.texture) << i;
    EXPECT_EQ(b.first, a.first) << i;
    EXPECT_EQ(b.last, a.last) << i;
    EXPECT_EQ(b.discardable, a.discardable) << i;
    EXPECT_EQ(b.graphicsOnly, a.graphicsOnly) << i;
  }
}

// Transient attachments are discarded (Device::discardAtPassEnd) at the pass where their life ends, only
// when rendering runs to the pass's end: a copy before the pass's first draw does not stop that, one after
// it does; an attachment read later in the frame, outside any pass included, or not transient is kept. In a
// wide frame (passes of 300 keys across jobs of fewer) only the job that ends the pass is told, right
// before the begin it replays or makes, and the next job does not go on with that pass. A frame kicked with
// stopAfterPackets discards nothing.
TEST(DeclaredPasses, TransientAttachmentsAreDiscardedWhereTheirLifeEndsAndRenderingRunsToTheEnd) {
  using Call = JobDevice::Call;
  struct Run {
    std::vector<uint32_t> discarded;  // every attachment handed, in order
    bool noneGoesOn = true;           // no pass told to discard went on in the next job
    size_t jobs = 0;
  };
  auto run = [](uint32_t workers, uint64_t stopAfter) {
    JobDevice device;
    Renderer renderer(device, {.workers = workers});
    ResourceContext& r = renderer.resources();
    const auto texture = [&](bool transient) {
      return r.createTexture({8, 8, 1, Format::RGBA8Unorm,
                              texture_usage::kColorTarget | texture_usage::kSampled |
                                  (transient ? texture_usage::kTransient : 0)});
    };
    const TextureHandle x = texture(true), y = texture(true), z = texture(true), w = texture(true),
                        v = texture(false), u = texture(true);
    const BufferHandle a = r.createBuffer({64, buffer_usage::kStorage, MemoryDomain::Device});
    const BufferHandle b = r.createBuffer({64, buffer_usage::kStorage, MemoryDomain::Device});
    std::vector<RenderTargetHandle> targets;
    for (const TextureHandle t : {x, y, z, w, v, u}) {
      RenderTargetDesc desc{};
      desc.colorCount = 1;
      desc.colors[0] = t;
      targets.push_back(r.createRenderTarget(desc));
    }
    renderer.kick();  // the resources exist before the frame that uses them
    renderer.flushAndWait();
    std::vector<PassId> passes;
    for (const RenderTargetHandle target : targets) {
      PassDesc pass;
      pass.target = target;
      passes.push_back(r.declarePass("p", pass));
    }
    auto& bucket = renderer.createBucket<uint32_t>("b");
    for (uint32_t k = 10; k < 310; ++k) {
      for (const PassId& pass : passes) bucket.add<cmd::Draw>(pass, k).vertexCount = 3;
    }
    auto copy = [&](PassId pass, uint32_t key) {
      auto& c = bucket.add<cmd::CopyBuffer>(pass, key);
      c.source = a;
      c.destination = b;
    };
    copy(passes[2], 0);                                      // before z's pass draws
    bucket.add<cmd::BindTexture>(passes[2], 1).texture = x;  // x is read after its own pass
    copy(passes[3], 100000);                                 // after w's pass drew
    bucket.add<cmd::BindTexture>(5).texture = u;             // outside any pass, after u's
    renderer.kick({.stopAfterPackets = stopAfter});
    renderer.flushAndWait();
    Run result;
    result.jobs = device.jobs.size();
    // The pass begun after each discard: its target (a BeginRenderPass's first field), and whether the
    // next job begins it again (it went on there).
    auto walk = [&](const std::vector<Call>& calls, const std::vector<Call>* next) {
      for (size_t i = 0; i < calls.size(); ++i) {
        if (calls[i].type != JobDevice::kDiscard) continue;
        result.discarded.push_back(static_cast<uint32_t>(calls[i].head));
        auto begin = std::find_if(calls.begin() + i, calls.end(),
                                  [](const Call& c) { return c.type == CommandType::BeginRenderPass; });
        if (begin == calls.end()) {
          result.noneGoesOn = false;
          continue;
        }
        if (next && std::any_of(next->begin(), next->end(), [&](const Call& c) {
              return c.replayed && c.type == CommandType::BeginRenderPass && c.head == begin->head;
            }))
          result.noneGoesOn = false;
      }
    };
    walk(device.serial, nullptr);
    for (size_t j = 0; j < device.jobs.size(); ++j)
      walk(device.jobs[j], j + 1 < device.jobs.size() ? &device.jobs[j + 1] : nullptr);
    return std::pair(result, std::vector<uint32_t>{y.value, z.value});
  };
  const auto [serial, expected] = run(1, UINT64_MAX);
  EXPECT_EQ(serial.jobs, 0u);
  EXPECT_EQ(serial.discarded, expected) << "y at its pass, z after a copy before its draws; not x, w, v or u";
  EXPECT_TRUE(serial.noneGoesOn);
  const auto [wide, same] = run(4, UINT64_MAX);
  ASSERT_GT(wide.jobs, 2u) << "the frame went wide";
  EXPECT_EQ(wide.discarded, same) << "each once, by the job that ends its pass";
  EXPECT_TRUE(wide.noneGoesOn) << "only the job that ends a pass is told";
  const auto [stopped, unused] = run(1, 1000000);
  EXPECT_TRUE(stopped.discarded.empty()) << "a frame stopped after N packets keeps what it drew";
}

}  // namespace
}  // namespace reel
