// The golden scripts (tests/golden/**/*.tsch) as inputs for unit tests that compare two
// implementations of the same front-end stage.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tsch::testing {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every golden script, sorted (so mutation tests see a stable order).
inline std::vector<std::filesystem::path> golden_scripts() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(TSCH_GOLDEN_DIR)) {
    if (e.path().extension() == ".tsch") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace tsch::testing
