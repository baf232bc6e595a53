#include "declared_passes.h"

#include <algorithm>
#include <cstring>

#include "reel/runtime/bucket_order.h"
#include "reel/runtime/radix_sort.h"

namespace reel {

void DeclaredPasses::clear() {
  passes_.clear();
  starts_.clear();
  for (auto& reads : prologues_) reads.clear();
  for (auto& attachments : discards_) attachments.clear();
  runsOn_.clear();
}

std::string DeclaredPasses::declare(const cmd::DeclarePass& packet) {
  if (packet.pass != passes_.size()) {
    return "DeclarePass: pass " + std::to_string(packet.pass) + " declared where pass " +
           std::to_string(passes_.size()) + " comes next (ids count from 0 in request order); ignored";
  }
  passes_.push_back(packet.desc);
  if (prologues_.size() < passes_.size()) prologues_.resize(passes_.size());
  if (discards_.size() < passes_.size()) discards_.resize(passes_.size());
  return {};
}

size_t DeclaredPasses::locate(std::span<const SortEntry> sorted, const SortPrefixes& prefixes) {
  // Pass ids ascend along the sorted keys: each boundary is a binary search, so a frame of many keys and
  // few passes reads only a few dozen prefixes.
  auto firstAtLeast = [&](uint32_t pass) {
    return static_cast<size_t>(std::partition_point(sorted.begin(), sorted.end(),
                                                    [&](const SortEntry& e) {
                                                      return passOfPrefix(prefixes.of(e.sequence)) < pass;
                                                    }) -
                               sorted.begin());
  };
  starts_.resize(passes_.size() + 1);
  for (size_t p = 0; p <= passes_.size(); ++p) starts_[p] = firstAtLeast(static_cast<uint32_t>(p));
  return firstAtLeast(PassId::kNone) - starts_[passes_.size()];
}

QueueClass DeclaredPasses::queueOf(size_t pass) const {
  if (pass < runsOn_.size() && runsOn_[pass] != kUnplaced) return runsOn_[pass];
  const PassDesc& d = passes_[pass];
  return d.target.isNull() ? d.queue : QueueClass::Graphics;
}

void DeclaredPasses::begin(Device& device, size_t pass, bool toItsEnd) const {
  const PassDesc& d = passes_[pass];
  // A pass that draws runs where drawing can; one without a target may go where it prefers.
  const QueueClass queue = queueOf(pass);
  if (queues_ && queue != QueueClass::Graphics) device.preferQueue(queue);
  if (d.target.isNull()) return;
  if (!prologues_[pass].empty()) device.prepareReads(prologues_[pass]);
  if (toItsEnd && !discards_[pass].empty()) device.discardAtPassEnd(discards_[pass]);
  cmd::BeginRenderPass begin{};
  begin.target = d.target;
  begin.colorLoad = d.colorLoad;
  begin.depthLoad = d.depthLoad;
  std::memcpy(begin.clearColor, d.clearColor, sizeof begin.clearColor);
  begin.clearDepth = d.clearDepth;
  begin.clearStencil = d.clearStencil;
  dispatchPacket(device, CommandType::BeginRenderPass, &begin, PacketContext{});
  if (d.viewport[2] != 0.0f) {
    cmd::SetViewport viewport{};
    viewport.x = d.viewport[0];
    viewport.y = d.viewport[1];
    viewport.width = d.viewport[2];
    viewport.height = d.viewport[3];
    viewport.minDepth = 0.0f;
    viewport.maxDepth = 1.0f;
    dispatchPacket(device, CommandType::SetViewport, &viewport, PacketContext{});
  }
  if (d.scissor[2] != 0) {
    cmd::SetScissor scissor{};
    scissor.x = static_cast<int32_t>(d.scissor[0]);
    scissor.y = static_cast<int32_t>(d.scissor[1]);
    scissor.width = d.scissor[2];
    scissor.height = d.scissor[3];
    dispatchPacket(device, CommandType::SetScissor, &scissor, PacketContext{});
  }
}

void DeclaredPasses::end(Device& device, size_t pass) const {
  if (queues_ && queueOf(pass) != QueueClass::Graphics) device.preferQueue(QueueClass::Graphics);
  if (passes_[pass].target.isNull()) return;
  const cmd::EndRenderPass end{};
  dispatchPacket(device, CommandType::EndRenderPass, &end, PacketContext{});
}

PassCursor::PassCursor(const DeclaredPasses& passes, Device& device, size_t first, size_t end)
    : passes_(passes), device_(device), end_(end) {
  const size_t count = passes.count();
  // Passes that begin before `first` were begun by earlier jobs (an empty one at `first` is this job's).
  while (toBegin_ < count && passes.start(toBegin_) < first) ++toBegin_;
  if (toBegin_ > 0 && passes.start(toBegin_) > first) open_ = toBegin_ - 1;
  findNext();
}

void PassCursor::findNext() {
  next_ = DeclaredPasses::kNone;
  if (open_ != DeclaredPasses::kNone) next_ = passes_.start(open_ + 1);
  if (toBegin_ < passes_.count()) next_ = std::min(next_, passes_.start(toBegin_));
}

bool PassCursor::ends(size_t pass) const {
  return passes_.start(pass + 1) <= end_;
}

void PassCursor::at(size_t position) {
  if (open_ != DeclaredPasses::kNone && passes_.start(open_ + 1) == position) {
    passes_.end(device_, open_);
    open_ = DeclaredPasses::kNone;
  }
  while (toBegin_ < passes_.count() && passes_.start(toBegin_) == position) {
    const size_t pass = toBegin_++;
    passes_.begin(device_, pass, ends(pass));
    if (passes_.start(pass + 1) != position) {
      open_ = pass;
      break;
    }
    passes_.end(device_, pass);  // no key names it
  }
  findNext();
}

}  // namespace reel
