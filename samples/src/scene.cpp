#include "scene.h"

#include "reel/runtime/worker_pool.h"

namespace reel::samples {

std::unique_ptr<Scene> makePasses();  // scenes/passes.cpp: a material in two passes (MaterialBinder)

void FrameRecorder::parallel(uint32_t count,
                             const std::function<void(CommandBucket<DrawKey>&, uint32_t, uint32_t)>& fn) {
  const uint32_t n = workerCount();
  // The app's thread records the first share itself, the pool's workers the others.
  pool_.run(n, [&](uint32_t worker) {
    const uint32_t begin = static_cast<uint32_t>(uint64_t{count} * worker / n);
    const uint32_t end = static_cast<uint32_t>(uint64_t{count} * (worker + 1) / n);
    if (begin < end) fn(*workers_[worker], begin, end);
  });
}

std::span<const char* const> sceneNames() {
  static constexpr const char* kNames[] = {"cubes",  "transparency", "post",   "compute",
                                           "stress", "default",      "passes", "deferred"};
  return kNames;
}

std::unique_ptr<Scene> makeScene(std::string_view name) {
  if (name == "cubes") return makeCubes();
  if (name == "transparency") return makeTransparency();
  if (name == "post") return makePost();
  if (name == "compute") return makeCompute();
  if (name == "stress") return makeStress();
  if (name == "default") return makeDefault();
  if (name == "passes") return makePasses();
  if (name == "deferred") return makeDeferred();
  return nullptr;
}

}  // namespace reel::samples
