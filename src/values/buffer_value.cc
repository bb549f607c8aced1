// tvm.tir.Buffer in scripts: its fields, indexing into loads and regions, and TVM's layout
// methods (vload, access_ptr, offset_of, get_flattened_buffer; arith/buffer_layout.h); the
// region `A[vi, 0:128]` makes (tvm.tir.BufferRegion).
#include <fmt/format.h>

#include "arith/buffer_layout.h"
#include "arith/simplify.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/types.h"
#include "values/ir_values.h"
#include "values/tvm_errors.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

TypeRef make_buffer_type() {  // function-length: table (one def per script name)
  auto t = std::make_shared<TypeObject>("Buffer");
  t->set_module("tvm.tir");
  // TVM's access masks (Buffer.READ | Buffer.WRITE).
  t->dict().set(intern("READ"), Value::integer(1));
  t->dict().set(intern("WRITE"), Value::integer(2));
  t->def_property("name",
                  [](Interpreter&, const Value& v) { return script::make_str(v.as<BufferValue>()->buffer->name); });
  t->def_property("dtype", [](Interpreter&, const Value& v) {
    return script::make_str(v.as<BufferValue>()->buffer->dtype.to_string());
  });
  t->def_property("elem_offset", [](Interpreter&, const Value& v) {
    const ir::Buffer& b = v.as<BufferValue>()->buffer;
    return wrap(b->elem_offset ? b->elem_offset : ir::make_int(0));
  });
  t->def("same_as", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<BufferValue>();
    return Value::boolean(other && other->buffer == a[0].as<BufferValue>()->buffer);
  });
  // As TVM's objects: == and hash by node (`load.buffer == b`).
  t->hashes_by_value = true;
  t->def("__eq__", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<BufferValue>();
    return Value::boolean(other && other->buffer == a[0].as<BufferValue>()->buffer);
  });
  t->def("__ne__", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<BufferValue>();
    return Value::boolean(!(other && other->buffer == a[0].as<BufferValue>()->buffer));
  });
  t->def("__hash__", "self", [](Interpreter&, Args& a) {
    return Value::integer(static_cast<int64_t>(reinterpret_cast<uintptr_t>(a[0].as<BufferValue>()->buffer.get()) >> 4));
  });
  t->def_property("shape", [](Interpreter&, const Value& v) {
    std::vector<Value> dims;
    for (const auto& d : v.as<BufferValue>()->buffer->shape) {
      int64_t c;
      dims.push_back(ir::as_const_int(d, &c) ? Value::integer(c) : wrap(d));
    }
    return script::make_tuple(std::move(dims));
  });
  t->def_property("strides", [](Interpreter&, const Value& v) {
    std::vector<Value> dims;
    for (const auto& d : v.as<BufferValue>()->buffer->strides) dims.push_back(wrap(d));
    return script::make_list(std::move(dims));
  });
  t->def_property("ndim", [](Interpreter&, const Value& v) {
    return Value::integer(static_cast<int64_t>(v.as<BufferValue>()->buffer->shape.size()));
  });
  t->def_property("data",
                  [](Interpreter&, const Value& v) { return wrap(ir::PrimExpr(v.as<BufferValue>()->buffer->data)); });
  t->def("scope", "self",
         [](Interpreter&, Args& a) { return script::make_str(a[0].as<BufferValue>()->buffer->scope); });
  // TVM's axis_separators: int32 IntImms, where a new physical axis starts.
  t->def_property("axis_separators", [](Interpreter&, const Value& v) {
    std::vector<ir::PrimExpr> seps;
    for (int64_t s : v.as<BufferValue>()->buffer->axis_separators) seps.push_back(ir::make_int(s));
    return wrap_list(seps);
  });
  auto index_list = [](Interpreter& interp, const Value& v, const char* what) {
    std::vector<ir::PrimExpr> idx;
    for (const Value& x : interp.to_vector(v)) idx.push_back(to_expr(interp, x, std::string(what) + " index"));
    return idx;
  };
  // TVM's Buffer.vload(begin, dtype): a load of dtype's lanes from `begin` on (a scalar last
  // index becomes a ramp, which may run past the last axis into the next rows, as in TVM).
  t->def(
      "vload", "self, begin, dtype=None, predicate=None",
      [index_list](Interpreter& interp, Args& a) {
        const ir::Buffer& b = a[0].as<BufferValue>()->buffer;
        if (!a[3].is_none()) raise(ExcKind::NotImplementedError, "not supported yet: Buffer.vload with a predicate");
        ir::DataType t = a[2].is_none() ? b->dtype : to_dtype(interp, a[2], "Buffer.vload dtype");
        if (t.element_of() != b->dtype.element_of() || t.lanes % b->dtype.lanes != 0) {
          raise_internal_error(fmt::format("Cannot load {} from buffer of {}", t.to_string(), b->dtype.to_string()));
        }
        std::vector<ir::PrimExpr> idx = is_expr(a[1]) || a[1].is_int()
                                            ? std::vector<ir::PrimExpr>{to_expr(interp, a[1], "Buffer.vload index")}
                                            : index_list(interp, a[1], "Buffer.vload");
        if (idx.size() != b->shape.size()) {
          raise_internal_error(
              fmt::format("Buffer {} is {}-dimensional, cannot be indexed with the {}-dimensional indices provided.",
                          b->name, b->shape.size(), idx.size()));
        }
        int factor = t.lanes / b->dtype.lanes;
        if (factor > 1 && idx.back()->dtype.is_scalar()) {
          idx.back() = std::make_shared<ir::RampNode>(idx.back(), ir::make_int(1, idx.back()->dtype), factor);
        }
        int index_lanes = idx.back()->dtype.lanes;
        return wrap(ir::PrimExpr(
            std::make_shared<ir::BufferLoadNode>(b->dtype.with_lanes(b->dtype.lanes * index_lanes), b, idx)));
      },
      "vload(begin, dtype=None): a load of dtype (a vector of the buffer's dtype) from begin on.");
  // TVM's Buffer.access_ptr(access_mask, ...): `T.tvm_access_ptr(...)`, an opaque pointer
  // into the buffer (mask 1 read, 2 write, or a string of "r" and "w").
  t->def(
      "access_ptr", "self, access_mask, ptr_type=\"handle\", content_lanes=1, offset=0, extent=None",
      [](Interpreter& interp, Args& a) {
        const ir::Buffer& b = a[0].as<BufferValue>()->buffer;
        int64_t mask = 0;
        if (auto* text = a[1].as<script::Str>()) {
          for (char c : text->value) {
            if (c == 'r')
              mask |= 1;
            else if (c == 'w')
              mask |= 2;
            else
              raise(ExcKind::ValueError, "Unknown access_mask " + text->value);
          }
        } else {
          mask = a.get_int(1);
        }
        ir::DataType ptr_type = to_dtype(interp, a[2], "access_ptr ptr_type");
        int64_t lanes = a.get_int(3);
        ir::PrimExpr offset = to_expr(interp, a[4], "access_ptr offset");
        std::optional<ir::PrimExpr> extent;
        if (!a[5].is_none()) extent = to_expr(interp, a[5], "access_ptr extent");
        return wrap(guard_ir(
            [&] { return arith::buffer_access_ptr(b, mask, ptr_type, static_cast<int>(lanes), offset, extent); }));
      },
      "access_ptr(access_mask, ptr_type=\"handle\", content_lanes=1, offset=0, extent=None): an opaque pointer into "
      "the buffer.");
  t->def(
      "offset_of", "self, indices",
      [index_list](Interpreter& interp, Args& a) {
        const ir::Buffer& b = a[0].as<BufferValue>()->buffer;
        std::vector<ir::PrimExpr> idx = index_list(interp, a[1], "Buffer.offset_of");
        return wrap_list(guard_ir([&] { return arith::buffer_elem_offset(b, idx); }));
      },
      "offset_of(indices): the offset of the element in the flattened buffer, one per physical axis.");
  t->def(
      "get_flattened_buffer", "self",
      [](Interpreter&, Args& a) {
        const ir::Buffer& b = a[0].as<BufferValue>()->buffer;
        // An invalid separator is a ValueError (UserError), a refused layout an InternalError.
        ir::Buffer flat = guard_core([&] { return arith::flattened_buffer(b); });
        return flat == b ? a[0] : wrap(flat);
      },
      "get_flattened_buffer(): the buffer as its physical axes (one per axis_separators group; itself when 1-d).");
  t->def(
      "same_as", "self, other",
      [](Interpreter&, Args& a) {
        auto* other = a[1].as<BufferValue>();
        return Value::boolean(other && other->buffer == a[0].as<BufferValue>()->buffer);
      },
      "same_as(other): whether both are the same buffer object (not merely equal).");
  t->def("__getitem__", "self, indices", [](Interpreter& interp, Args& a) -> Value {
    const ir::Buffer& b = a[0].as<BufferValue>()->buffer;
    std::vector<Value> items = a[1].as<script::Tuple>() ? a[1].as<script::Tuple>()->items : std::vector<Value>{a[1]};
    if (items.size() == 1 && items[0].as<script::Tuple>() && items[0].as<script::Tuple>()->items.empty()) items.clear();
    if (items.size() != b->shape.size()) {
      raise(ExcKind::IndexError,
            fmt::format("buffer {} has {} dimension{}, but {} ind{} given", b->name, b->shape.size(),
                        b->shape.size() == 1 ? "" : "s", items.size(), items.size() == 1 ? "ex was" : "ices were"));
    }
    bool any_slice = false;
    for (const auto& v : items) any_slice |= v.as<script::SliceObject>() != nullptr;
    if (!any_slice) {
      std::vector<ir::PrimExpr> idx;
      for (const auto& v : items) {
        ir::PrimExpr e = to_expr(interp, v, "buffer index");
        if (!e->dtype.is_integer())
          raise(ExcKind::TypeError, "buffer index must be an integer, got " + e->dtype.to_string());
        idx.push_back(e);
      }
      return wrap(ir::buffer_load(b, std::move(idx)));
    }
    // A region: A[vi, 0:128].
    ir::BufferRegion region{b, {}};
    for (size_t d = 0; d < items.size(); ++d) {
      if (auto* s = items[d].as<script::SliceObject>()) {
        if (!s->step.is_none()) raise(ExcKind::ValueError, "buffer regions do not take a step");
        ir::PrimExpr lo =
            s->start.is_none() ? ir::make_int(0, b->shape[d]->dtype) : to_expr(interp, s->start, "region start");
        ir::PrimExpr hi = s->stop.is_none() ? b->shape[d] : to_expr(interp, s->stop, "region stop");
        region.region.push_back(guard_ir([&] { return ir::Range{lo, arith::extent_between(lo, hi)}; }));
      } else {
        ir::PrimExpr e = to_expr(interp, items[d], "buffer index");
        region.region.push_back(ir::Range{e, ir::make_int(1, e->dtype)});
      }
    }
    return Value(std::make_shared<RegionValue>(region));
  });
  return t;
}

}  // namespace

TypeObject* RegionValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("BufferRegion");
    type->set_module("tvm.script.tir");
    type->def_property("buffer", [](Interpreter&, const Value& v) { return wrap(v.as<RegionValue>()->region.buffer); });
    return type;
  }();
  return t.get();
}

TypeRef buffer_type() {
  static TypeRef t = make_buffer_type();
  return t;
}
TypeObject* BufferValue::type() const { return buffer_type().get(); }

std::string BufferValue::repr_hook(Interpreter&) {
  std::string dims;
  for (size_t i = 0; i < buffer->shape.size(); ++i) dims += (i ? ", " : "") + ir::script(buffer->shape[i]);
  return fmt::format("T.Buffer(({}{}), \"{}\")  # {}", dims, buffer->shape.size() == 1 ? "," : "",
                     buffer->dtype.to_string(), buffer->name);
}

}  // namespace tsch::bindings
