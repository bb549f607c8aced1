// "Did you mean" for misspelt names, attributes and keyword arguments of scripts, chosen as
// CPython chooses them (support/closest_name.h).
#pragma once

#include <string>
#include <vector>

#include "script/value.h"
#include "support/closest_name.h"

namespace tsch::script {

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
