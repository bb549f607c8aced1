// "Did you mean" for misspelt names, attributes and keyword arguments, chosen as CPython
// chooses them (Python/suggestions.c): a Levenshtein distance where a change of case costs
// half a move, at most a third of the characters involved changed, the closest candidate
// first in order winning ties.
#pragma once

#include <string>
#include <vector>

#include "script/value.h"

namespace tsch::script {

// The candidate closest to `wrong`, or "" when none is close enough (or there are more than
// 750 candidates, as in CPython).
std::string closest_name(const std::string& wrong, const std::vector<std::string>& candidates);

// The attribute names dir(obj) lists: an instance's own, its type's along the MRO, a
// module's globals; sorted, without duplicates.
std::vector<std::string> attribute_names(const Value& obj);

// What CPython's traceback adds to an AttributeError on `obj` for `name`:
// ". Did you mean: 'x'?" or "". Names starting with '_' are offered only for such a name.
std::string attribute_suggestion(const Value& obj, const std::string& name);

// "f() got an unexpected keyword argument 'x'", and as CPython 3.13 adds: ". Did you mean 'y'?"
// for the closest of the function's parameter names.
std::string unexpected_keyword_message(const std::string& function, const std::string& keyword,
                                       const std::vector<std::string>& parameters);

}  // namespace tsch::script
