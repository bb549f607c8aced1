#include "repl/line_reader.h"

#include <sys/select.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#ifdef TSCH_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

namespace tsch::repl {

namespace {

constexpr int kHistoryLimit = 1000;

#ifdef TSCH_HAVE_READLINE
// readline's C callbacks reach the reader through these (one REPL per process).
LineReader::Completer* g_completer = nullptr;
std::vector<std::string> g_options;
std::string* g_line = nullptr;
bool g_got_line = false;
bool g_eof = false;

char* option_generator(const char*, int state) {
  static size_t next = 0;
  if (state == 0) next = 0;
  if (next >= g_options.size()) return nullptr;
  return strdup(g_options[next++].c_str());
}

char** attempt_completion(const char*, int start, int end) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  if (!g_completer) return nullptr;
  std::string before(rl_line_buffer, static_cast<size_t>(end));
  Completion c = (*g_completer)(before);
  if (c.word_start != static_cast<size_t>(start)) {
    // Re-base options onto readline's word so the replacement lines up.
    std::string lead =
        before.substr(static_cast<size_t>(start), c.word_start > static_cast<size_t>(start) ? c.word_start - start : 0);
    for (auto& o : c.options) o = lead + o;
  }
  g_options = std::move(c.options);
  rl_completion_suppress_append = !(before.size() > 0 && before[0] == ':');
  return rl_completion_matches("", option_generator);
}

void on_line(char* text) {
  if (!text) {
    g_eof = true;
  } else {
    *g_line = text;
    std::free(text);
  }
  g_got_line = true;
  rl_callback_handler_remove();
}
#endif

}  // namespace

std::string default_history_path() {
  if (const char* p = std::getenv("TSCH_HISTORY")) return p;
  if (const char* home = std::getenv("HOME")) return std::string(home) + "/.tsch_history";
  return {};
}

LineReader::LineReader(std::function<bool()> interrupted, std::string history_path, Completer completer)
    : interrupted_(std::move(interrupted)), history_path_(std::move(history_path)) {
#ifdef TSCH_HAVE_READLINE
  static Completer stored;
  stored = std::move(completer);
  g_completer = &stored;
  rl_readline_name = "tsch";
  rl_catch_signals = 0;  // Ctrl-C reaches tsch's handler; read() cancels the line
  rl_attempted_completion_function = attempt_completion;
  static char breaks[] = " \t\n\"'()[]{},=+-*/%<>!&|^~;.";
  rl_completer_word_break_characters = breaks;
  using_history();
  stifle_history(kHistoryLimit);
  if (!history_path_.empty()) read_history(history_path_.c_str());
#else
  (void)completer;
#endif
}

LineReader::~LineReader() {
#ifdef TSCH_HAVE_READLINE
  if (!history_path_.empty()) {
    write_history(history_path_.c_str());
    history_truncate_file(history_path_.c_str(), kHistoryLimit);
  }
#endif
}

void LineReader::remember(const std::string& line) {
#ifdef TSCH_HAVE_READLINE
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  HIST_ENTRY* last = history_length > 0 ? history_get(history_base + history_length - 1) : nullptr;
  if (last && line == last->line) return;  // no immediate duplicates
  add_history(line.c_str());
#else
  (void)line;
#endif
}

bool LineReader::input_pending(int ms) const {
#ifdef TSCH_HAVE_READLINE
  if (rl_pending_input) return true;
#endif
  fd_set fds;
  FD_ZERO(&fds);
  FD_SET(STDIN_FILENO, &fds);
  timeval wait{0, ms * 1000};
  return select(STDIN_FILENO + 1, &fds, nullptr, nullptr, &wait) > 0;
}

LineReader::Status LineReader::read(const std::string& prompt, std::string& line) {
#ifdef TSCH_HAVE_READLINE
  g_line = &line;
  g_got_line = false;
  g_eof = false;
  rl_callback_handler_install(prompt.c_str(), on_line);
  while (!g_got_line) {
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(STDIN_FILENO, &fds);
    timeval tick{0, 100000};  // also poll, in case the signal landed on another thread
    int ready = select(STDIN_FILENO + 1, &fds, nullptr, nullptr, &tick);
    if (ready <= 0) {
      if (interrupted_()) {
        // Ctrl-C: drop what was typed and start a fresh prompt.
        rl_point = rl_end;
        rl_redisplay();  // the cursor after the typed text, where ^C goes
        std::fputs("^C", stdout);
        std::fflush(stdout);
        rl_crlf();
        rl_replace_line("", 0);
        rl_free_line_state();
        rl_callback_sigcleanup();
        rl_callback_handler_remove();
        return Status::Interrupted;
      }
      continue;
    }
    if (ready > 0) rl_callback_read_char();
  }
  return g_eof ? Status::End : Status::Line;
#else
  std::fputs(prompt.c_str(), stdout);
  std::fflush(stdout);
  if (!std::getline(std::cin, line)) {
    if (interrupted_()) {
      std::cin.clear();
      return Status::Interrupted;
    }
    return Status::End;
  }
  return Status::Line;
#endif
}

}  // namespace tsch::repl
