// ANSI syntax colouring of printed IR for the terminal, with the categories the editor
// plugins use: keywords, `T.`/`R.`/`I.` builtins, block names, numbers, strings, comments.
#pragma once

#include <string>

namespace tsch::repl {

std::string highlight_line(const std::string& line);
// Every line of `text`.
std::string highlight(const std::string& text);

}  // namespace tsch::repl
