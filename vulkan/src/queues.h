#pragma once
// Several queues (docs/passes-and-graph.md, step 5). A device with a compute-only or a transfer-only queue
// family opens one queue on each beside the graphics+compute queue; each queue has a timeline semaphore,
// and each run of consecutive commands on one queue (a segment) is one submission that signals the next
// value of its queue's timeline.
//
// Hazards across queues are found per resource, where barriers are: each buffer and texture remembers the
// last segment of each queue that used it and that wrote it (QueueTimes). A use on queue K waits, through
// K's next submission, for the other queues' segments it conflicts with: a read for their last write, a
// write or a layout change for their last use. A resource's SyncState speaks for the queue that used it
// last; when another queue takes it, the state is parked. A semaphore wait makes the other queue's writes
// available and visible, but not K's own earlier writes, and it leaves layouts as they are: so K goes on
// from its parked state when no other queue wrote (or changed the layout) since, and otherwise from a
// state that waits for everything (a barrier from ALL_COMMANDS / MEMORY_WRITE, which also chains the
// layout change after the semaphore).
// Resources are created with VK_SHARING_MODE_CONCURRENT over the queues' families, so no ownership moves.
//
// One queue family (lavapipe), or REEL_QUEUES=1: no segments, no QueueTimes bookkeeping, the barriers of a
// single queue exactly as before.

#include <cstdint>

#include "vk.h"

namespace reel::vk {

enum class QueueKind : uint8_t { Graphics, Compute, Transfer };
inline constexpr size_t kQueueKinds = 3;

// The segment a queue is recording: what its barriers may name and what it must wait for.
struct QueueSegment {
  QueueKind kind = QueueKind::Graphics;
  uint64_t serial = 1;                   // the timeline value its submission signals
  uint64_t waited[kQueueKinds] = {};     // other queues' values this queue's submissions already waited for
  uint64_t needs[kQueueKinds] = {};      // values this segment's submission must wait for
  VkPipelineStageFlags2 stages = ~0ull;  // the stages its family supports
  VkAccessFlags2 access = ~0ull;         // the accesses those stages may name
};

// The stages and accesses a queue of `kind` supports in barriers (graphics: everything).
VkPipelineStageFlags2 supportedStages(QueueKind kind);
VkAccessFlags2 supportedAccess(QueueKind kind);

// Whether a queue whose family copies images at `granularity` (minImageTransferGranularity) may copy the
// region at (x, y) of `width` x `height` texels of a mip of `mipWidth` x `mipHeight`: its offset a multiple
// of the granularity, and its extent too unless it reaches the mip's edge; a granularity of 0 copies
// whole mips only.
bool copyFitsGranularity(VkExtent3D granularity, uint32_t mipWidth, uint32_t mipHeight, uint32_t x,
                         uint32_t y, uint32_t width, uint32_t height);

}  // namespace reel::vk
