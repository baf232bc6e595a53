#pragma once
// Feeds a trace's recorded frames back through a Renderer: the same sorted-submit path the app took
// (wgpu's player calls the public API; there is no replay-only renderer). The feeder rebuilds the
// resources alive at the capture start, then per frame records the frame's resource requests and
// refills buckets with the recorded keys, chains, shared packets, auxiliary data and tags; the caller
// kicks. The records come from reel::trace::TraceReader, which checked every index and size in them;
// the feeder checks that each command maps onto this build's.
//
// Handles are replayed as recorded (ResourceContext::replayRequest adopts them), so packets are
// submitted byte for byte. A trace is replayable when every command it uses has the layout this build
// has (same name and layout hash); commands are matched by name, so a reordered command list still
// replays.

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "reel/replay/frame_order.h"
#include "reel/runtime/renderer.h"
#include "reel/trace/command_map.h"
#include "reel/trace/header.h"
#include "reel/trace/records.h"

namespace reel::replay {

class RecordedBucket;

// Changes a packet on its way into the renderer (edit-and-replay, and the tests that break a frame on
// purpose): the packet's frame number, its position in the frame's sorted order (resource requests:
// UINT64_MAX), its type and a writable copy of its payload.
using PacketEdit = std::function<void(uint64_t frame, uint64_t sortedPosition, CommandType type,
                                      std::span<std::byte> payload)>;

// Changes a key on its way into its bucket (the tests that break a frame's sort on purpose).
using KeyEdit = std::function<uint64_t(uint64_t frame, std::string_view bucket, uint64_t key)>;

class FrameFeeder final : public FrameObserver {
 public:
  // Adds itself to the renderer's observers (beside any others, such as a capture of the replay), to
  // compare each replayed frame's sorted order with the one recorded. Fails when the header's command
  // table cannot be mapped onto this build's.
  static Result<std::unique_ptr<FrameFeeder>> create(Renderer& renderer, const trace::TraceHeader& header,
                                                     PacketEdit edit = {}, KeyEdit keyEdit = {});
  ~FrameFeeder() override;

  // The resources alive at the capture start: recorded as create requests (with their contents as
  // initial data) into the next frame the caller kicks.
  Result<void> submitResources(const trace::ResourcesRecord& resources);

  // Records one frame into the renderer; the caller kicks it (with any FrameOptions).
  Result<void> submitFrame(const trace::FrameRecord& frame);

  // Records a destroy request for every resource the trace created that is still alive (the caller
  // kicks): the device ends up as before the first frame, and a new feeder can start over.
  void destroyAll();

  // What the replay knows of a live render target / texture (their create requests).
  const RenderTargetDesc* renderTarget(RenderTargetHandle target) const;
  const TextureDesc* texture(TextureHandle texture) const;

  // Frames whose replayed sorted order differed from the recorded one (render thread writes, read after
  // Renderer::flushAndWait).
  struct SortMismatch {
    uint64_t frame;
    uint64_t recorded;
    uint64_t replayed;
  };
  std::vector<SortMismatch> sortMismatches() const;

  void onFrame(const FrameView& frame) override;

 private:
  FrameFeeder(Renderer& renderer, const trace::TraceHeader& header, trace::CommandMap commandMap,
              PacketEdit edit, KeyEdit keyEdit);
  std::span<const std::byte> edited(uint64_t frame, uint64_t position, CommandType type,
                                    std::span<const std::byte> payload);
  Result<CommandType> mapCommand(uint32_t traceId) const;
  Result<void> submitBucket(const trace::BucketRecord& bucket, size_t bucketIndex, uint64_t frame);
  RecordedBucket& bucketFor(const trace::BucketRecord& bucket);
  const char* intern(std::string_view s);

  void track(CommandType type, std::span<const std::byte> payload);

  Renderer& renderer_;
  // Live resources by kind (handle values), to destroy them all; and what targets and textures are.
  std::unordered_set<uint32_t> live_[static_cast<size_t>(ResourceKind::Count)];
  std::unordered_map<uint32_t, RenderTargetDesc> targets_;
  std::unordered_map<uint32_t, TextureDesc> textures_;
  const trace::TraceHeader& header_;
  PacketEdit edit_;
  KeyEdit keyEdit_;
  std::vector<std::byte> editBuffer_;
  std::vector<std::vector<uint64_t>> sortedStart_;  // [bucket][key]: sorted position of its first packet
  trace::CommandMap commandMap_;              // trace command id -> this build's type (Count: not replayable)
  std::vector<RecordedBucket*> buckets_;      // by the trace's bucket index
  std::unordered_set<std::string> strings_;   // tag strings: stable addresses for the frames' lifetimes
  std::vector<PacketHeader*> sharedPackets_;  // submitBucket's: by body, the shared packet recorded
  std::vector<SourceLocation> tagLocations_;  // submitBucket's: by tag, its interned strings

  mutable std::mutex mutex_;
  std::deque<std::pair<uint64_t, uint64_t>> expectedHashes_;  // (trace frame, recorded hash), kick order
  std::vector<SortMismatch> mismatches_;
  ObserverRegistration registration_;  // last: ends before the members onFrame uses
};

}  // namespace reel::replay
