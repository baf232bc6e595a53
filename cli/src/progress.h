#pragma once
// A progress bar for long operations, on stderr only (stdout stays the command's result, JSON or text).
// Drawn when stderr is a terminal, so that scripts and CI logs stay quiet; `--progress` forces it, and
// where stderr is not a terminal it then prints a line at every tenth instead of redrawing a bar.

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace reel::cli {

class Progress {
 public:
  // forced: --progress (shown whatever stderr is).
  Progress(std::string label, uint64_t total, bool forced = false)
      : label_(std::move(label)), total_(total), terminal_(isatty(2) != 0), enabled_(forced || terminal_) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // A new total (a bisect learns how many probes it expects after it started).
  void setTotal(uint64_t total) { total_ = total; }

  void step(uint64_t done) {
    if (!enabled_ || total_ == 0) return;
    const int percent = static_cast<int>(std::min(done, total_) * 100 / total_);
    if (percent == lastPercent_) return;
    if (!terminal_) {
      // A log gets a line at 0, 10, ..., 100%: no carriage returns to garble it.
      if (lastPercent_ >= 0 && percent / 10 == lastPercent_ / 10) return;
      lastPercent_ = percent;
      std::fprintf(stderr, "%s: %d%% (%llu of %llu)\n", label_.c_str(), percent,
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_));
      std::fflush(stderr);
      return;
    }
    lastPercent_ = percent;
    const int filled = percent * 30 / 100;
    std::fprintf(stderr, "\r%s [%.*s%*s] %3d%%", label_.c_str(), filled, "##############################",
                 30 - filled, "", percent);
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_ && terminal_ && lastPercent_ >= 0)
      std::fprintf(stderr, "\r%*s\r", static_cast<int>(label_.size()) + 40, "");
    lastPercent_ = -1;
  }

 private:
  std::string label_;
  uint64_t total_;
  bool terminal_;
  bool enabled_;
  int lastPercent_ = -1;
};

}  // namespace reel::cli
