#pragma once
// The render thread's material-pass step (MaterialBinder in command_bucket.h): between the sort and the
// observers, each key of a bucket with a binder that names a material gets a new chain in its bucket's
// stream,
//
//   [pass 0's packets] -> a shared reference to each packet of the key's chain -> [pass 1's packets] ->
//   the references again -> ...
//
// and the key (its KeyEntry, its merged packet and its sorted entry) points at that chain. From then on
// the passes are ordinary packets: observers and the capture see them, translation dispatches them like
// any chain, and a replay (which has no binder) refills them as recorded. The references carry the
// original links' tags; the key's own packets are written once however many passes there are.
//
// Implemented in command_bucket.cpp, beside the packet layout it writes.

#include <span>

#include "reel/runtime/frame.h"

namespace reel {

class MaterialPasses {
 public:
  // `mergedBuckets` ascends (the merge goes bucket by bucket). A stream is expanded once: a retained
  // stream handed to several frames keeps the chains of its first.
  static void expand(std::span<const FrameBucketView> buckets, std::span<SortEntry> sorted,
                     std::span<uint32_t> mergedPackets, std::span<const uint16_t> mergedBuckets);
};

}  // namespace reel
