#pragma once
// Where a trace writer's bytes go: a file created for writing, behind an interface so that the ways a
// disk fails (full, a short write, an interrupted write, a failed sync) can be made to happen in a test,
// without root. TraceFileWriter turns each into one error naming the file and the byte it stopped at.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "reel/runtime/result.h"

namespace reel::trace {

class FileSink {
 public:
  struct Written {
    size_t bytes = 0;  // as write(2): fewer than asked is a short write, to be continued
    int error = 0;     // an errno value (EINTR: try again); `bytes` is then 0
  };

  virtual ~FileSink() = default;
  virtual Written write(const void* data, size_t size) = 0;
  virtual int sync() = 0;   // the data on the device (fdatasync): 0 or an errno value
  virtual int close() = 0;  // 0 or an errno value; called once, last
};

// Creates (or truncates) `path` as a file the trace is written to; the error names the path.
using FileSinkFactory = std::function<Result<std::unique_ptr<FileSink>>(const std::string& path)>;
Result<std::unique_ptr<FileSink>> createFileSink(const std::string& path);

}  // namespace reel::trace
