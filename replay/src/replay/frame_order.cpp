#include "reel/replay/frame_order.h"

namespace reel::replay {

std::vector<PacketRef> packetsInOrder(const trace::FrameRecord& frame, const std::vector<OrderedKey>& order) {
  std::vector<PacketRef> packets;
  for (const OrderedKey& k : order) {
    const size_t links = frame.buckets[k.bucket].chainLength(k.key);
    for (size_t l = 0; l < links; ++l)
      packets.push_back(PacketRef{k.bucket, k.key, static_cast<uint32_t>(l)});
  }
  return packets;
}

}  // namespace reel::replay
