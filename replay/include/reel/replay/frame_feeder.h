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
#include <map>
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

  // Which of a frame's resource requests submitFrame records.
  enum class Requests : uint8_t {
    All,
    // Creates and writes, not destroys: a replay stopped inside the frame keeps every resource the frame
    // uses readable, and undoing the frame is then destroying what it created and rewriting contents.
    HoldDestroys,
  };
  // Records one frame into the renderer; the caller kicks it (with any FrameOptions).
  Result<void> submitFrame(const trace::FrameRecord& frame, Requests requests = Requests::All);

  // A packet of a frame as submitFrame records it: this build's command and the payload with the edit
  // applied for sorted position `editPosition` of frame `frame`. The payload stays valid until the next
  // call. For a replay that sends packets of a frame again in an order of its own (ReplaySession's
  // continued steps), so that they are the packets the whole frame would have sent.
  struct Prepared {
    CommandType type = CommandType::Count;
    std::span<const std::byte> payload;
    std::span<const std::byte> aux;
  };
  Result<Prepared> prepare(uint64_t frame, uint64_t editPosition, const trace::PacketRecord& packet);
  // This build's command for a trace's command id; nothing when this build cannot replay it.
  std::optional<CommandType> commandType(uint16_t traceId) const;
  const trace::CommandMap& commands() const { return commandMap_; }

  // A resource the replay created and has not destroyed: its create request as recorded (edited), and a
  // shader's code. Buffers' and textures' contents live on the device only.
  struct LiveResource {
    ResourceKind kind = ResourceKind::Count;
    uint32_t handle = 0;
    CommandType createType = CommandType::Count;
    std::vector<std::byte> create;
    std::vector<std::byte> code;
    friend bool operator==(const LiveResource&, const LiveResource&) = default;
  };
  // Live resources by liveKey(kind, handle): kinds in ResourceKind order, which is the order a resource's
  // dependencies are created in (textures before the render targets made of them, shaders before
  // pipelines), then by handle.
  using LiveMap = std::map<uint64_t, LiveResource>;
  static uint64_t liveKey(ResourceKind kind, uint32_t handle) { return uint64_t(kind) << 32 | handle; }
  const LiveMap& liveResources() const { return live_; }
  const LiveResource* live(ResourceKind kind, uint32_t handle) const;

  // Records a create request for `resource` (with `initial` as a buffer's or mip 0's contents, a
  // shader's code otherwise) / a destroy request for a live resource; the caller kicks. For a replay that
  // puts back the resources of an earlier state (ReplaySession's checkpoints).
  Result<void> create(const LiveResource& resource, std::span<const std::byte> initial);
  Result<void> destroy(ResourceKind kind, uint32_t handle);

  // Records a destroy request for every resource the trace created that is still alive (the caller
  // kicks): the device ends up as before the first frame, and a new feeder can start over.
  void destroyAll();

  // What the replay knows of a live render target / texture (their create requests).
  // The descriptor a live resource was created with; nothing when it is not live.
  template <ResourceKind K>
  std::optional<DescOf<K>> desc(Handle<K> handle) const {
    using Create = typename ResourceCommands<K>::Create;
    const LiveResource* resource = live(K, handle.value);
    if (!resource || resource->create.size() != sizeof(Create)) return std::nullopt;
    Create create;
    std::memcpy(static_cast<void*>(&create), resource->create.data(), sizeof create);
    return create.desc;
  }

  // Frames whose replayed sorted order differed from the recorded one (render thread writes, read after
  // Renderer::flushAndWait).
  struct SortMismatch {
    uint64_t frame;
    uint64_t recorded;
    uint64_t replayed;
  };
  std::vector<SortMismatch> sortMismatches() const;
  // Trace frames fed that the capture had dropped (FrameRecord::dropped): their requests ran, no commands.
  std::vector<uint64_t> droppedFrames() const;

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

  void track(CommandType type, std::span<const std::byte> payload, std::span<const std::byte> code);

  Renderer& renderer_;
  LiveMap live_;
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
  // A recorded frame's hash, paired with the renderer frame it is kicked as: frames a replay kicks
  // without a recorded one (resources alone, a checkpoint's restore, a continued step) are not checked.
  struct ExpectedHash {
    uint64_t rendererFrame;
    uint64_t traceFrame;
    uint64_t recorded;
  };
  std::deque<ExpectedHash> expectedHashes_;  // kick order
  std::vector<SortMismatch> mismatches_;
  std::vector<uint64_t> dropped_;      // trace frame numbers, each once
  ObserverRegistration registration_;  // last: ends before the members onFrame uses
};

}  // namespace reel::replay
