#pragma once
// A progress bar for long operations, drawn on stderr only when stderr is a terminal: scripts and CI
// logs stay quiet.

#include <unistd.h>

#include <cstdio>
#include <string>

namespace reel::cli {

class Progress {
 public:
  Progress(std::string label, uint64_t total) : label_(std::move(label)), total_(total), enabled_(isatty(2) != 0) {}
  ~Progress() { finish(); }

  void step(uint64_t done) {
    if (!enabled_ || total_ == 0) return;
    const int percent = static_cast<int>(done * 100 / total_);
    if (percent == lastPercent_) return;
    lastPercent_ = percent;
    const int filled = percent * 30 / 100;
    std::fprintf(stderr, "\r%s [%.*s%*s] %3d%%", label_.c_str(), filled, "##############################",
                 30 - filled, "", percent);
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_ && lastPercent_ >= 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(label_.size()) + 40, "");
    lastPercent_ = -1;
  }

 private:
  std::string label_;
  uint64_t total_;
  bool enabled_;
  int lastPercent_ = -1;
};

}  // namespace reel::cli
