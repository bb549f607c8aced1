// JSON values and script values (null/bool/int/float/str/list/dict): the trace's JSON form,
// target configs.
#pragma once

#include <nlohmann/json.hpp>

#include "script/interpreter.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

Value json_to_value(Interpreter& interp, const nlohmann::json& j);
nlohmann::json value_to_json(Interpreter& interp, const Value& v);

}  // namespace tsch::bindings
