#include "reel/runtime/frame_timing.h"

#include <numeric>

namespace reel {

const char* framePhaseName(FramePhase phase) {
  constexpr const char* kNames[kFramePhaseCount] = {"begin", "requests",  "merge", "sort",  "observers",
                                                    "sweep", "translate", "wait",  "submit"};
  const auto index = static_cast<size_t>(phase);
  return index < kFramePhaseCount ? kNames[index] : "?";
}

std::chrono::nanoseconds FrameTiming::totalWall() const {
  return std::accumulate(wall.begin(), wall.end(), std::chrono::nanoseconds{0});
}

std::chrono::nanoseconds FrameTiming::totalCpu() const {
  return std::accumulate(cpu.begin(), cpu.end(), std::chrono::nanoseconds{0});
}

}  // namespace reel
