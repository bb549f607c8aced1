// Robustness test: runs tsch on N randomly truncated/mutated copies of the golden scripts
// and checks that every run exits 0 or 1 (never a signal), and that an exit of 1 comes with
// a `file:line:col: error:` line. Deterministic: the seed is fixed.
//
// usage: fuzz_golden TSCH GOLDEN_DIR COUNT WORK_DIR
#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string mutate(std::string text, std::mt19937& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  static const std::string alphabet = "()[]{}:,.=+-*/%\"'\\\n\t #@x0_9eTf!<>~^&|";
  int mutations = 1 + static_cast<int>(pick(4));
  for (int m = 0; m < mutations && !text.empty(); ++m) {
    size_t pos = pick(text.size());
    switch (pick(7)) {
      case 0:  // truncate
        text.resize(pos);
        break;
      case 1:  // delete a range
        text.erase(pos, 1 + pick(20));
        break;
      case 2:  // insert a random character
        text.insert(pos, 1, alphabet[pick(alphabet.size())]);
        break;
      case 3:  // replace a character
        text[pos] = alphabet[pick(alphabet.size())];
        break;
      case 4: {  // duplicate a slice somewhere else
        std::string slice = text.substr(pos, 1 + pick(40));
        text.insert(pick(text.size()), slice);
        break;
      }
      case 5: {  // swap two lines
        std::vector<std::string> lines;
        std::stringstream ss(text);
        for (std::string line; std::getline(ss, line);) lines.push_back(line);
        if (lines.size() > 1) std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
        text.clear();
        for (auto& l : lines) text += l + "\n";
        break;
      }
      default:  // change indentation of a line
        text.insert(text.rfind('\n', pos) == std::string::npos ? 0 : text.rfind('\n', pos) + 1, pick(2) ? "  " : "\t");
        break;
    }
  }
  return text;
}

struct Outcome {
  bool signaled = false;
  int signal = 0;
  int status = 0;
  bool timed_out = false;
  std::string output;
};

Outcome run(const std::string& tsch, const fs::path& script, const fs::path& out_path) {
  Outcome result;
  pid_t pid = fork();
  if (pid == 0) {
    FILE* out = std::fopen(out_path.c_str(), "w");
    dup2(fileno(out), STDOUT_FILENO);
    dup2(fileno(out), STDERR_FILENO);
    rlimit cpu{10, 10};  // a mutated `while` may loop forever
    setrlimit(RLIMIT_CPU, &cpu);
    rlimit mem{4ul << 30, 4ul << 30};
    setrlimit(RLIMIT_AS, &mem);
    chdir(script.parent_path().c_str());
    execl(tsch.c_str(), tsch.c_str(), script.filename().c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
    result.timed_out = result.signal == SIGXCPU || result.signal == SIGKILL;
  } else {
    result.status = WEXITSTATUS(status);
  }
  result.output = read_file(out_path);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: fuzz_golden TSCH GOLDEN_DIR COUNT WORK_DIR\n");
    return 2;
  }
  std::string tsch = fs::absolute(argv[1]).string();
  fs::path golden = argv[2];
  int count = std::stoi(argv[3]);
  fs::path work = argv[4];
  fs::create_directories(work);
  std::vector<fs::path> sources;
  for (const auto& entry : fs::recursive_directory_iterator(golden)) {
    // Scripts that call sys.exit choose their own exit status; leave them out.
    if (entry.path().extension() == ".tsch" && read_file(entry.path()).find("sys.exit") == std::string::npos) {
      sources.push_back(entry.path());
    }
  }
  std::sort(sources.begin(), sources.end());
  if (sources.empty()) {
    std::fprintf(stderr, "no golden scripts under %s\n", golden.c_str());
    return 2;
  }
  std::mt19937 rng(20261122);
  const std::regex error_line(R"(^[^\s:][^:]*:\d+:\d+: error: )", std::regex::multiline);
  int failures = 0, timeouts = 0, errors = 0, clean = 0;
  for (int i = 0; i < count; ++i) {
    const fs::path& source = sources[std::uniform_int_distribution<size_t>(0, sources.size() - 1)(rng)];
    std::string text = mutate(read_file(source), rng);
    fs::path script = work / fmt::format("case_{:03d}.tsch", i);
    std::ofstream(script, std::ios::binary) << text;
    Outcome o = run(tsch, fs::absolute(script), work / fmt::format("case_{:03d}.out", i));
    if (o.timed_out) {
      ++timeouts;
      continue;
    }
    bool ok = !o.signaled && (o.status == 0 || o.status == 1);
    if (ok && o.status == 1 && !std::regex_search(o.output, error_line)) ok = false;
    if (!ok) {
      ++failures;
      std::printf("FAIL %s (from %s): %s\n%s\n", script.c_str(), source.c_str(),
                  o.signaled ? fmt::format("signal {}", o.signal).c_str() : fmt::format("exit {}", o.status).c_str(),
                  o.output.substr(0, 2000).c_str());
    } else if (o.status == 1) {
      ++errors;
    } else {
      ++clean;
    }
  }
  std::printf(
      "%d mutated scripts: %d ran cleanly, %d reported an error, %d hit the CPU limit, %d crashed or misreported\n",
      count, clean, errors, timeouts, failures);
  return failures == 0 ? 0 : 1;
}
