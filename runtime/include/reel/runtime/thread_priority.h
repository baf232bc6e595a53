#pragma once
// How much of the machine a library's background threads (a capture's encoders, writer and compressors)
// take from the app's own threads when both want a core.
//
//   std::thread t([] {
//     reel::setThisThreadPriority(reel::ThreadPriority::Background);
//     ...
//   });

#include <cstdint>
#include <optional>
#include <string_view>

#include "reel/runtime/result.h"

namespace reel {

enum class ThreadPriority : uint8_t {
  Normal,      // as the thread that made it
  Background,  // Linux: nice +10, about a tenth of a normal thread's share of a busy core
  Idle,        // Linux: SCHED_IDLE, only the time no other thread wants
};

// The calling thread's priority (never raised above what it was made with). Fails where the system
// refuses; elsewhere than Linux, Normal is all there is and the others fail.
Result<void> setThisThreadPriority(ThreadPriority priority);

// Names the calling thread for profilers, debuggers and top (Linux: the first 15 bytes; elsewhere
// nothing). The runtime's and capture's threads are named "reel-..." so that a profile of an app tells
// them apart from its own.
void nameThisThread(const char* name);

// "normal", "background", "idle": the names REEL_CAPTURE_PRIORITY and the tools take.
std::string_view threadPriorityName(ThreadPriority priority);
std::optional<ThreadPriority> parseThreadPriority(std::string_view name);

}  // namespace reel
