#include "reel/trace/declared_passes.h"

#include <algorithm>
#include <cstring>

#include "reel/trace/frame_order.h"

namespace reel::trace {

std::vector<DeclaredPass> declaredPasses(const FrameRecord& frame, const CommandMap& commands) {
  std::vector<DeclaredPass> passes;
  for (const RequestRecord& r : frame.requests) {
    cmd::DeclarePass declare;
    if (commands[r.type] != CommandType::DeclarePass || r.payload.size() != sizeof declare) continue;
    std::memcpy(&declare, r.payload.data(), sizeof declare);
    if (declare.pass != passes.size()) continue;
    passes.push_back({declare.desc, {reinterpret_cast<const char*>(r.aux.data()), r.aux.size()}});
  }
  return passes;
}

std::string formatRecordedKey(const TraceHeader& header, const BucketRecord& bucket, size_t key) {
  const uint16_t pass = bucket.pass(key);
  std::string fields = header.formatKey(bucket.keyType, bucket.key(key));
  return pass == PassId::kNone ? fields : "declared_pass=" + std::to_string(pass) + " " + fields;
}

FrameGraph frameGraph(const FrameRecord& frame, std::span<const DeclaredPass> declared,
                      const CommandMap& commands, const FrameGraphBuilder::TargetLookup& targetOf) {
  std::vector<PassDesc> descs;
  descs.reserve(declared.size() + 1);
  for (const DeclaredPass& pass : declared) descs.push_back(pass.desc);
  descs.emplace_back();  // the keys that name no declared pass
  FrameGraphBuilder builder(descs, targetOf);
  for (const OrderedKey& k : orderFrame(frame).sorted) {
    const BucketRecord& bucket = frame.buckets[k.bucket];
    const auto pass = static_cast<uint32_t>(std::min<size_t>(bucket.pass(k.key), declared.size()));
    bucket.forEachInChain(k.key,
                          [&](const PacketRecord& p) { builder.add(pass, commands[p.type], p.payload); });
  }
  return builder.finish();
}

}  // namespace reel::trace
