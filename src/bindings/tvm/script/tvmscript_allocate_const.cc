// T.allocate_const's data: numbers from nested lists, checked against the dtype, as
// numpy.asarray(data, dtype) would read them.
#include "bindings/tvm/script/tvmscript_allocate_const.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "ir/printer.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Value;

std::shared_ptr<ir::AllocateConstNode> allocate_const_node(script::Interpreter& interp, script::Args& a,
                                                           ir::DataType dt, const std::vector<ir::PrimExpr>& extents,
                                                           int64_t count) {
  bool is_float = dt.code == ir::DataType::Code::Float;
  auto node = std::make_shared<ir::AllocateConstNode>(ir::make_var("buffer_var", ir::DataType::handle()), dt, extents,
                                                      std::make_shared<ir::EvaluateNode>(ir::make_int(0)));
  // The values row-major, from nested lists (as numpy.asarray(data, dtype) reads them).
  std::function<void(const Value&)> add = [&](const Value& v) {
    double f = 0;
    int64_t i = 0;
    bool integral = false;
    if (v.is_float()) {
      f = v.as_float();
    } else if (v.is_integral()) {
      i = v.as_int();
      integral = true;
    } else if (auto* ev = v.as<ExprValue>(); ev && ir::as<ir::FloatImmNode>(ev->expr)) {
      f = ir::as<ir::FloatImmNode>(ev->expr)->value;
    } else if (ev && ir::as<ir::IntImmNode>(ev->expr)) {
      i = ir::as<ir::IntImmNode>(ev->expr)->value;
      integral = true;
    } else if (v.as<script::List>() || v.as<script::Tuple>()) {
      for (const Value& item : interp.to_vector(v)) add(item);
      return;
    } else {
      a.type_error(0, "a list of numbers");
    }
    if (is_float) {
      double x = integral ? static_cast<double>(i) : f;
      node->float_data.push_back(dt.bits == 32 ? static_cast<double>(static_cast<float>(x)) : x);
      return;
    }
    if (!integral) {
      if (f != std::floor(f)) a.value_error(0, fmt::format("{} is not an integer of {}", f, dt.to_string()));
      i = static_cast<int64_t>(f);
    }
    bool fits = dt.bits == 64 ? (dt.is_int() || i >= 0)
                : dt.is_int() ? i >= -(int64_t{1} << (dt.bits - 1)) && i < (int64_t{1} << (dt.bits - 1))
                              : i >= 0 && i < (int64_t{1} << dt.bits);
    if (!fits) a.value_error(0, fmt::format("{} is out of bounds for {}", i, dt.to_string()));
    node->int_data.push_back(i);
  };
  add(a[0]);
  if (static_cast<int64_t>(node->size()) != count) {
    std::string dims;
    for (const auto& e : extents) dims += (dims.empty() ? "" : ", ") + ir::script(e);
    a.value_error(0, fmt::format("{} values do not fill extents [{}] ({} elements)", node->size(), dims, count));
  }
  return node;
}

}  // namespace tsch::bindings
