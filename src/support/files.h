// Child processes and files written safely: programs start from an argv (never through a
// shell), temporaries live in a private directory, and outputs appear whole or not at all.
#pragma once

#include <string>
#include <vector>

namespace tsch {

struct ProcessResult {
  int exit_code = -1;  // -1: could not be started or ended by a signal
  std::string output;  // stdout and stderr together
};

// Runs argv[0] (looked up in PATH) with the given arguments and waits for it.
ProcessResult run_process(const std::vector<std::string>& argv);

// A directory only this process uses (mkdtemp under $TMPDIR or /tmp), removed with all it
// holds when the object goes away. Throws std::runtime_error when it cannot be made.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Moves `from` onto `to` in one step (rename) when both are on one mounted volume, else copies
// to a temporary name beside `to` and renames that. Throws std::runtime_error on failure;
// `to` is then as it was.
void move_file_into_place(const std::string& from, const std::string& to);

}  // namespace tsch
