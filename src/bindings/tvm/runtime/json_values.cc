#include "bindings/tvm/runtime/json_values.h"

#include "script/exceptions.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::ExcKind;
using script::raise;

Value json_to_value(Interpreter& interp, const nlohmann::json& j) {
  if (j.is_null()) return Value();
  if (j.is_boolean()) return Value::boolean(j.get<bool>());
  if (j.is_number_integer()) return Value::integer(j.get<int64_t>());
  if (j.is_number()) return Value::real(j.get<double>());
  if (j.is_string()) return script::make_str(j.get<std::string>());
  if (j.is_array()) {
    std::vector<Value> items;
    for (const auto& x : j) items.push_back(json_to_value(interp, x));
    return script::make_list(std::move(items));
  }
  auto dict = std::make_shared<script::Dict>();
  for (const auto& [k, v] : j.items()) dict->set(interp, script::make_str(k), json_to_value(interp, v));
  return Value(dict);
}

nlohmann::json value_to_json(Interpreter& interp, const Value& v) {
  if (v.is_none()) return nullptr;
  if (v.is_bool()) return v.as_bool();
  if (v.is_int()) return v.as_int();
  if (v.is_float()) return v.as_float();
  if (auto* s = v.as<script::Str>()) return s->value;
  // TVM's constants (a trace's JSON form holds IntImm and FloatImm objects).
  if (auto* e = v.as<ExprValue>()) {
    if (auto* i = ir::as<ir::IntImmNode>(e->expr)) return i->value;
    if (auto* f = ir::as<ir::FloatImmNode>(e->expr)) return f->value;
  }
  if (v.as<script::List>() || v.as<script::Tuple>()) {
    nlohmann::json out = nlohmann::json::array();
    for (const Value& x : interp.to_vector(v)) out.push_back(value_to_json(interp, x));
    return out;
  }
  if (auto* d = v.as<script::Dict>()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, x] : d->items()) {
      auto* key = k.as<script::Str>();
      if (!key) raise(ExcKind::TypeError, "JSON object keys must be str, not " + Interpreter::type_name(k));
      out[key->value] = value_to_json(interp, x);
    }
    return out;
  }
  raise(ExcKind::TypeError, "Object of type " + Interpreter::type_name(v) + " is not JSON serializable");
}

}  // namespace tsch::bindings
