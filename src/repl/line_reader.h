// Terminal line input for the REPL through GNU readline (Debian libreadline-dev): line
// editing, persistent bounded history, tab completion, and Ctrl-C that cancels the line
// being typed. Without readline at build time it falls back to plain std::getline.
#pragma once

#include <functional>
#include <string>

#include "repl/completion.h"

namespace tsch::repl {

class LineReader {
 public:
  enum class Status { Line, Interrupted, End };
  using Completer = std::function<Completion(const std::string& line_before_cursor)>;

  // `interrupted` reports (and clears) a pending Ctrl-C; `history_path` may be empty.
  LineReader(std::function<bool()> interrupted, std::string history_path, Completer completer);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  Status read(const std::string& prompt, std::string& line);
  void remember(const std::string& line);
  // Whether more input arrives within `ms` milliseconds: after a blank line, only a paste
  // (no one types that fast) has the next line ready.
  bool input_pending(int ms) const;

 private:
  std::function<bool()> interrupted_;
  std::string history_path_;
};

// The history file: $TSCH_HISTORY, else ~/.tsch_history (empty when neither is usable).
std::string default_history_path();

}  // namespace tsch::repl
