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
#include <thread>
#include <vector>

namespace {
void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}
double spin(std::atomic<bool>& stop) {
  double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  long n = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    for (int r = 0; r < 1000; ++r)
      for (int i = 0; i < 8; ++i) a[i] = a[i] * 0.9999999 + 1e-7;
    ++n;
  }
  volatile double sink = a[0] + a[7];
  (void)sink;
  return double(n);
}
double run(int a, int b, double ms) {
  std::atomic<bool> stop{false};
  double ra = 0;
  std::thread ta([&] {
    pin(a);
    ra = spin(stop);
  });
  std::thread tb;
  if (b >= 0)
    tb = std::thread([&] {
      pin(b);
      spin(stop);
    });
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
  stop = true;
  ta.join();
  if (tb.joinable()) tb.join();
  return ra;
}
}  // namespace

int main() {
  const int n = int(std::thread::hardware_concurrency());
  std::printf("{\"cpus\": %d, \"pairs\": [", n);
  const char* separator = "";
  for (int base = 0; base < n; ++base) {
    const double alone = run(base, -1, 200);
    for (int k = base + 1; k < n; ++k) {
      const double beside = run(base, k, 200);
      std::printf("%s{\"a\": %d, \"b\": %d, \"ratio\": %.3f}", separator, base, k, beside / alone);
      separator = ", ";
    }
  }
  std::printf("]}\n");
}
