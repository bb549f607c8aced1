#include "script/error_report.h"

#include <fmt/format.h>

#include <cstdio>

#include "script/modules.h"

namespace tsch::script {

std::string render_syntax_error(const SyntaxError& error, bool color) {
  std::string message = error.what();
  const char* kind = message.rfind("inconsistent use of tabs", 0) == 0 ? "TabError"
                     : message.find("indent") != std::string::npos     ? "IndentationError"
                                                                       : "SyntaxError";
  return render_diagnostic(error.loc, "error", std::string(kind) + ": " + message, color);
}

namespace {

bool in_stdlib(const SourceLoc& loc) {
  static const std::string stdlib = [] {
    std::string dir = ModuleLoader::stdlib_dir();
    return dir.empty() || dir.back() == '/' ? dir : dir + "/";
  }();
  return loc.valid() && !stdlib.empty() && loc.file->name().rfind(stdlib, 0) == 0;
}

}  // namespace

std::string render_script_error(Interpreter& interp, const ScriptError& error, bool color) {
  std::string message;
  try {
    message = describe_exception(interp, error.exception);
  } catch (const ScriptError&) {
    message = exception_class_name(error.exception) + ": <exception str() failed>";
  }
  SourceLoc where = error.pending;
  if (!where.valid() && !error.traceback.empty()) where = error.traceback.front().loc;
  // Raised inside the stdlib (tsch's own library code, e.g. a "not supported yet"): the caret
  // goes under the user's line that called into it; the traceback still names the stdlib's.
  if (in_stdlib(where)) {
    for (const TracebackEntry& e : error.traceback) {
      if (e.loc.valid() && !in_stdlib(e.loc)) {
        where = e.loc;
        break;
      }
    }
  }
  std::string out = render_diagnostic(where, "error", message, color);
  if (error.traceback.size() > 1) {
    out += "traceback (innermost last):\n";
    auto same = [](const TracebackEntry& a, const TracebackEntry& b) {
      return a.function == b.function && a.loc.file == b.loc.file && a.loc.line == b.loc.line && a.loc.col == b.loc.col;
    };
    size_t repeats = 0;
    for (size_t i = error.traceback.size(); i-- > 0;) {
      const TracebackEntry& e = error.traceback[i];
      // Deep recursion: show a repeated frame three times, then count the rest.
      bool repeated = i + 1 < error.traceback.size() && same(e, error.traceback[i + 1]);
      repeats = repeated ? repeats + 1 : 0;
      if (repeats >= 3) {
        bool last_of_run = i == 0 || !same(e, error.traceback[i - 1]);
        if (last_of_run) out += fmt::format("  [previous line repeated {} more times]\n", repeats - 2);
        continue;
      }
      if (e.loc.valid()) {
        out += fmt::format("  {}:{}:{}: in {}\n", e.loc.file->name(), e.loc.line, e.loc.col, e.function);
      } else {
        out += fmt::format("  in {}\n", e.function);
      }
    }
  }
  return out;
}

int run_reporting_errors(Interpreter& interp, const std::function<void()>& body, bool color) {
  auto emit = [](const std::string& text) {
    std::fflush(stdout);
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  };
  try {
    body();
    std::fflush(stdout);
    return 0;
  } catch (const ScriptError& e) {
    if (e.exception.type()->is_subtype_of(exception_type(ExcKind::SystemExit))) {
      Value* args = e.exception.as<Instance>()->attrs().find(intern("args"));
      auto* tuple = args ? args->as<Tuple>() : nullptr;
      std::fflush(stdout);
      if (!tuple || tuple->items.empty() || tuple->items[0].is_none()) return 0;
      if (tuple->items[0].is_integral()) return static_cast<int>(tuple->items[0].as_int());
      emit(interp.str(tuple->items[0]) + "\n");
      return 1;
    }
    emit(render_script_error(interp, e, color));
    return 1;
  } catch (const SyntaxError& e) {
    emit(render_syntax_error(e, color));
    return 1;
  } catch (const InternalError& e) {
    emit(std::string("error: ") + e.what() + "\n");
    return 1;
  } catch (const std::bad_alloc&) {
    emit("error: MemoryError: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    emit(std::string("error: internal error (a bug in tsch): ") + e.what() + "\n");
    return 1;
  }
}

}  // namespace tsch::script
