#pragma once
// Where one frame's time went on the render thread, phase by phase. The Renderer measures it around its
// own steps (so no device has to guess phases from the order of its calls) and hands it to every
// observer's onFrameEnd (frame.h).

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace reel {

enum class FramePhase : uint8_t {
  Begin,      // Device::beginFrame: recycling a frame context, which may wait for the GPU
  Requests,   // applying the frame's create and write requests
  Merge,      // gathering every bucket's keys
  Sort,       // the radix sort, material binders' passes, the order hash
  Observers,  // onFrameStart and onFrame of every observer
  Sweep,      // wide frames: the sweep that fixes each job's start (segments on the workers, combined here)
  Translate,  // the sorted packets through the device (wide frames: the jobs the render thread took)
  Wait,       // wide frames: waiting for the other threads' last jobs, then joining the jobs' work
  Submit,     // destroy requests and Device::endFrame (closing and submitting the frame's work)
  Count
};
inline constexpr size_t kFramePhaseCount = static_cast<size_t>(FramePhase::Count);
inline constexpr uint32_t kMaxRenderWorkers = 64;  // RendererConfig::workers is clamped to it
const char* framePhaseName(FramePhase phase);      // "begin", "requests", ...

struct FrameTiming {
  uint64_t frame = 0;
  uint64_t packets = 0;  // sorted packets translated
  // Draw packets of the frame as recorded, and draws that reached the device after instance merging
  // (renderer.h); `mergedRuns` of the recorded draws became one instanced draw each.
  uint64_t drawsRecorded = 0;
  uint64_t drawsSubmitted = 0;
  uint64_t mergedRuns = 0;
  // Per phase, wall time (steady clock) and the render thread's CPU time. CPU time is not inflated when
  // the thread is descheduled on a busy machine; wall minus CPU is time spent waiting (for the GPU in
  // Begin, say).
  std::array<std::chrono::nanoseconds, kFramePhaseCount> wall{};
  std::array<std::chrono::nanoseconds, kFramePhaseCount> cpu{};
  // Wide frames: how many jobs translated the frame (1: the render thread alone) and the wall time of
  // each job, in sort order. Jobs outnumber threads (kJobsPerThread): the render thread and the render
  // workers each take the next job until none is left; the render thread's own are inside Translate.
  uint32_t jobs = 1;
  std::array<std::chrono::nanoseconds, kMaxRenderWorkers> jobWall{};
  std::array<uint64_t, kMaxRenderWorkers> jobPackets{};  // each job's own packets (its state replays aside)

  std::chrono::nanoseconds wallOf(FramePhase phase) const { return wall[static_cast<size_t>(phase)]; }
  std::chrono::nanoseconds cpuOf(FramePhase phase) const { return cpu[static_cast<size_t>(phase)]; }
  std::chrono::nanoseconds totalWall() const;
  std::chrono::nanoseconds totalCpu() const;
};

}  // namespace reel
