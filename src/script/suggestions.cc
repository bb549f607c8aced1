#include "script/suggestions.h"

#include <algorithm>

#include "script/interpreter.h"
#include "script/object.h"
#include "support/closest_name.h"

namespace tsch::script {

std::vector<std::string> attribute_names(const Value& obj) {
  std::vector<std::string> names;
  auto add = [&](const Namespace& ns) {
    for (const auto& [k, v] : ns.values()) names.push_back(symbol_name(k));
  };
  if (auto* m = obj.as<Module>()) add(*m->globals);
  if (auto* inst = obj.as<Instance>()) add(inst->attrs());
  for (TypeObject* type : (obj.as<TypeObject>() ? obj.as<TypeObject>() : obj.type())->mro()) add(type->dict());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string attribute_suggestion(const Value& obj, const std::string& name) {
  std::vector<std::string> names = attribute_names(obj);
  if (name.empty() || name[0] != '_') {
    std::erase_if(names, [](const std::string& n) { return !n.empty() && n[0] == '_'; });
  }
  std::string best = closest_name(name, names);
  return best.empty() ? "" : ". Did you mean: '" + best + "'?";
}

std::string unexpected_keyword_message(const std::string& function, const std::string& keyword,
                                       const std::vector<std::string>& parameters) {
  std::string message = function + "() got an unexpected keyword argument '" + keyword + "'";
  std::string best = closest_name(keyword, parameters);
  return best.empty() ? message : message + ". Did you mean '" + best + "'?";
}

}  // namespace tsch::script
