#pragma once
// Drives the replay engine (reel::replay::ReplaySession, through SteppingReplay's requests) on a thread of
// its own, so that the UI keeps drawing while a frame replays (and while the device starts, which takes a
// while on lavapipe). The UI posts requests; only the newest
// pending one runs (stepping quickly through commands skips the ones passed over), and the UI polls
// for the newest result.
//
// Threading: request/poll/status from the UI thread; the session only on the worker thread.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "model/stepping_replay.h"

namespace reel::viewer {

struct ReplayResult {
  ReplayRequest request;
  Result<ReplayOutcome> outcome;
};

class ReplayWorker {
 public:
  ReplayWorker(std::string tracePath, DeviceChoice device);
  ~ReplayWorker();
  ReplayWorker(const ReplayWorker&) = delete;
  ReplayWorker& operator=(const ReplayWorker&) = delete;

  // Replaces any request not yet started.
  void request(ReplayRequest request);
  // The newest finished result since the last poll, with the device errors of any it replaced.
  std::optional<ReplayResult> poll();
  // A request is pending or running.
  bool busy() const;
  // Blocks until no request is pending or running (screenshots, benchmarks).
  void waitIdle();

  struct Status {
    bool ready = false;      // the session opened
    std::string error;       // it could not open
    std::string device;      // the device's name
    std::string deviceNote;  // SteppingReplay::deviceNote
    bool rasterizes = false;
  };
  Status status() const;

 private:
  void run(std::string path, DeviceChoice device);

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::optional<ReplayRequest> pending_;
  std::optional<ReplayResult> result_;
  bool running_ = false;
  bool opening_ = true;
  bool stop_ = false;
  Status status_;
  std::thread thread_;
};

}  // namespace reel::viewer
