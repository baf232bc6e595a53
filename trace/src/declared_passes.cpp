#include "reel/trace/declared_passes.h"

#include <cstring>

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

}  // namespace reel::trace
