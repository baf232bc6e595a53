// A main() for the fuzz targets where libFuzzer is not there (gcc): runs every file of the folders (or
// the files) it is given through LLVMFuzzerTestOneInput, once, the way libFuzzer replays a corpus. The
// corpus kept in fuzz/corpus/ becomes a regression test that every compiler runs: an input that crashes,
// trips a sanitizer or breaks one of the checks in fuzz_common.h ends the process with a signal.
//   reel_fuzz_trace_corpus fuzz/corpus/trace

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(argv[i], ec)) {
        if (entry.is_regular_file()) inputs.push_back(entry.path());
      }
    } else if (fs::is_regular_file(argv[i], ec)) {
      inputs.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "%s: not a file or folder of fuzz inputs\n", argv[i]);
      return 2;
    }
  }
  // An empty corpus would pass while testing nothing.
  if (inputs.empty()) {
    std::fprintf(stderr, "no fuzz inputs given (usage: %s FOLDER_OR_FILE...)\n", argv[0]);
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path& path : inputs) {
    std::ifstream file(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (!file.good() && !file.eof()) {
      std::fprintf(stderr, "%s: cannot read\n", path.c_str());
      return 2;
    }
    // Named before it runs: a crash leaves the input's name as the last line.
    std::fprintf(stderr, "%s (%zu bytes)\n", path.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::fprintf(stderr, "%zu inputs, none crashed\n", inputs.size());
  return 0;
}
