// "Did you mean": the candidate CPython would suggest for a misspelt name
// (Python/suggestions.c): a Levenshtein distance where a change of case costs half a move, at
// most a third of the characters involved changed, the first of the closest winning ties.
// Scripts' NameError / AttributeError, schedule block names and REPL commands use it.
#pragma once

#include <string>
#include <vector>

namespace tsch {

// The candidate closest to `wrong`, or "" when none is close enough (or there are more than
// 750 candidates, as in CPython).
std::string closest_name(const std::string& wrong, const std::vector<std::string>& candidates);

}  // namespace tsch
