// te.thread_axis: a GPU thread axis (an IterVar of ThreadIndex) for s[C].bind.
#include "bindings/tvm/te/te_values.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Interpreter;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;
using script::Value;

TypeObject* ThreadAxisValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("IterVar");
    type->set_module("tvm.tir");
    type->def_property(
        "var", [](Interpreter&, const Value& v) { return wrap(ir::PrimExpr(v.as<ThreadAxisValue>()->axis.var)); });
    type->def_property(
        "thread_tag", [](Interpreter&, const Value& v) { return script::make_str(v.as<ThreadAxisValue>()->axis.tag); });
    return type;
  }();
  return t.get();
}

void def_thread_axis(Namespace& ns) {
  script::def_function(
      ns, "thread_axis", "dom=None, tag=\"\", name=\"\", span=None",
      [](Interpreter& interp, Args& a) {
        std::string tag = a.get_str(1);
        ir::PrimExpr extent;
        if (a[0].as<script::Str>()) {
          tag = a.get_str(0);
        } else if (!a[0].is_none()) {
          // The domain: (min, max) or a range's extent.
          std::vector<Value> dom =
              a[0].as<script::Tuple>() || a[0].as<script::List>() ? interp.to_vector(a[0]) : std::vector<Value>{};
          if (dom.size() != 2) a.value_error(0, "a thread axis domain is (min, max)");
          ir::PrimExpr lo = to_expr(interp, dom[0], "thread_axis domain"),
                       hi = to_expr(interp, dom[1], "thread_axis domain");
          if (!ir::is_zero(lo))
            raise(ExcKind::NotImplementedError, "not supported yet: a thread axis domain that does not start at 0");
          extent = hi;
        }
        if (tag.empty()) raise(ExcKind::ValueError, "thread_axis: tag must be given as Positional or keyword argument");
        std::string name = a.get_str(2);
        return Value(
            std::make_shared<ThreadAxisValue>(te::ThreadAxis{tag, ir::make_var(name.empty() ? tag : name), extent}));
      },
      "te.thread_axis(\"threadIdx.x\"): a GPU thread axis for s[C].bind.");
}

}  // namespace tsch::bindings
