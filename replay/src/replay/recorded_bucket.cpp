#include "reel/replay/recorded_bucket.h"

namespace reel::replay {

RecordedBucket::RecordedBucket(std::string name, std::string keyType, std::vector<KeyFieldLayout> layout,
                               std::vector<std::string> fieldNames)
    : CommandBucketBase(std::move(name), "", BucketConfig{}),
      keyType_(std::move(keyType)),
      fieldNames_(std::move(fieldNames)),
      layout_(std::move(layout)) {
  for (size_t i = 0; i < layout_.size() && i < fieldNames_.size(); ++i) layout_[i].name = fieldNames_[i].c_str();
  setKeyTypeName(keyType_.c_str());
}

RecordedBucket::RecordedBucket(std::string name)
    : RecordedBucket(std::move(name), KeyTraits<uint64_t>::kName,
                     {KeyTraits<uint64_t>::layout().begin(), KeyTraits<uint64_t>::layout().end()},
                     {KeyTraits<uint64_t>::layout()[0].name}) {}

}  // namespace reel::replay
