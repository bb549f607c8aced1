// tvm.target in scripts: Target values over target::Target, the `with target:` scope,
// tvm.target.cuda(), and the conversion every API taking a target uses.
#pragma once

#include "script/interpreter.h"
#include "script/object.h"
#include "target/target.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

class TargetValue : public script::Object {
 public:
  explicit TargetValue(target::Target t) : target(std::move(t)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return target->str(); }
  target::Target target;
};

// A target argument: a Target, a string (target string, tag or JSON config) or a config dict.
// `fallback` when `v` is None (null: None stays null).
target::Target target_arg(Interpreter& interp, const Value& v, const std::string& fallback = "");

void register_tvm_target_module();

}  // namespace tsch::bindings
