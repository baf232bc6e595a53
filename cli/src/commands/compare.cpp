// reel compare A B: two PNGs, or two folders of them matched by file name.

#include "reel/image/compare.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "../progress.h"
#include "../subcommand.h"
#include "reel/json/json.h"

namespace reel::cli {
namespace {

namespace fs = std::filesystem;

struct Pair {
  std::string name;
  fs::path actual, expected;
};

class CompareCommand final : public Subcommand {
 public:
  const char* name() const override { return "compare"; }
  const char* description() const override {
    return "Compare two PNG images, or two folders of them by file name; exit 1 when over tolerance";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("A", a_, "Image or folder (actual)")->required();
    app.add_option("B", b_, "Image or folder (expected)")->required();
    app.add_option("--threshold", tolerance_.threshold, "Per-channel difference allowed, 0-255 (default 0)")
        ->check(CLI::Range(0, 255));
    app.add_option("--max-diff-fraction", tolerance_.maxDiffFraction,
                   "Share of pixels allowed to differ beyond the threshold, 0-1 (default 0)")
        ->check(CLI::Range(0.0, 1.0));
    app.add_option("--diff", diff_, "Write the diff image here (a folder when comparing folders)");
    app.add_flag("--json", json_, "Print one JSON object instead of text");
  }

  int run() override {
    const std::vector<Pair> pairs = collectPairs();
    const bool folders = fs::is_directory(a_);
    if (!diff_.empty() && folders) {
      std::error_code ec;
      fs::create_directories(diff_, ec);
      if (ec || !fs::is_directory(diff_)) throw BadInput(diff_.string() + ": cannot create the diff folder");
    }
    uint64_t differed = 0;
    std::string jsonPairs;
    Progress progress("compare", pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
      const Pair& pair = pairs[i];
      progress.step(i);
      auto actual = image::readPng(pair.actual);
      if (!actual) throw BadInput(actual.error().message);
      auto expected = image::readPng(pair.expected);
      if (!expected) throw BadInput(expected.error().message);
      const image::Comparison c = image::compare(*actual, *expected, tolerance_);
      if (!c.matches) ++differed;
      fs::path diffPath;
      if (!diff_.empty() && c.sameSize && (!folders || !c.matches)) {
        diffPath = folders ? diff_ / pair.name : diff_;
        if (auto written = image::writePng(diffPath, c.diff); !written)
          throw BadInput(written.error().message);
      }
      if (json_) {
        JsonObject o;
        o.add("name", pair.name).add("match", c.matches).add("same_size", c.sameSize);
        o.add("pixels", c.pixels).add("differing_pixels", c.differingPixels);
        o.add("differing_fraction", c.differingFraction()).add("max_difference", c.maxDifference);
        o.add("psnr_db", c.psnr);  // null when the images are identical (infinite PSNR)
        if (!diffPath.empty()) o.add("diff", diffPath.string());
        jsonPairs += (jsonPairs.empty() ? "" : ",") + o.str();
      } else {
        std::printf("%s: %s\n", pair.name.c_str(), c.summary().c_str());
      }
    }
    progress.finish();
    const bool ok = differed == 0;
    if (json_) {
      JsonObject summary;
      summary.add("result", ok ? "match" : "differ")
          .add("compared", uint64_t{pairs.size()})
          .add("differed", differed);
      summary.add("threshold", tolerance_.threshold).add("max_diff_fraction", tolerance_.maxDiffFraction);
      summary.raw("images", "[" + jsonPairs + "]");
      std::printf("%s\n", summary.str().c_str());
    } else if (pairs.size() > 1) {
      std::printf("%s: %llu of %zu images differ\n", ok ? "match" : "differ",
                  static_cast<unsigned long long>(differed), pairs.size());
    }
    return ok ? kSuccess : kCheckFailed;
  }

 private:
  std::vector<Pair> collectPairs() const {
    std::error_code ec;
    for (const fs::path& p : {a_, b_}) {
      if (!fs::exists(p, ec)) throw BadInput(p.string() + ": no such file or folder");
    }
    const bool aDir = fs::is_directory(a_), bDir = fs::is_directory(b_);
    if (aDir != bDir) {
      throw BadInput((aDir ? a_ : b_).string() + " is a folder and " + (aDir ? b_ : a_).string() +
                     " a file: compare needs two images or two folders");
    }
    if (!aDir) return {Pair{a_.filename().string(), a_, b_}};
    std::vector<Pair> pairs;
    for (const auto& entry : fs::directory_iterator(a_)) {
      if (entry.path().extension() != ".png") continue;
      const fs::path other = b_ / entry.path().filename();
      if (!fs::exists(other))
        throw BadInput(other.string() + ": no such file (present in " + a_.string() + ")");
      pairs.push_back({entry.path().filename().string(), entry.path(), other});
    }
    for (const auto& entry : fs::directory_iterator(b_)) {
      if (entry.path().extension() == ".png" && !fs::exists(a_ / entry.path().filename())) {
        throw BadInput((a_ / entry.path().filename()).string() + ": no such file (present in " + b_.string() +
                       ")");
      }
    }
    if (pairs.empty()) throw BadInput(a_.string() + ": no PNG images in the folder");
    std::sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) { return x.name < y.name; });
    return pairs;
  }

  fs::path a_, b_, diff_;
  image::Tolerance tolerance_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeCompareCommand() {
  return std::make_unique<CompareCommand>();
}

}  // namespace reel::cli
