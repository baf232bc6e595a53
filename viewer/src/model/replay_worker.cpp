#include "model/replay_worker.h"

namespace reel::viewer {

ReplayWorker::ReplayWorker(std::string tracePath, DeviceChoice device) {
  thread_ = std::thread([this, p = std::move(tracePath), d = std::move(device)] { run(p, d); });
}

ReplayWorker::~ReplayWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ReplayWorker::request(ReplayRequest request) {
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(request);
  }
  wake_.notify_all();
}

std::optional<ReplayResult> ReplayWorker::poll() {
  std::lock_guard lock(mutex_);
  std::optional<ReplayResult> out = std::move(result_);
  result_.reset();
  return out;
}

bool ReplayWorker::busy() const {
  std::lock_guard lock(mutex_);
  return opening_ || running_ || (pending_.has_value() && status_.ready);
}

void ReplayWorker::waitIdle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return !opening_ && !running_ && (!pending_ || !status_.ready); });
}

ReplayWorker::Status ReplayWorker::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

void ReplayWorker::run(std::string path, DeviceChoice device) {
  auto session = SteppingReplay::open(path, device);
  {
    std::lock_guard lock(mutex_);
    opening_ = false;
    if (session) {
      status_.ready = true;
      status_.device = session.value()->deviceInfo().name;
      status_.deviceNote = session.value()->deviceNote();
      status_.rasterizes = session.value()->rasterizes();
    } else {
      status_.error = session.error().message;
    }
  }
  idle_.notify_all();
  if (!session) {
    // Nothing can run; wait for the end, answering nothing (status() says why).
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return stop_; });
    return;
  }
  for (;;) {
    ReplayRequest request;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      request = std::move(*pending_);
      pending_.reset();
      running_ = true;
    }
    ReplayResult result{request, session.value()->run(request)};
    {
      std::lock_guard lock(mutex_);
      // A result the UI never polled is replaced, but what the device reported then is still news.
      if (result_ && result_->outcome && result.outcome) {
        std::vector<std::string>& errors = result.outcome.value().deviceErrors;
        const std::vector<std::string>& unseen = result_->outcome.value().deviceErrors;
        errors.insert(errors.begin(), unseen.begin(), unseen.end());
      }
      result_ = std::move(result);
      running_ = false;
    }
    idle_.notify_all();
  }
}

}  // namespace reel::viewer
