#pragma once
// How much of the machine a library's background threads (a capture's encoders, writer and compressors)
// take from the app's own threads when both want a core.
//
//   std::thread t([] {
//     reel::setThisThreadPriority(reel::ThreadPriority::Background);
//     ...
//   });

#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

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

// The calling thread's id for setThreadPriority (Linux: its tid; 0 elsewhere).
uint64_t currentThreadId();
// Another thread's priority, by currentThreadId() (a thread of this process). Unlike
// setThisThreadPriority, Normal returns an Idle thread to the normal policy, so that a thread that gets
// no CPU can be given some from outside. Background only lowers (nice +10, which an unprivileged process
// cannot undo). Fails where the system refuses.
Result<void> setThreadPriority(uint64_t threadId, ThreadPriority priority);

// Threads that share one priority, which changes while they run (a capture's threads, a trace writer's
// compression threads): each enters as it starts and leaves before it ends, and setPriority moves every
// thread in the group. Any thread may call any of it.
class ThreadPriorityGroup {
 public:
  explicit ThreadPriorityGroup(ThreadPriority priority) : priority_(priority) {}
  // The calling thread joins the group at its priority now; the system's refusal, if any (the thread
  // stays a member and runs as it was made).
  Result<void> enter();
  // The calling thread leaves: setPriority no longer reaches it, nor a later thread given its id.
  void leave();
  // Every thread in the group, and those that enter later, at `priority`: all of them tried, the first
  // refusal returned.
  Result<void> setPriority(ThreadPriority priority);
  ThreadPriority priority() const;

 private:
  mutable std::mutex mutex_;
  std::vector<uint64_t> threadIds_;  // currentThreadId() of each member
  ThreadPriority priority_;
};

// Names the calling thread for profilers, debuggers and top (Linux: the first 15 bytes; elsewhere
// nothing). The runtime's and capture's threads are named "reel-..." so that a profile of an app tells
// them apart from its own.
void nameThisThread(const char* name);

// "normal", "background", "idle": the names REEL_CAPTURE_PRIORITY and the tools take.
std::string_view threadPriorityName(ThreadPriority priority);
std::optional<ThreadPriority> parseThreadPriority(std::string_view name);

}  // namespace reel
