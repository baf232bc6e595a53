// Which of the machine's CPUs share a physical core, whatever a virtual machine's topology says: a loop
// that keeps a core's floating-point ports busy runs alone on CPU a, then beside the same loop on CPU b,
// for every pair a < b; the ratio of its iterations beside to alone is about 0.5 for two hyperthreads of
// one core and about 1 for two cores. Prints JSON.
//
//   reel_cpu_siblings > siblings.json

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

// Keeps the calling thread on `cpu`; false where the system refuses.
bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

// Iterations of eight independent multiply-adds a thousand times over, until `stop`.
double busyLoop(const std::atomic<bool>& stop) {
  double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  long iterations = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    for (int r = 0; r < 1000; ++r)
      for (double& x : a) x = x * 0.9999999 + 1e-7;
    ++iterations;
  }
  volatile double sink = a[0] + a[7];
  (void)sink;
  return double(iterations);
}

// The loop's iterations on CPU `measured` in `ms` milliseconds, with the same loop on CPU `beside` (-1:
// alone). A CPU that cannot be pinned ends the program: the pair's ratio would mean nothing.
double iterationsOn(int measured, int beside, double ms) {
  std::atomic<bool> stop{false}, refused{false};
  double iterations = 0;
  std::thread first([&] {
    if (!pin(measured)) refused = true;
    iterations = busyLoop(stop);
  });
  std::thread second;
  if (beside >= 0) {
    second = std::thread([&] {
      if (!pin(beside)) refused = true;
      busyLoop(stop);
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
  stop = true;
  first.join();
  if (second.joinable()) second.join();
  if (refused) {
    std::fprintf(stderr, "reel_cpu_siblings: cannot keep a thread on CPU %d or %d\n", measured, beside);
    std::exit(1);
  }
  return iterations;
}

}  // namespace

int main() {
  // The CPUs this process may run on, in order.
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    std::perror("reel_cpu_siblings: sched_getaffinity");
    return 1;
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  std::printf("{\"cpus\": %zu, \"pairs\": [", cpus.size());
  const char* separator = "";
  for (size_t i = 0; i < cpus.size(); ++i) {
    const double alone = iterationsOn(cpus[i], -1, 200);
    for (size_t j = i + 1; j < cpus.size(); ++j) {
      const double beside = iterationsOn(cpus[i], cpus[j], 200);
      std::printf("%s{\"a\": %d, \"b\": %d, \"ratio\": %.3f}", separator, cpus[i], cpus[j], beside / alone);
      separator = ", ";
    }
  }
  std::printf("]}\n");
}
