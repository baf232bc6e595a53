#pragma once
// A bucket whose key type is the one a trace recorded: its bit layout comes from the trace header,
// so a replayed key prints as the capture's fields even when this build's key types differ.

#include <string>
#include <vector>

#include "reel/runtime/command_bucket.h"

namespace reel::replay {

class RecordedBucket final : public CommandBucketBase {
 public:
  struct Field {
    std::string name;
    KeyFieldLayout layout;  // layout.name points into `name`
  };

  RecordedBucket(std::string name, std::string keyType, std::vector<KeyFieldLayout> layout,
                 std::vector<std::string> fieldNames);
  // Keys as plain 64-bit numbers (KeyTraits<uint64_t>): for packets a replay adds in an order of its own.
  explicit RecordedBucket(std::string name);

  // Packets as a trace holds them: type and payload bytes (CommandBucketBase says how each works). Only
  // here, not on the CommandBucket<Key> apps record into.
  using CommandBucketBase::addBytes;
  using CommandBucketBase::addSharedBytes;
  using CommandBucketBase::appendBytes;
  using CommandBucketBase::appendSharedBytes;
  using CommandBucketBase::createSharedBytes;
  using CommandBucketBase::tagBytes;

  std::span<const KeyFieldLayout> keyLayout() const override { return layout_; }
  std::string formatKey(uint64_t bits) const override { return formatKeyWithLayout(bits, layout_); }
  // Replayed packets need no material binder: the capture recorded what the app dispatched.
  bool keyMaterial(uint64_t, MaterialId&) const override { return false; }

 private:
  std::string keyType_;
  std::vector<std::string> fieldNames_;  // storage for layout_[i].name
  std::vector<KeyFieldLayout> layout_;
};

}  // namespace reel::replay
