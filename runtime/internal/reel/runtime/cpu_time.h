#pragma once
// CPU time consumed so far, for measurements that a busy machine should not inflate the way it inflates
// wall time (time spent descheduled does not count).

#include <time.h>

#include <chrono>

namespace reel {

inline std::chrono::nanoseconds cpuTime(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}
// The calling thread's CPU time.
inline std::chrono::nanoseconds threadCpuTime() {
  return cpuTime(CLOCK_THREAD_CPUTIME_ID);
}
// All of the process's threads together.
inline std::chrono::nanoseconds processCpuTime() {
  return cpuTime(CLOCK_PROCESS_CPUTIME_ID);
}

}  // namespace reel
