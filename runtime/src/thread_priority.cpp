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
  if (priority == ThreadPriority::Normal) return {};
#if defined(__linux__)
  // Linux keeps a nice value and a policy per thread (not per process, whatever POSIX says), addressed
  // by the thread id.
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  if (priority == ThreadPriority::Background) {
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, tid);
    if (errno != 0) return fail("getpriority: ", std::strerror(errno));
    if (setpriority(PRIO_PROCESS, tid, nice + 10 > 19 ? 19 : nice + 10) != 0) {
      return fail("setpriority: ", std::strerror(errno));
    }
    return {};
  }
  const sched_param none{};
  if (sched_setscheduler(static_cast<pid_t>(tid), SCHED_IDLE, &none) != 0) {
    return fail("sched_setscheduler(SCHED_IDLE): ", std::strerror(errno));
  }
  return {};
#else
  return fail("thread priority ", threadPriorityName(priority), " is not supported on this system");
#endif
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
