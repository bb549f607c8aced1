// The buffer declaration options (buffer_options.h).
#include "bindings/tvm/tir/buffer_options.h"

#include <fmt/format.h>

#include "ir/op.h"
#include "script/exceptions.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::ExcKind;
using script::Interpreter;
using script::raise;
using script::Value;

ir::Buffer with_buffer_options(Interpreter& interp, ir::Buffer buf, const BufferOptions& o, const std::string& what) {
  auto node = std::make_shared<ir::BufferNode>(*buf);
  if (!o.strides.is_none()) {
    for (const Value& v : interp.to_vector(o.strides)) {
      if (auto* s = v.as<script::Str>()) {
        node->strides.push_back(ir::make_var(s->value, ir::DataType::int32()));
        continue;
      }
      ir::PrimExpr e = to_expr(interp, v, what + " strides");
      if (!e->dtype.is_integer())
        raise(ExcKind::TypeError, fmt::format("{}: strides must be integers, got {}", what, e->dtype.to_string()));
      node->strides.push_back(e);
    }
    // TVM accepts a stride count other than the rank here (its tests print such buffers);
    // lowering refuses one.
  }
  int64_t factor = o.offset_factor.is_none() ? 0 : o.offset_factor.as_int();
  int64_t align = o.align.is_none() ? 0 : o.align.as_int();
  if (factor < 0)
    raise(ExcKind::ValueError, fmt::format("{}: offset_factor must not be negative, got {}", what, factor));
  node->offset_factor = factor == 0 ? 1 : static_cast<int>(factor);
  node->align = align <= 0 ? 64 : static_cast<int>(align);
  if (!o.elem_offset.is_none()) {
    ir::PrimExpr e = to_expr(interp, o.elem_offset, what + " elem_offset");
    if (!e->dtype.is_integer())
      raise(ExcKind::TypeError, fmt::format("{}: elem_offset must be an integer, got {}", what, e->dtype.to_string()));
    node->elem_offset = ir::is_zero(e) ? nullptr : e;
  } else if (factor != 0) {
    ir::DataType t = node->shape.empty() ? ir::DataType::int32() : node->shape[0]->dtype;
    node->elem_offset = ir::make_var("elem_offset", t);
  }
  if (!o.axis_separators.is_none()) {
    int64_t prev = 0;
    for (const Value& v : interp.to_vector(o.axis_separators)) {
      if (!v.is_int()) raise(ExcKind::TypeError, what + ": axis_separators must be integers");
      int64_t sep = v.as_int();
      if (sep < prev || sep > static_cast<int64_t>(node->shape.size())) {
        raise(ExcKind::ValueError,
              fmt::format("{}: axis_separators must be non-decreasing axes of the buffer (0..{}), got {}", what,
                          node->shape.size(), sep));
      }
      prev = sep;
      node->axis_separators.push_back(sep);
    }
  }
  return node;
}

}  // namespace tsch::bindings
