#include "support/files.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace tsch {

ProcessResult run_process(const std::vector<std::string>& argv) {
  ProcessResult result;
  int fds[2];
  if (argv.empty() || pipe2(fds, O_CLOEXEC) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    result.output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (rc != 0) {
    result.output = argv[0] + ": " + std::strerror(rc);
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/tsch.XXXXXX";
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a temporary directory: " + std::string(std::strerror(errno)));
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void move_file_into_place(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) == 0) return;
  if (errno != EXDEV) throw std::runtime_error("cannot write " + to + ": " + std::strerror(errno));
  // Another file system: copy beside the target under a fresh name, then rename (atomic).
  std::string dir = std::filesystem::path(to).parent_path().string();
  std::string tmp = (dir.empty() ? std::string(".") : dir) + "/.tsch-tmp.XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) throw std::runtime_error("cannot write " + to + ": " + std::strerror(errno));
  close(fd);
  std::error_code ec;
  std::filesystem::copy_file(from, tmp, std::filesystem::copy_options::overwrite_existing, ec);
  if (!ec) std::filesystem::permissions(tmp, std::filesystem::status(from).permissions(), ec);
  if (ec || std::rename(tmp.c_str(), to.c_str()) != 0) {
    std::string why = ec ? ec.message() : std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write " + to + ": " + why);
  }
}

}  // namespace tsch
