#include "repl/session.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "bindings/tvm/tir/schedule_session.h"
#include "repl/highlight.h"
#include "repl/ir_diff.h"
#include "repl/line_reader.h"
#include "script/error_report.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "support/closest_name.h"
#include "syntax/parser.h"

namespace tsch::repl {

using script::Value;
namespace fs = std::filesystem;

namespace {

// The session's namespace: a script's, plus exit and quit as CPython's site module makes them:
// called, they end the session; typed alone, they say how.
constexpr const char* kSessionPrelude = R"(class Quitter:
    def __init__(self, name):
        self.name = name
    def __repr__(self):
        return f"Use {self.name}() or Ctrl-D (i.e. EOF) to exit"
    def __call__(self, code=None):
        raise SystemExit(code)
exit = Quitter("exit")
quit = Quitter("quit")
del Quitter
)";

script::NamespaceRef new_globals(script::Interpreter& interp, const std::string& script_path = "") {
  script::NamespaceRef globals = interp.make_main_globals(script_path);
  interp.exec_source(SourceFile::make("<session>", kSessionPrelude), globals);
  return globals;
}

class Session {
 public:
  // `script_path`: the file a played session runs (its folder is searched by import).
  explicit Session(script::Interpreter& interp, const std::string& script_path = "")
      : interp_(interp),
        globals_(new_globals(interp, script_path)),
        color_(isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr),
        reader_([&interp] { return interp.interrupt_requested.exchange(false); }, default_history_path(),
                [this](const std::string& line) { return complete(interp_, globals_, line, command_names()); }) {}

  int run();
  // Runs a script as if typed into the session (see run_steps in session.h).
  // echo: print each statement after >>> / ... and the narration (else only what runs prints).
  int play(const std::string& path, const std::string& text, bool echo = true);

 private:
  struct Command {
    const char* name;
    const char* args;
    const char* help;
    void (Session::*handler)(const std::string& arg);
  };
  struct Tracked {  // one schedule bound to a global name before a statement
    std::string name;
    Value sch, snapshot;
    const void* module;  // identity of the schedule's module: printing only when it changed
  };
  struct Step {
    Value snapshot;    // the schedule before (undo stack) or after (redo stack) the step
    size_t statement;  // index in saved_ of the statement that made the step, or npos
  };
  struct UndoStacks {
    Value sch;  // keeps the schedule alive while it has history
    std::vector<Step> undo, redo;
  };
  struct Saved {
    std::string text;
    bool undone = false;  // written commented out, so the saved script ends where the session did
  };

  static const std::vector<Command>& commands();
  static std::vector<std::string> command_names();

  // Runs one statement; returns its status (0, or 1 after reporting an error).
  int execute(const std::string& text, bool remember_for_save);
  std::vector<Tracked> tracked_schedules();
  void show_change(const std::string& name, const std::string& before, const std::string& after);
  bool current_schedule(Value& out, std::string& name);
  void dispatch(const std::string& line);
  void step_history(bool undo);

  void cmd_help(const std::string& arg);
  void cmd_quit(const std::string&) { quit_ = true; }
  void cmd_show(const std::string& arg);
  void cmd_trace(const std::string&);
  void cmd_undo(const std::string&) { step_history(true); }
  void cmd_redo(const std::string&) { step_history(false); }
  void cmd_diff(const std::string& arg);
  void cmd_time(const std::string&);
  void cmd_save(const std::string& arg);
  void cmd_load(const std::string& arg);
  void cmd_reset(const std::string&);
  void cmd_tour(const std::string&);

  script::Interpreter& interp_;
  script::NamespaceRef globals_;
  bool color_;
  LineReader reader_;
  bool quit_ = false;
  int exit_status_ = 0;
  int next_line_ = 1;
  std::string source_name_ = "<stdin>";  // what error locations name: the played file
  bool diff_on_ = true, diff_full_ = false, timing_ = false;
  std::vector<Saved> saved_;                       // statements that ran without error
  std::map<script::Object*, UndoStacks> history_;  // per schedule object
  script::Object* last_schedule_ = nullptr;        // the one :undo, :trace, :show act on
};

const std::vector<Session::Command>& Session::commands() {
  static const std::vector<Command> table = {
      {":help", "[topic]", "list the commands, or describe one command or schedule primitive (`:help split`)",
       &Session::cmd_help},
      {":show", "[func]", "print the current schedule's module (or one function of it)", &Session::cmd_show},
      {":trace", "", "print the current schedule's trace", &Session::cmd_trace},
      {":undo", "", "undo the last step of the current schedule", &Session::cmd_undo},
      {":redo", "", "redo the step :undo took back", &Session::cmd_redo},
      {":diff", "on|off|full",
       "after a schedule step show the IR diff folded (on), not at all (off), or unfolded (full)", &Session::cmd_diff},
      {":time", "", "toggle printing how long each statement took", &Session::cmd_time},
      {":save", "FILE", "write the statements that ran without error as a runnable .tsch script", &Session::cmd_save},
      {":load", "FILE", "run a script in this session", &Session::cmd_load},
      {":reset", "", "forget every name, schedule and undo step", &Session::cmd_reset},
      {":tour", "", "play examples/tour.tsch here: a matmul scheduled, built, timed, searched, on CUDA",
       &Session::cmd_tour},
      {":quit", "", "leave tsch (Ctrl-D does too)", &Session::cmd_quit},
  };
  return table;
}

std::vector<std::string> Session::command_names() {
  std::vector<std::string> names;
  for (const auto& c : commands()) names.push_back(c.name);
  return names;
}

namespace {

bool is_blank(const std::string& line) { return line.find_first_not_of(" \t\r\n") == std::string::npos; }

// A line at column 0 that continues the statement before it rather than starting one.
bool continues_statement(const std::string& line) {
  for (const char* word : {"else", "elif", "except", "finally"}) {
    size_t n = std::strlen(word);
    if (line.compare(0, n, word) == 0 && (line.size() == n || !std::isalnum(static_cast<unsigned char>(line[n])))) {
      return true;
    }
  }
  return line[0] == ')' || line[0] == ']' || line[0] == '}';
}

}  // namespace

int Session::run() {
  std::printf(
      "tsch %s — TVM's Python API and TVMScript, interactively.\n"
      "  :tour          a matmul scheduled step by step (each step shows its IR diff), built, timed, on CUDA\n"
      "  :help          the commands; `:help split` describes a primitive, with an example\n"
      "  first lines    import tvm; from tvm.script import tir as T   (then paste a @T.prim_func,\n"
      "                 sch = tvm.tir.Schedule(mod) and apply primitives: :undo takes one back)\n"
      "A block ends at a blank line; Tab completes; Ctrl-C interrupts; Ctrl-D exits.\n",
      TSCH_VERSION);
  std::string buffer;
  std::string next;  // a line read ahead to see whether a pasted block goes on
  bool have_next = false;
  while (!quit_) {
    std::string line;
    LineReader::Status status = LineReader::Status::Line;
    if (have_next) {
      line = std::move(next);
      have_next = false;
    } else {
      status = reader_.read(buffer.empty() ? ">>> " : "... ", line);
    }
    if (status == LineReader::Status::End) {
      if (buffer.empty()) break;
      // Ctrl-D at a continuation prompt drops the pending block and keeps the session.
      buffer.clear();
      std::fputs("\n", stdout);
      continue;
    }
    if (status == LineReader::Status::Interrupted) {
      buffer.clear();
      continue;
    }
    reader_.remember(line);
    if (buffer.empty() && !line.empty() && line[0] == ':') {
      dispatch(line);
      continue;
    }
    bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    if (buffer.empty() && blank) continue;
    buffer += line + "\n";
    if (is_incomplete_input(buffer)) continue;  // open block (until a blank line) or bracket
    // A blank line ended an indented block. In a paste without bracketed-paste mode the next
    // line is already there: when it is indented, the block goes on (a class whose methods
    // are separated by blank lines arrives whole instead of in pieces, the first kept).
    bool goes_on = false;
    while (blank && reader_.input_pending(30) && reader_.read("... ", next) == LineReader::Status::Line) {
      reader_.remember(next);
      if (is_blank(next)) continue;  // more blank lines inside the paste
      goes_on = next[0] == ' ' || next[0] == '\t';
      have_next = !goes_on;
      break;
    }
    if (goes_on) {
      buffer += next + "\n";
      continue;
    }
    std::string text = buffer;
    buffer.clear();
    execute(text, true);
  }
  std::fputs("\n", stdout);
  return exit_status_;
}

std::vector<Session::Tracked> Session::tracked_schedules() {
  std::vector<Tracked> out;
  for (const auto& [name, v] : globals_->values()) {
    if (!bindings::is_schedule(v)) continue;
    bool seen = false;
    for (const auto& t : out) seen |= t.sch.object() == v.object();
    if (!seen) out.push_back({symbol_name(name), v, Value(), bindings::schedule_module_identity(v)});
  }
  return out;
}

int Session::execute(const std::string& text, bool remember_for_save) {
  std::vector<Tracked> before = tracked_schedules();
  for (auto& t : before) t.snapshot = bindings::schedule_snapshot(t.sch);
  int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  const SourceFile* source = SourceFile::make(source_name_, text, next_line_);
  next_line_ += lines;
  auto start = std::chrono::steady_clock::now();
  bool exiting = false;  // sys.exit(), exit() and quit() end the session as in Python
  int status = script::run_reporting_errors(
      interp_,
      [&] {
        try {
          interp_.exec_source(source, globals_, true);
        } catch (const script::ScriptError& e) {
          exiting = e.exception.type()->is_subtype_of(script::exception_type(script::ExcKind::SystemExit));
          throw;
        }
      },
      color_);
  if (exiting) {
    quit_ = true;
    exit_status_ = status;
  }
  double ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3;
  interp_.interrupt_requested = false;
  std::fflush(stdout);
  size_t statement = std::string::npos;
  if (status == 0 && remember_for_save && !exiting) {
    statement = saved_.size();
    saved_.push_back({text});
  }
  for (const Tracked& now : tracked_schedules()) {
    const Tracked* old = nullptr;
    for (const auto& t : before) {
      if (t.sch.object() == now.sch.object()) old = &t;
    }
    if (!old) {  // a schedule created by this statement becomes the current one
      last_schedule_ = now.sch.object();
      continue;
    }
    if (old->module == now.module) continue;
    UndoStacks& h = history_[now.sch.object()];
    h.sch = now.sch;
    h.undo.push_back({old->snapshot, statement});
    h.redo.clear();
    last_schedule_ = now.sch.object();
    show_change(now.name, bindings::schedule_module_text(old->snapshot), bindings::schedule_module_text(now.sch));
  }
  if (timing_) std::printf("(%.3f ms)\n", ms);
  std::fflush(stdout);
  return status;
}

int Session::play(const std::string& path, const std::string& text, bool echo) {
  source_name_ = path;
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const size_t n = lines.size();
  auto comment_only = [&](size_t i) {
    size_t c = lines[i].find_first_not_of(" \t");
    return c != std::string::npos && lines[i][c] == '#';
  };
  auto at_column_0 = [&](size_t i) { return !lines[i].empty() && lines[i][0] != ' ' && lines[i][0] != '\t'; };
  // A line that starts a statement of its own rather than continuing the one before.
  auto opens_statement = [&](size_t i) {
    return i == n || (at_column_0(i) && !comment_only(i) && !continues_statement(lines[i]));
  };
  auto next_code = [&](size_t i) {  // the next line that is neither blank nor only a comment
    while (i < n && (is_blank(lines[i]) || comment_only(i))) ++i;
    return i;
  };
  std::string buffer;
  size_t first = 0;      // the buffer's first line
  size_t last_code = 0;  // its last line of code
  auto run_buffer = [&]() {
    std::string statement;
    for (size_t k = first; k <= last_code; ++k) statement += lines[k] + "\n";
    buffer.clear();
    if (echo) {
      for (size_t k = first; k <= last_code; ++k) std::printf("%s%s\n", k == first ? ">>> " : "... ", lines[k].c_str());
      std::fflush(stdout);
    }
    next_line_ = static_cast<int>(first) + 1;
    return execute(statement, true);
  };
  for (size_t i = 0; i < n; ++i) {
    bool column_0_comment = at_column_0(i) && comment_only(i);
    if (!buffer.empty() && !is_blank(lines[i])) {
      // The statement ends before a line (or a comment leading to one) that starts another,
      // once its brackets and strings close and unless it is only decorators so far.
      size_t code = column_0_comment ? next_code(i) : i;
      bool ends = (code == i || column_0_comment) && opens_statement(code) && lines[last_code][0] != '@' &&
                  !is_incomplete_input(buffer + "\n");
      if (ends && (run_buffer() != 0 || quit_)) return exit_status_ ? exit_status_ : 1;
    }
    if (buffer.empty()) {
      if (is_blank(lines[i]) || (comment_only(i) && !column_0_comment)) continue;
      if (column_0_comment) {  // narration, a blank line before each paragraph of it
        if (!echo) continue;
        if (i > 0 && !(at_column_0(i - 1) && comment_only(i - 1))) std::fputs("\n", stdout);
        std::printf("%s%s%s\n", color_ ? "\033[2m" : "", lines[i].c_str(), color_ ? "\033[0m" : "");
        continue;
      }
      first = i;
    }
    buffer += lines[i] + "\n";
    if (!is_blank(lines[i]) && !comment_only(i)) last_code = i;
  }
  if (!buffer.empty() && (run_buffer() != 0 || quit_)) return exit_status_ ? exit_status_ : 1;
  return exit_status_;
}

void Session::show_change(const std::string& name, const std::string& before, const std::string& after) {
  if (!diff_on_) return;
  DiffStyle style;
  style.fold = !diff_full_;
  style.color = color_;
  std::string diff = render_diff(before, after, style);
  if (diff.empty()) return;
  std::printf("%s# %s.mod changed:%s\n%s", color_ ? "\033[2m" : "", name.c_str(), color_ ? "\033[0m" : "",
              diff.c_str());
}

bool Session::current_schedule(Value& out, std::string& name) {
  for (const auto& t : tracked_schedules()) {
    if (t.sch.object() == last_schedule_ || !last_schedule_) {
      out = t.sch;
      name = t.name;
      return true;
    }
  }
  auto it = history_.find(last_schedule_);
  if (it != history_.end()) {
    out = it->second.sch;
    name = "schedule";
    return true;
  }
  std::fputs("no schedule yet: create one with sch = tvm.tir.Schedule(mod)\n", stderr);
  return false;
}

void Session::dispatch(const std::string& line) {
  size_t space = line.find_first_of(" \t");
  std::string name = line.substr(0, space);
  std::string arg = space == std::string::npos ? ""
                                               : line.substr(line.find_first_not_of(" \t", space) == std::string::npos
                                                                 ? line.size()
                                                                 : line.find_first_not_of(" \t", space));
  while (!arg.empty() && (arg.back() == ' ' || arg.back() == '\t')) arg.pop_back();
  for (const auto& c : commands()) {
    if (name == c.name) {
      (this->*c.handler)(arg);
      std::fflush(stdout);
      return;
    }
  }
  std::string best = closest_name(name, command_names());
  std::fprintf(stderr, "unknown command %s%s (:help lists the commands)\n", name.c_str(),
               best.empty() ? "" : ("; did you mean " + best + "?").c_str());
}

void Session::step_history(bool undo) {
  Value sch;
  std::string name;
  if (!current_schedule(sch, name)) return;
  UndoStacks& h = history_[sch.object()];
  h.sch = sch;
  std::vector<Step>& from = undo ? h.undo : h.redo;
  std::vector<Step>& to = undo ? h.redo : h.undo;
  if (from.empty()) {
    std::fprintf(stderr, "nothing to %s for %s\n", undo ? "undo" : "redo", name.c_str());
    return;
  }
  std::string before = bindings::schedule_module_text(sch);
  Step step = from.back();
  from.pop_back();
  to.push_back({bindings::schedule_snapshot(sch), step.statement});
  bindings::schedule_restore(sch, step.snapshot);
  if (step.statement < saved_.size()) saved_[step.statement].undone = undo;
  show_change(name, before, bindings::schedule_module_text(sch));
}

void Session::cmd_help(const std::string& arg) {
  if (arg.empty()) {
    std::puts("Type Python/TVMScript statements; expression values are echoed. Commands:");
    for (const auto& c : commands()) std::printf("  %-7s %-12s %s\n", c.name, c.args, c.help);
    std::puts(
        "`:help PRIMITIVE` describes a schedule primitive (`:help split`). Tab completes names, attributes and block "
        "names.");
    return;
  }
  std::string topic = arg[0] == ':' ? arg : ":" + arg;
  for (const auto& c : commands()) {
    if (topic == c.name) {
      std::printf("%s%s%s\n  %s\n", c.name, *c.args ? " " : "", c.args, c.help);
      return;
    }
  }
  // A schedule primitive: its signature and description from the Schedule class.
  script::NamespaceRef scratch = interp_.make_main_globals("");
  std::string code = "import tvm\n__doc = tvm.tir.Schedule." + arg + ".__doc__\n";
  bool found = true;
  try {
    interp_.exec_source(SourceFile::make("<help>", code), scratch);
  } catch (const script::ScriptError&) {  // no such primitive (a bug still surfaces)
    found = false;
  } catch (const SyntaxError&) {
    found = false;
  }
  Value* doc = found ? scratch->find(intern("__doc")) : nullptr;
  if (!doc || doc->is_none() || interp_.str(*doc).empty()) {
    std::fprintf(stderr, "no help for '%s': :help lists the commands; primitives are the methods of tvm.tir.Schedule\n",
                 arg.c_str());
    return;
  }
  std::printf("%s\n", interp_.str(*doc).c_str());
}

void Session::cmd_show(const std::string& arg) {
  Value sch;
  std::string name;
  if (!current_schedule(sch, name)) return;
  if (arg.empty()) {
    std::string text = bindings::schedule_module_text(sch);
    std::fputs((color_ ? highlight(text) : text).c_str(), stdout);
    return;
  }
  bool found = false;
  std::string text = bindings::schedule_function_text(sch, arg, &found);
  if (!found) {
    std::fprintf(stderr, "no function named '%s' in %s.mod\n", arg.c_str(), name.c_str());
    return;
  }
  std::fputs((color_ ? highlight(text) : text).c_str(), stdout);
}

void Session::cmd_trace(const std::string&) {
  Value sch;
  std::string name;
  if (!current_schedule(sch, name)) return;
  std::string text = bindings::schedule_trace_text(sch);
  if (!text.empty() && text.back() != '\n') text += '\n';
  std::fputs(text.c_str(), stdout);
}

void Session::cmd_diff(const std::string& arg) {
  if (arg == "on")
    diff_on_ = true, diff_full_ = false;
  else if (arg == "off")
    diff_on_ = false;
  else if (arg == "full")
    diff_on_ = true, diff_full_ = true;
  else if (!arg.empty())
    return (void)std::fputs(":diff takes on, off or full\n", stderr);
  std::printf("diff: %s\n", !diff_on_ ? "off" : diff_full_ ? "full" : "on");
}

void Session::cmd_time(const std::string&) {
  timing_ = !timing_;
  std::printf("timing: %s\n", timing_ ? "on" : "off");
}

void Session::cmd_save(const std::string& arg) {
  if (arg.empty()) return (void)std::fputs(":save needs a file name\n", stderr);
  std::ofstream out(arg);
  size_t written = 0;
  for (const auto& s : saved_) {
    if (!s.undone) {
      out << s.text;
      ++written;
      continue;
    }
    std::istringstream lines(s.text);
    for (std::string line; std::getline(lines, line);) out << "# undone: " << line << "\n";
  }
  if (!out) return (void)std::fprintf(stderr, "%s: error: cannot write file: %s\n", arg.c_str(), std::strerror(errno));
  std::printf("saved %zu statements to %s\n", written, arg.c_str());
}

void Session::cmd_load(const std::string& arg) {
  if (arg.empty()) return (void)std::fputs(":load needs a file name\n", stderr);
  std::ifstream in(arg, std::ios::binary);
  if (!in) return (void)std::fprintf(stderr, "%s: error: cannot open file: %s\n", arg.c_str(), std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  // Statement by statement, as if typed (quietly): each schedule step can be undone.
  std::string saved_name = source_name_;
  int saved_line = next_line_;
  bool saved_diff = diff_on_;
  diff_on_ = false;
  play(arg, text.str(), /*echo=*/false);
  diff_on_ = saved_diff;
  source_name_ = saved_name;
  next_line_ = saved_line;
}

void Session::cmd_tour(const std::string&) {
  std::string path = (fs::path(script::ModuleLoader::stdlib_dir()).parent_path() / "examples" / "tour.tsch").string();
  std::ifstream in(path, std::ios::binary);
  if (!in) return (void)std::fprintf(stderr, "%s: error: cannot open file: %s\n", path.c_str(), std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  std::string saved_name = source_name_;
  int saved_line = next_line_;
  play(path, text.str());
  source_name_ = saved_name;
  next_line_ = saved_line;
}

void Session::cmd_reset(const std::string&) {
  globals_ = new_globals(interp_);
  saved_.clear();
  history_.clear();
  last_schedule_ = nullptr;
  std::puts("session reset");
}

}  // namespace

int run_session(script::Interpreter& interp) {
  Session session(interp);
  return session.run();
}

int run_steps(script::Interpreter& interp, const std::string& path, const std::string& text) {
  Session session(interp, path);
  return session.play(path, text);
}

}  // namespace tsch::repl
