// Transient textures sharing memory (texture_usage::kTransient; docs/passes-and-graph.md, step 3).
//
// Before each frame the renderer hands the lives of the frame's transient textures (frame_graph.h), or
// says that it does not know them (a frame without a graph). A texture may share memory
// when its first pass writes it without reading it (its old contents are not needed) and, on a device with
// several queues, when every pass that touches it runs on the graphics queue: barriers on one queue order
// the hand-over, and no semaphore would. The device keeps the sharing it has while it is safe for the frame
// (no two textures on one memory with overlapping lives, none that may not share) and as good as the
// frame's own plan (aliasGroups); otherwise it binds new images: to one allocation per group of the plan,
// or to memory of their own. Images are bound to memory for good, so a new binding is a new image (and
// views); the old ones go to the frame's garbage.
//
// Barriers: each shared memory remembers which texture used it last (AliasMemory::lastUser); the first use
// of another one starts from UNDEFINED and a write of every stage and access (barriers.h, handedOver), so
// that it waits for whatever the other did with the memory before (on the one queue, earlier in
// submission order), in a pass, an upload or a readback alike. A translation job (wide frames) keeps each
// memory's last user in the job: a texture taking the memory from another the job used hands it over in
// the job's command buffer (handOverInJob); the job's first user of a memory is handed it before the job,
// when the jobs are joined in order (endJobs), which then leaves the memory to the job's last user.
#include <algorithm>
#include <map>

#include "vulkan_device_impl.h"

namespace reel {

Result<void> VulkanDeviceImpl::rebindTexture(vk::Texture& texture, std::shared_ptr<vk::AliasMemory> shared) {
  auto created = createImage(texture);
  if (!created) return created.error();
  vk::OwnedImage owned = std::move(*created);
  const VkImage image = owned.get();
  vk::Allocation own;
  if (shared) {
    if (VkResult r =
            fns_->t.vkBindImageMemory(fns_->device, image, shared->memory.memory, shared->memory.offset);
        r != VK_SUCCESS) {
      return vk::vkError("vkBindImageMemory", r);
    }
  } else {
    auto memory = allocator_->allocateFor(image, MemoryDomain::Device);
    if (!memory) return memory.error();
    own = std::move(*memory);
  }
  auto old = std::make_unique<vk::RetiredImage>();
  old->memory = std::move(texture.memory);
  old->alias = std::move(texture.alias);
  old->image = std::move(texture.image);
  old->view = std::move(texture.view);
  old->attachmentView = std::move(texture.attachmentView);
  retire(std::move(old));
  texture.image = std::move(owned);
  texture.memory = std::move(own);
  texture.alias = std::move(shared);
  texture.sync = vk::SyncState{};
  texture.queues = vk::QueueTimes{};
  auto listed = std::find(aliased_.begin(), aliased_.end(), texture.handle);
  if (texture.alias && listed == aliased_.end()) aliased_.push_back(texture.handle);
  if (!texture.alias && listed != aliased_.end()) aliased_.erase(listed);
  nameObject(VK_OBJECT_TYPE_IMAGE, reinterpret_cast<uint64_t>(image), "texture",
             TextureHandle{texture.handle}.index());
  return makeTextureViews(texture);
}

void VulkanDeviceImpl::planTransients(std::span<const TransientLife> lives, bool known) {
  if (!frameRecording() || lost_) return;
  readBackThisFrame_.clear();
  {
    std::lock_guard lock(sharedMutex_);
    for (const ReadbackRequest& request : readbackRequests_) {
      if (request.frame <= frame_) readBackThisFrame_.push_back(request.texture.value);
    }
  }
  std::sort(readBackThisFrame_.begin(), readBackThisFrame_.end());
  struct Shareable {
    vk::Texture* texture;
    TransientLife life;
    VkMemoryRequirements requirements;
  };
  std::vector<Shareable> shareable;
  std::vector<vk::Texture*> alone;  // touched this frame (or, lives unknown, maybe), may not share
  if (known) {
    for (const TransientLife& life : lives) {
      auto* slot = textures_.find(TextureHandle{life.texture});
      if (!slot) continue;
      vk::Texture& texture = **slot;
      auto info =
          vk::make<VkImageMemoryRequirementsInfo2>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2);
      info.image = texture.image.get();
      auto dedicated =
          vk::make<VkMemoryDedicatedRequirements>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS);
      auto requirements =
          vk::make<VkMemoryRequirements2>(VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicated);
      fns_->t.vkGetImageMemoryRequirements2(fns_->device, &info, &requirements);
      if (!life.discardable || (severalQueues_ && !life.graphicsOnly) ||
          dedicated.requiresDedicatedAllocation) {
        alone.push_back(&texture);
      } else {
        shareable.push_back({&texture, life, requirements.memoryRequirements});
      }
    }
  } else {
    for (const uint32_t handle : aliased_) {
      if (auto* slot = textures_.find(TextureHandle{handle})) alone.push_back(slot->get());
    }
  }
  aliased_.erase(std::remove_if(aliased_.begin(), aliased_.end(),
                                [&](uint32_t handle) { return !textures_.find(TextureHandle{handle}); }),
                 aliased_.end());

  // The sharing in place: safe for this frame, and what it saves.
  bool safe =
      std::none_of(alone.begin(), alone.end(), [](const vk::Texture* t) { return t->alias != nullptr; });
  std::map<const vk::AliasMemory*, std::vector<size_t>> bound;
  for (size_t i = 0; i < shareable.size(); ++i) {
    if (shareable[i].texture->alias) bound[shareable[i].texture->alias.get()].push_back(i);
  }
  uint64_t current = 0;
  for (const auto& [memory, members] : bound) {
    uint64_t sizes = 0;
    for (size_t a = 0; a < members.size(); ++a) {
      const TransientLife& la = shareable[members[a]].life;
      sizes += shareable[members[a]].requirements.size;
      for (size_t b = a + 1; b < members.size(); ++b) {
        const TransientLife& lb = shareable[members[b]].life;
        if (la.first <= lb.last && lb.first <= la.last) safe = false;
      }
    }
    if (members.size() > 1) current += sizes - std::min(sizes, memory->memory.size);
  }

  std::vector<AliasItem> items;
  for (const Shareable& s : shareable) {
    items.push_back({s.life.first, s.life.last, s.requirements.size, s.requirements.alignment,
                     s.requirements.memoryTypeBits});
  }
  const std::vector<AliasGroup> groups = aliasGroups(items);
  const uint64_t planned = aliasedBytesSaved(items, groups);
  uint64_t saved = current;
  if (!safe || planned > current) {
    auto rebind = [&](vk::Texture& texture, std::shared_ptr<vk::AliasMemory> shared) {
      if (auto r = rebindTexture(texture, std::move(shared)); !r) {
        reportError("frame " + std::to_string(frame_) + ": " + formatHandle(TextureHandle{texture.handle}) +
                    " (transient): " + r.error().message);
      }
    };
    for (vk::Texture* texture : alone) {
      if (texture->alias) rebind(*texture, nullptr);
    }
    saved = 0;
    for (const AliasGroup& g : groups) {
      std::shared_ptr<vk::AliasMemory> shared;
      if (g.items.size() > 1) {
        vk::MemoryAllocator::Request request;
        request.requirements = {g.size, g.alignment, g.memoryTypes};
        request.domain = MemoryDomain::Device;
        request.tiling = vk::Tiling::Optimal;
        if (auto memory = allocator_->allocate(request); memory) {
          shared = std::make_shared<vk::AliasMemory>();
          shared->memory = std::move(*memory);
          uint64_t sizes = 0;
          for (const size_t i : g.items) sizes += items[i].size;
          saved += sizes - g.size;
        } else {
          reportError("frame " + std::to_string(frame_) +
                      ": transient textures keep their own memory: " + memory.error().message);
        }
      }
      for (const size_t i : g.items) {
        vk::Texture& texture = *shareable[i].texture;
        if (shared || texture.alias) rebind(texture, shared);
      }
    }
  }
  if (known) {
    uint64_t transient = 0;
    for (const Shareable& s : shareable) transient += s.requirements.size;
    for (const vk::Texture* t : alone) transient += t->memory.size;
    stats_.memory.transientBytes = transient;
    stats_.memory.aliasedBytesSaved = saved;
  }
}

}  // namespace reel
