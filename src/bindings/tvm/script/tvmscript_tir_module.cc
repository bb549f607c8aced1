// `from tvm.script import tir as T`: the TVMScript namespace for prim_funcs. Most entries
// return front-end values (loops, axes, block headers) or record into the function being
// parsed (T.reads, T.func_attr, T.alloc_buffer, ...); math functions build expressions.
#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "arith/simplify.h"
#include "bindings/tvm/script/tvmscript_allocate_const.h"
#include "bindings/tvm/script/tvmscript_decorators.h"
#include "bindings/tvm/script/tvmscript_tir_buffers.h"
#include "bindings/tvm/script/tvmscript_tir_builtins.h"
#include "bindings/tvm/script/tvmscript_tir_calls.h"
#include "bindings/tvm/script/tvmscript_tir_frames.h"
#include "bindings/tvm/script/tvmscript_tir_math.h"
#include "bindings/tvm/script/tvmscript_tir_mma.h"
#include "bindings/tvm/script/tvmscript_tir_vector.h"
#include "bindings/tvm/tir/buffer_options.h"
#include "frontend/tir_builder.h"
#include "frontend/tir_parser.h"
#include "frontend/tir_specs.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "script/types.h"
#include "values/attr_values.h"
#include "values/dtype_value.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using frontend::AxisValue;
using frontend::BlockHeaderValue;
using frontend::BufferTypeValue;
using frontend::EnvThreadValue;
using frontend::LaunchThreadValue;
using frontend::LetFrameValue;
using frontend::LoopValue;
using frontend::TirBuilder;
using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

// ------------------------------------------------------------------ conversions

std::vector<ir::BufferRegion> to_regions(Interpreter& interp, const std::vector<Value>& values) {
  std::vector<ir::BufferRegion> out;
  for (const auto& v : values) {
    // Older TVMScript passes one list: T.reads([A[...], B[...]]).
    if (v.as<script::List>() || v.as<script::Tuple>()) {
      for (const auto& item : interp.to_vector(v)) out.push_back(to_region(interp, item));
    } else {
      out.push_back(to_region(interp, v));
    }
  }
  return out;
}

ir::DataType dtype_arg(Interpreter& interp, const Value& v, const std::string& what) {
  return to_dtype(interp, v, what);
}

// ------------------------------------------------------------------ types with methods

TypeRef prim_func_decorator_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("prim_func");
    type->set_module("tvm.script.tir");
    type->def(
        "__call__", "self, *args, private=False, check_well_formed=True, s_tir=False",
        [](Interpreter& interp, Args& a) -> Value {
          auto* self = a[0].as<PrimFuncDecorator>();
          bool is_private = self->is_private || interp.truthy(a[2]);
          bool check_well_formed = self->check_well_formed && interp.truthy(a[3]);
          if (!a.varargs().empty()) {
            // T.prim_func(f) on a function defined without the decorator (TVM re-parses its
            // source): its body is parsed as TVMScript where it was defined.
            auto* fn = a.varargs().size() == 1 ? a.varargs()[0].as<script::Function>() : nullptr;
            if (!fn || !fn->def) {
              raise(ExcKind::TypeError,
                    "T.prim_func takes a function defined with `def` (or decorates one: write @T.prim_func above it)");
            }
            script::Scope scope;
            scope.locals = std::make_shared<Namespace>();
            scope.globals = fn->globals;
            scope.enclosing = fn->enclosing;
            scope.owner = fn->owner;
            script::Evaluator defining(interp, scope);
            ir::PrimFunc f =
                guard_ir([&] { return frontend::parse_prim_func(defining, *fn->def, is_private, check_well_formed); });
            return Value(std::make_shared<PrimFuncValue>(f, fn->name));
          }
          auto d = std::make_shared<PrimFuncDecorator>();
          d->is_private = is_private;
          d->check_well_formed = check_well_formed;
          return Value(d);
        });
    return type;
  }();
  return t;
}

// `T.let[T.int32]`.
class LetFactory : public script::Object {
 public:
  TypeObject* type() const override {
    static TypeRef t = [] {
      auto type = std::make_shared<TypeObject>("let");
      type->set_module("tvm.script.tir");
      type->def("__getitem__", "self, dtype", [](Interpreter& interp, Args& a) {
        return Value(std::make_shared<TirDTypeValue>(to_dtype(interp, a[1], "T.let")));
      });
      return type;
    }();
    return t.get();
  }
};

// ------------------------------------------------------------------ the module

void build_tir_module(Interpreter& interp, script::Module& m) {  // function-length: table (one def per script name)
  Namespace& ns = *m.globals;
  auto deco = std::make_shared<PrimFuncDecorator>();
  ns.set(intern("prim_func"), Value(deco));
  ns.set(intern("let"), Value(std::make_shared<LetFactory>()));
  for (const char* name : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                           "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2", "bool", "handle"}) {
    ns.set(intern(name), Value(std::make_shared<TirDTypeValue>(*ir::DataType::parse(name))));
  }
  // Vector types (`T.int16x32(1)` broadcasts; `T.float32x4` as an annotation).
  for (const char* base : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                           "float32", "float64", "float8_e4m3fn", "float8_e5m2"}) {
    for (int lanes : {2, 3, 4, 8, 16, 32, 64}) {
      std::string name = std::string(base) + "x" + std::to_string(lanes);
      ns.set(intern(name), Value(std::make_shared<TirDTypeValue>(*ir::DataType::parse(name))));
    }
  }
  def_function(ns, "var", "dtype, name=\"v\"", [](Interpreter& interp, Args& a) {
    auto v = std::make_shared<ExprValue>(ir::PrimExpr(ir::make_var(a.get_str(1), to_dtype(interp, a[0], "T.var"))));
    v->fresh = true;
    return Value(v);
  });
  def_frame_functions(ns);    // loops, T.LetStmt, thread launches, blocks, T.axis
  def_pointer_functions(ns);  // T.Ptr, T.ptr, T.buffer_var
  def_function(ns, "reads", "*regions", [](Interpreter& interp, Args& a) {
    builder("T.reads").block("T.reads").reads = to_regions(interp, a.varargs());
    return Value();
  });
  def_function(ns, "writes", "*regions", [](Interpreter& interp, Args& a) {
    builder("T.writes").block("T.writes").writes = to_regions(interp, a.varargs());
    return Value();
  });
  def_function(ns, "where", "predicate", [](Interpreter& interp, Args& a) {
    ir::PrimExpr p = to_expr(interp, a[0], "T.where predicate");
    builder("T.where").block("T.where").predicate = p->dtype.is_bool() ? p : ir::cast(ir::DataType::bool_(), p);
    return Value();
  });
  auto block_attr = [](Interpreter& interp, Args& a) {
    auto& frame = builder("T.block_attr").block("T.block_attr");
    for (auto& kv : to_attr_map(interp, a[0], "T.block_attr")) frame.annotations.push_back(kv);
    return Value();
  };
  def_function(ns, "block_attr", "attrs", block_attr);
  def_function(ns, "sblock_attr", "attrs", block_attr);
  def_function(ns, "func_attr", "attrs", [](Interpreter& interp, Args& a) {
    auto& b = builder("T.func_attr");
    for (auto& kv : to_attr_map(interp, a[0], "T.func_attr")) b.func_attrs.push_back(kv);
    return Value();
  });
  def_buffer_functions(ns);  // T.Buffer, alloc_buffer, decl_buffer, allocate_const, match_buffer
  def_math_functions(ns);
  auto binary = [&](const char* name, ir::ExprKind kind) {
    def_function(ns, name, "a, b", [kind](Interpreter& interp, Args& a) {
      ir::PrimExpr x = to_expr(interp, a[0], "operand"), y = to_expr(interp, a[1], "operand");
      return wrap(guard_ir([&] { return ir::make_binary(kind, x, y); }));
    });
  };
  // TVM's bitwise intrinsics (what `&`, `|`, `^`, `<<`, `>>`, `~` build on integers).
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right"}) {
    std::string name = op;
    def_function(ns, op, "a, b, span=None", [name](Interpreter& interp, Args& a) {
      ir::PrimExpr x = to_expr(interp, a[0], "operand"), y = to_expr(interp, a[1], "operand");
      return wrap(guard_ir([&] { return ir::bitwise(name, x, y); }));
    });
  }
  def_function(ns, "bitwise_not", "a, span=None", [](Interpreter& interp, Args& a) {
    ir::PrimExpr x = to_expr(interp, a[0], "operand");
    return wrap(guard_ir([&] { return ir::bitwise_not(x); }));
  });
  // T.ceildiv(a, b): (a + b - 1) // b, as TVM builds it.
  def_function(ns, "ceildiv", "lhs, rhs, span=None", [](Interpreter& interp, Args& a) {
    ir::PrimExpr x = to_expr(interp, a[0], "operand"), y = to_expr(interp, a[1], "operand");
    return wrap(guard_ir([&] { return ir::floordiv(ir::sub(ir::add(x, y), ir::make_int(1, y->dtype)), y); }));
  });
  binary("max", ir::ExprKind::Max);
  binary("min", ir::ExprKind::Min);
  binary("floordiv", ir::ExprKind::FloorDiv);
  binary("floormod", ir::ExprKind::FloorMod);
  binary("truncdiv", ir::ExprKind::Div);
  binary("truncmod", ir::ExprKind::Mod);
  binary("Div", ir::ExprKind::Div);
  binary("Mod", ir::ExprKind::Mod);
  binary("FloorDiv", ir::ExprKind::FloorDiv);
  binary("FloorMod", ir::ExprKind::FloorMod);
  binary("Add", ir::ExprKind::Add);
  binary("Sub", ir::ExprKind::Sub);
  binary("Mul", ir::ExprKind::Mul);
  binary("Max", ir::ExprKind::Max);
  binary("Min", ir::ExprKind::Min);
  binary("And", ir::ExprKind::And);
  binary("Or", ir::ExprKind::Or);
  def_function(ns, "abs", "x", [](Interpreter& interp, Args& a) {
    ir::PrimExpr x = to_expr(interp, a[0], "T.abs argument");
    if (x->dtype.is_float()) return wrap(ir::call(x->dtype, "fabs", {x}));
    return wrap(guard_ir(
        [&] { return ir::select(ir::make_binary(ir::ExprKind::GE, x, ir::make_int(0, x->dtype)), x, ir::neg(x)); }));
  });
  def_function(ns, "Not", "x", [](Interpreter& interp, Args& a) {
    return wrap(ir::logical_not(to_expr(interp, a[0], "T.Not argument")));
  });
  def_function(ns, "Select", "condition, true_value, false_value", [](Interpreter& interp, Args& a) {
    ir::PrimExpr c = to_expr(interp, a[0], "condition"), t = to_expr(interp, a[1], "true value"),
                 f = to_expr(interp, a[2], "false value");
    return wrap(guard_ir([&] { return ir::select(c, t, f); }));
  });
  // Vector expressions of lowered code.
  def_function(ns, "Ramp", "base, stride, lanes", [](Interpreter& interp, Args& a) -> Value {
    ir::PrimExpr base = to_expr(interp, a[0], "T.Ramp base"), stride = to_expr(interp, a[1], "T.Ramp stride");
    int64_t lanes = a.get_int(2);
    if (lanes < 2 || lanes > 1024) a.value_error(2, "between 2 and 1024 lanes");
    if (!base->dtype.is_integer() || base->dtype.lanes != 1 || stride->dtype != base->dtype) {
      a.type_error(1, "an integer stride of the base's dtype");
    }
    return wrap(std::make_shared<ir::RampNode>(base, stride, static_cast<int>(lanes)));
  });
  def_function(ns, "Broadcast", "value, lanes", [](Interpreter& interp, Args& a) -> Value {
    ir::PrimExpr value = to_expr(interp, a[0], "T.Broadcast value");
    int64_t lanes = a.get_int(1);
    if (lanes < 2 || lanes > 1024) a.value_error(1, "between 2 and 1024 lanes");
    if (value->dtype.lanes != 1) a.type_error(0, "a scalar");
    return wrap(std::make_shared<ir::BroadcastNode>(value, static_cast<int>(lanes)));
  });
  def_vector_functions(ns);
  def_mma_functions(ns);
  // T.Cast is TVM's tvm.tir.Cast: the node as written, a literal or a value of the same dtype
  // included (T.cast / astype fold them).
  def_function(ns, "Cast", "dtype, value", [](Interpreter& interp, Args& a) {
    ir::DataType t = dtype_arg(interp, a[0], "T.Cast dtype");
    ir::PrimExpr v = to_expr(interp, a[1], "T.Cast value");
    if (t.lanes != v->dtype.lanes)
      a.value_error(0, fmt::format("a dtype of {} lanes, as the value's {}", v->dtype.lanes, v->dtype.to_string()));
    return wrap(ir::PrimExpr(std::make_shared<ir::CastNode>(t, v)));
  });
  def_function(ns, "cast", "value, dtype", [](Interpreter& interp, Args& a) {
    return wrap(ir::cast(dtype_arg(interp, a[1], "T.cast dtype"), to_expr(interp, a[0], "T.cast value")));
  });
  def_function(ns, "evaluate", "value",
               [](Interpreter& interp, Args& a) { return wrap(to_expr(interp, a[0], "T.evaluate value")); });
  // T.call_packed("name", A, x, ...): a buffer passes whole (its data and declared shape).
  // T.meta_var(value): a script value used as it is (TVM's marker that an assignment binds a
  // Python value, not an IR variable; tsch binds script values that way already).
  def_function(ns, "meta_var", "value", [](Interpreter&, Args& a) { return a[0]; });
  // T.vscale(): the multiple of a scalable vector's minimum length (TVM's builtin for Arm SVE);
  // printed and parsed, refused by the code generators ("not supported yet").
  def_function(ns, "vscale", "",
               [](Interpreter&, Args&) { return wrap(ir::call(ir::DataType::int32(), "vscale", {})); });
  // T.assume(cond): what later passes may take as true (code generation drops it).
  def_function(ns, "assume", "cond=None", [](Interpreter& interp, Args& a) {
    ir::PrimExpr cond =
        a[0].is_none() ? ir::make_bool(true) : to_expr_as(interp, a[0], ir::DataType::bool_(), "T.assume condition");
    return wrap(ir::call(ir::DataType::bool_(), "assume", {cond}));
  });
  // The tensor-core builtins TVM's wmma intrinsic descriptions use (source level: printed,
  // parsed and scheduled; no code generator emits them yet).
  for (const char* name :
       {"tvm_fill_fragment", "tvm_load_matrix_sync", "tvm_store_matrix_sync", "tvm_mma_sync", "tvm_bmma_sync"}) {
    std::string op = name;
    def_function(ns, name, "*args, dtype=\"handle\"", [op](Interpreter& interp, Args& a) {
      std::vector<ir::PrimExpr> args;
      for (const auto& v : a.varargs()) {
        // The layout ("row_major" / "col_major") is a string argument.
        if (auto* text = v.as<script::Str>())
          args.push_back(std::make_shared<ir::StringImmNode>(text->value));
        else
          args.push_back(to_expr(interp, v, "T." + op + " argument"));
      }
      return wrap(ir::call(dtype_arg(interp, a[1], "T." + op + " dtype"), op, args));
    });
  }
  def_call_functions(ns);
  def_builtin_functions(ns);  // after the math functions: power is pow
  auto limit = [](bool max) {
    return [max](Interpreter& interp, Args& a) {
      ir::DataType dt = dtype_arg(interp, a[0], max ? "T.max_value" : "T.min_value");
      return wrap(max ? ir::max_value(dt) : ir::min_value(dt));
    };
  };
  def_function(ns, "max_value", "dtype", limit(true));
  def_function(ns, "min_value", "dtype", limit(false));
}

}  // namespace

script::TypeObject* PrimFuncDecorator::type() const { return prim_func_decorator_type().get(); }

void register_tvmscript_tir_module() {
  script::ModuleLoader::register_builtin("tvm.script.tir", build_tir_module);
  script::ModuleLoader::register_builtin("tvm.script.tirx", build_tir_module);
}

}  // namespace tsch::bindings
