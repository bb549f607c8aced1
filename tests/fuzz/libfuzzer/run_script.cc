#include "run_script.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <thread>

#include "bindings/builtin_modules.h"
#include "bindings/tvm/script/roundtrip_check.h"
#include "script/error_report.h"
#include "script/interpreter.h"
#include "support/diagnostics.h"
#include "support/interrupt.h"
#include "syntax/parser.h"

namespace tsch::fuzz {
namespace {

// Per-input budget: the interpreter and compiled kernels poll the flags Ctrl-C sets, so a long
// loop in an input ends as KeyboardInterrupt, a user error, instead of a libFuzzer timeout.
constexpr auto kBudget = std::chrono::milliseconds(1500);

[[noreturn]] void finding(const std::string& what, const uint8_t* data, size_t size) {
  std::fprintf(stderr, "\n==== tsch fuzz finding: %s\n---- input (%zu bytes):\n", what.c_str(), size);
  std::fwrite(data, 1, size, stderr);
  std::fputs("\n----\n", stderr);
  std::abort();
}

class Watchdog {
 public:
  explicit Watchdog(script::Interpreter& interp)
      : thread_([this, &interp] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!done_cv_.wait_for(lock, kBudget, [this] { return done_; })) {
            interp.interrupt_requested = true;
            request_interrupt();
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

void initialize(bool check_roundtrip) {
  if (check_roundtrip) setenv("TSCH_CHECK_ROUNDTRIP", "1", 1);
  // Inputs that save files (np.save, export_library) write into a scratch folder.
  char scratch[] = "/tmp/tsch-fuzz-XXXXXX";
  if (mkdtemp(scratch) && chdir(scratch) != 0) std::perror("chdir");
  script::register_builtin_modules();
}

void run_script(const uint8_t* data, size_t size) {
  std::string code(reinterpret_cast<const char*>(data), size);
  clear_interrupt();  // left set when the last input's budget ran out outside a kernel
  script::Interpreter interp;
  interp.write_stdout = [](const std::string&) {};
  auto globals = interp.make_main_globals("fuzz.tsch");
  std::string report;
  try {
    Watchdog watchdog(interp);
    interp.exec_source(SourceFile::make("fuzz.tsch", code), globals);
  } catch (const script::ScriptError& e) {
    report = script::render_script_error(interp, e);
  } catch (const SyntaxError& e) {
    report = script::render_syntax_error(e);
  } catch (const InternalError& e) {
    finding(std::string("internal error: ") + e.what(), data, size);
  } catch (const std::bad_alloc&) {
    return;  // MemoryError where the interpreter had no location for it
  } catch (const std::exception& e) {
    finding(std::string("C++ exception escaped: ") + e.what(), data, size);
  }
  // Counted, not read from the report: its text quotes the input, which may say anything.
  if (bindings::roundtrip_failures() > 0) finding("a TVMScript round trip failed:\n" + report, data, size);
}

}  // namespace tsch::fuzz
