// The T.* buffer declarations (tvmscript_tir_buffers.h).
#include "bindings/tvm/script/tvmscript_tir_buffers.h"

#include <fmt/format.h>

#include "bindings/tvm/script/tvmscript_allocate_const.h"
#include "bindings/tvm/tir/buffer_options.h"
#include "frontend/tir_specs.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "values/attr_values.h"
#include "values/dtype_value.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using frontend::BufferTypeValue;
using frontend::TirBuilder;
using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;

std::vector<ir::PrimExpr> to_shape(Interpreter& interp, const Value& v, const std::string& what) {
  std::vector<Value> dims;
  if (v.as<script::Tuple>() || v.as<script::List>())
    dims = interp.to_vector(v);
  else
    dims.push_back(v);
  // Each dimension keeps the dtype it is written with, as in TVM: `(T.int64(2), 1280)` is an
  // int64 and an int32 dimension.
  std::vector<ir::PrimExpr> shape;
  for (const auto& d : dims) {
    ir::PrimExpr e = to_expr(interp, d, what);
    if (!e->dtype.is_integer())
      raise(ExcKind::TypeError, fmt::format("{}: dimensions must be integers, got {}", what, e->dtype.to_string()));
    shape.push_back(e);
  }
  return shape;
}

ir::BufferRegion to_region(Interpreter& interp, const Value& v) {
  if (auto* r = v.as<RegionValue>()) return r->region;
  if (auto* e = v.as<ExprValue>()) {
    if (auto* load = ir::as<ir::BufferLoadNode>(e->expr)) {
      ir::BufferRegion r{load->buffer, {}};
      for (const auto& i : load->indices) r.region.push_back(ir::Range{i, ir::make_int(1, i->dtype)});
      return r;
    }
  }
  if (auto* b = v.as<BufferValue>()) {
    ir::BufferRegion r{b->buffer, {}};
    for (const auto& d : b->buffer->shape) r.region.push_back(ir::Range{ir::make_int(0, d->dtype), d});
    return r;
  }
  raise(ExcKind::TypeError, "expected a buffer region such as A[vi, 0:128], got " + Interpreter::type_name(v));
}

TirBuilder& builder(const std::string& what) {
  TirBuilder* b = TirBuilder::current();
  if (!b) raise(ExcKind::ValueError, what + " can only be used inside a @T.prim_func");
  return *b;
}

namespace {

ir::DataType dtype_arg(Interpreter& interp, const Value& v, const std::string& what) {
  return to_dtype(interp, v, what);
}

// `T.Buffer((128,), "float32")` and the old subscript form `T.Buffer[(128,), "float32"]`.
class BufferFactory : public script::Object {
 public:
  TypeObject* type() const override {
    static TypeRef t = [] {
      auto type = std::make_shared<TypeObject>("Buffer");
      type->set_module("tvm.script.tir");
      auto build = [](Interpreter& interp, const Value& shape, const Value& dtype, const Value& scope,
                      const BufferOptions& options) {
        auto bt = std::make_shared<BufferTypeValue>();
        bt->shape = to_shape(interp, shape, "T.Buffer shape");
        if (!dtype.is_none()) bt->dtype = dtype_arg(interp, dtype, "T.Buffer dtype");
        if (auto* s = scope.as<script::Str>()) bt->scope = s->value;
        ir::Buffer proto = with_buffer_options(interp, ir::make_buffer("buffer", bt->dtype, bt->shape, bt->scope),
                                               options, "T.Buffer");
        bt->axis_separators = proto->axis_separators;
        bt->strides = proto->strides;
        bt->elem_offset = proto->elem_offset;
        bt->align = proto->align;
        bt->offset_factor = proto->offset_factor;
        return Value(bt);
      };
      type->def("__call__",
                "self, shape, dtype=\"float32\", data=None, strides=None, elem_offset=None, scope=\"global\", align=0, "
                "offset_factor=0, buffer_type=\"\", axis_separators=None",
                [build](Interpreter& interp, Args& a) {
                  if (a[3].is_none())
                    return build(interp, a[1], a[2], a[6], BufferOptions{a[4], a[5], a[7], a[8], a[10]});
                  // `X = T.Buffer(shape, data=p)` in a body: a buffer over existing data (TVM
                  // declares it without a statement), e.g. over a T.allocate_const.
                  auto* ev = a[3].as<ExprValue>();
                  auto* var = ev ? ir::as<ir::VarNode>(ev->expr) : nullptr;
                  if (!var || !var->dtype.is_handle()) a.type_error(3, "a data pointer such as A.data");
                  ir::DataType dt =
                      a[2].is_none() ? ir::DataType::float32() : dtype_arg(interp, a[2], "T.Buffer dtype");
                  std::string scope = a[6].as<script::Str>() ? a[6].as<script::Str>()->value : "global";
                  // TVM's buffer takes its scope from a pointer's annotation.
                  if (var->type_annotation) scope = var->type_annotation->storage_scope;
                  ir::Buffer buf = ir::make_buffer("buffer", dt, to_shape(interp, a[1], "T.Buffer shape"), scope);
                  buf = with_buffer_options(interp, buf, BufferOptions{a[4], a[5], a[7], a[8], a[10]}, "T.Buffer");
                  auto node = std::make_shared<ir::BufferNode>(*buf);
                  node->data = std::static_pointer_cast<const ir::VarNode>(ev->expr);
                  auto v = std::make_shared<BufferValue>(ir::Buffer(node));
                  v->fresh = true;
                  v->owns_data = false;
                  return Value(v);
                });
      type->def("__getitem__", "self, key", [build](Interpreter& interp, Args& a) {
        std::vector<Value> parts =
            a[1].as<script::Tuple>() ? a[1].as<script::Tuple>()->items : std::vector<Value>{a[1]};
        if (parts.size() == 2 && !parts[1].as<script::Str>() && !parts[1].as<TirDTypeValue>()) parts = {a[1]};
        return build(interp, parts[0], parts.size() > 1 ? parts[1] : Value(), Value(), BufferOptions{});
      });
      return type;
    }();
    return t.get();
  }
};

}  // namespace

void def_buffer_functions(Namespace& ns) {
  ns.set(intern("Buffer"), Value(std::make_shared<BufferFactory>()));
  // Buffers.
  auto alloc = [](Interpreter& interp, Args& a) {
    auto& b = builder("T.alloc_buffer");
    ir::Buffer buf = ir::make_buffer("buffer", dtype_arg(interp, a[1], "T.alloc_buffer dtype"),
                                     to_shape(interp, a[0], "T.alloc_buffer shape"), a.get_str(5));
    buf = with_buffer_options(interp, buf, BufferOptions{a[3], a[4], a[6], a[7], a[9]}, "T.alloc_buffer");
    if (b.in_block())
      b.blocks.back().alloc_buffers.push_back(buf);
    else
      b.root_allocs.push_back(buf);
    auto v = std::make_shared<BufferValue>(buf);
    v->fresh = true;
    return Value(v);
  };
  const char* alloc_sig =
      "shape, dtype=\"float32\", data=None, strides=None, elem_offset=None, scope=\"global\", align=-1, "
      "offset_factor=0, buffer_type=\"default\", axis_separators=None";
  def_function(ns, "alloc_buffer", alloc_sig, alloc);
  // Lowered code: `X = T.decl_buffer(shape, dtype)` allocates for the rest of the body;
  // with `data=A.data` it declares a view of existing data.
  def_function(ns, "decl_buffer", alloc_sig, [](Interpreter& interp, Args& a) {
    auto& b = builder("T.decl_buffer");
    ir::Buffer buf = ir::make_buffer("buffer", dtype_arg(interp, a[1], "T.decl_buffer dtype"),
                                     to_shape(interp, a[0], "T.decl_buffer shape"), a.get_str(5));
    buf = with_buffer_options(interp, buf, BufferOptions{a[3], a[4], a[6], a[7], a[9]}, "T.decl_buffer");
    bool allocates = a[2].is_none();
    if (!allocates) {
      auto* ev = a[2].as<ExprValue>();
      auto* var = ev ? ir::as<ir::VarNode>(ev->expr) : nullptr;
      if (!var || !var->dtype.is_handle()) a.type_error(2, "a data pointer such as A.data");
      auto node = std::make_shared<ir::BufferNode>(*buf);
      node->data = std::static_pointer_cast<const ir::VarNode>(ev->expr);
      if (var->type_annotation) node->scope = var->type_annotation->storage_scope;  // TVM's Buffer::scope()
      buf = node;
    }
    b.pending_decl = TirBuilder::PendingDecl{buf, allocates};
    auto v = std::make_shared<BufferValue>(buf);
    v->fresh = true;
    v->owns_data = allocates;
    return Value(v);
  });
  // `p = T.allocate_const(data, dtype, extents)`: constant data for the rest of the body
  // (TVM's AllocateConst), read through buffers declared over it (`data=p`).
  def_function(ns, "allocate_const", "data, dtype, extents, annotations=None", [](Interpreter& interp, Args& a) {
    auto& b = builder("T.allocate_const");
    ir::DataType dt = dtype_arg(interp, a[1], "T.allocate_const dtype");
    bool is_float = dt.code == ir::DataType::Code::Float && (dt.bits == 32 || dt.bits == 64);
    bool is_int = dt.is_integer() && (dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64);
    if (dt.lanes != 1 || (!is_float && !is_int)) {
      raise(ExcKind::NotImplementedError,
            fmt::format(
                "not supported yet: T.allocate_const of {} (int8 to int64, uint8 to uint64, float32 and float64 are)",
                dt.to_string()));
    }
    std::vector<ir::PrimExpr> extents = to_shape(interp, a[2], "T.allocate_const extents");
    int64_t count = 1;
    for (const auto& e : extents) {
      int64_t n = 0;
      if (!ir::as_const_int(e, &n) || n < 0) a.value_error(2, "extents must be non-negative integer constants");
      count *= n;
    }
    auto node = allocate_const_node(interp, a, dt, extents, count);
    if (!a[3].is_none()) node->annotations = to_attr_map(interp, a[3], "T.allocate_const annotations");
    b.pending_const = node;
    auto v = std::make_shared<ExprValue>(ir::PrimExpr(node->buffer_var));
    v->fresh = true;
    return Value(v);
  });
  def_function(ns, "sblock_alloc_buffer", alloc_sig, alloc);
  def_function(
      ns, "match_buffer",
      "param, shape=None, dtype=\"float32\", data=None, strides=None, elem_offset=None, scope=\"global\", align=-1, "
      "offset_factor=0, buffer_type=\"default\", axis_separators=None",
      [](Interpreter& interp, Args& a) {
        auto& b = builder("T.match_buffer");
        ir::DataType dt = dtype_arg(interp, a[2], "T.match_buffer dtype");
        if (auto* e = a[0].as<ExprValue>(); e && e->expr->dtype.is_handle()) {
          auto* var = ir::as<ir::VarNode>(e->expr);
          ir::Var param;
          for (const auto& p : b.params) {
            if (p.get() == var) param = p;
          }
          if (!param) a.value_error(0, "T.match_buffer binds a T.handle parameter of the function");
          if (a[1].is_none()) a.value_error(1, "a shape is required");
          for (const auto& [v, buf] : b.buffer_map) {
            if (v == param) a.value_error(0, "parameter " + param->name + " is already bound to buffer " + buf->name);
          }
          ir::Buffer buf = ir::make_buffer("buffer", dt, to_shape(interp, a[1], "T.match_buffer shape"), a.get_str(6));
          buf = with_buffer_options(interp, buf, BufferOptions{a[4], a[5], a[7], a[8], a[10]}, "T.match_buffer");
          b.buffer_map.emplace_back(param, buf);
          auto v = std::make_shared<BufferValue>(buf);
          v->fresh = true;
          return Value(v);
        }
        ir::BufferRegion source = to_region(interp, a[0]);
        std::vector<ir::PrimExpr> shape;
        if (a[1].is_none()) {
          for (const auto& r : source.region) shape.push_back(r.extent);
        } else {
          shape = to_shape(interp, a[1], "T.match_buffer shape");
        }
        ir::Buffer buf = ir::make_buffer("buffer", dt, shape, a.get_str(6));
        buf = with_buffer_options(interp, buf, BufferOptions{a[4], a[5], a[7], a[8], a[10]}, "T.match_buffer");
        b.block("T.match_buffer of a region").match_buffers.push_back(ir::MatchBufferRegion{buf, source});
        auto v = std::make_shared<BufferValue>(buf);
        v->fresh = true;
        return Value(v);
      });
}

}  // namespace tsch::bindings
