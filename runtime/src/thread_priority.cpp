#include "reel/runtime/thread_priority.h"

#include <cerrno>
#include <cstring>
#include <string>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace reel {

Result<void> setThisThreadPriority(ThreadPriority priority) {
  // Normal is how the thread was made: nothing to do (and never a raise).
  if (priority == ThreadPriority::Normal) return {};
#if defined(__linux__)
  // Linux keeps a nice value and a policy per thread (not per process, whatever POSIX says), addressed
  // by the thread id.
  return setThreadPriority(currentThreadId(), priority);
#else
  return fail("thread priority ", threadPriorityName(priority), " is not supported on this system");
#endif
}

uint64_t currentThreadId() {
#if defined(__linux__)
  return static_cast<uint64_t>(syscall(SYS_gettid));
#else
  return 0;
#endif
}

Result<void> setThreadPriority(uint64_t threadId, ThreadPriority priority) {
#if defined(__linux__)
  const auto tid = static_cast<pid_t>(threadId);
  if (priority == ThreadPriority::Background) {
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
    if (errno != 0) return fail("getpriority: ", std::strerror(errno));
    if (setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice + 10 > 19 ? 19 : nice + 10) != 0) {
      return fail("setpriority: ", std::strerror(errno));
    }
    return {};
  }
  // Leaving SCHED_IDLE needs no privilege while the thread's nice value is one the process may set.
  const int policy = priority == ThreadPriority::Idle ? SCHED_IDLE : SCHED_OTHER;
  const sched_param none{};
  if (sched_setscheduler(tid, policy, &none) != 0) {
    return fail("sched_setscheduler(", policy == SCHED_IDLE ? "SCHED_IDLE" : "SCHED_OTHER", ") of thread ",
                tid, ": ", std::strerror(errno));
  }
  return {};
#else
  if (priority == ThreadPriority::Normal) return {};
  (void)threadId;
  return fail("thread priority ", threadPriorityName(priority), " is not supported on this system");
#endif
}

Result<void> ThreadPriorityGroup::enter() {
  // Under the mutex: a setPriority meanwhile either finds this thread registered or sets what it takes.
  std::lock_guard lock(mutex_);
  threadIds_.push_back(currentThreadId());
  return setThisThreadPriority(priority_);
}

void ThreadPriorityGroup::leave() {
  std::lock_guard lock(mutex_);
  std::erase(threadIds_, currentThreadId());
}

Result<void> ThreadPriorityGroup::setPriority(ThreadPriority priority) {
  std::lock_guard lock(mutex_);
  priority_ = priority;
  Result<void> first;
  for (const uint64_t id : threadIds_) {
    if (auto r = setThreadPriority(id, priority); !r && first) first = r;
  }
  return first;
}

ThreadPriority ThreadPriorityGroup::priority() const {
  std::lock_guard lock(mutex_);
  return priority_;
}

void nameThisThread(const char* name) {
#if defined(__linux__)
  // The kernel keeps 15 bytes and a NUL; a longer name is refused whole (ERANGE), so cut it here.
  const std::string cut = std::string(name).substr(0, 15);
  (void)pthread_setname_np(pthread_self(), cut.c_str());
#else
  (void)name;
#endif
}

std::string_view threadPriorityName(ThreadPriority priority) {
  switch (priority) {
    case ThreadPriority::Normal:
      return "normal";
    case ThreadPriority::Background:
      return "background";
    case ThreadPriority::Idle:
      return "idle";
  }
  return "?";
}

std::optional<ThreadPriority> parseThreadPriority(std::string_view name) {
  for (const ThreadPriority p : {ThreadPriority::Normal, ThreadPriority::Background, ThreadPriority::Idle}) {
    if (name == threadPriorityName(p)) return p;
  }
  return std::nullopt;
}

}  // namespace reel
