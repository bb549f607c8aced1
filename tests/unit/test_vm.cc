// The Relax VM runtime on executables built by hand with ExecBuilder: packed and VM-to-VM
// calls, loops and branches, every builtin (and its failure messages), storage aliasing and
// memory statistics, exceptions reaching the caller unchanged, save/load, and a speed probe.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>

#include "relax/build.h"
#include "runtime/call.h"
#include "runtime/registry.h"
#include "runtime/vm/builtin.h"
#include "runtime/vm/vm.h"
#include "script/error_report.h"
#include "script/interpreter.h"
#include "support/error.h"
#include "support/interrupt.h"

using namespace tsch;
using runtime::Any;
using runtime::NDArrayRef;
using runtime::Shape;
using namespace tsch::runtime::vm;
using Arg = Instruction::Arg;

namespace {

Arg R(int64_t r) { return Arg::Register(r); }
Arg Imm(int64_t v) { return Arg::Immediate(v); }
const Arg kVM = Arg::Register(Instruction::kVMRegister);

struct CustomError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Small functions the executables below call, registered once.
const bool registered = [] {
  auto reg = [](const std::string& name, runtime::PackedFuncObj::Body body) {
    runtime::register_global_func(name, runtime::make_packed_func(std::move(body), name), true);
  };
  reg("test.vm.add", [](const std::vector<Any>& a) { return Any::of_int(a[0].as_int() + a[1].as_int()); });
  reg("test.vm.mul", [](const std::vector<Any>& a) { return Any::of_int(a[0].as_int() * a[1].as_int()); });
  reg("test.vm.less", [](const std::vector<Any>& a) { return Any::of_bool(a[0].as_int() < a[1].as_int()); });
  reg("test.vm.throw_user",
      [](const std::vector<Any>&) -> Any { throw UserError(UserErrorKind::IndexError, "the original message"); });
  reg("test.vm.throw_custom", [](const std::vector<Any>&) -> Any { throw CustomError("custom failure"); });
  // apply(f, x) = f(x): a function received as a value.
  reg("test.vm.apply", [](const std::vector<Any>& a) { return (*a[0].as_function())({a[1]}); });
  reg("test.vm.count_args", [](const std::vector<Any>& a) { return Any::of_int(static_cast<int64_t>(a.size())); });
  return true;
}();

std::shared_ptr<VirtualMachine> make_vm(ExecBuilder& b, runtime::Module lib = nullptr) {
  return std::make_shared<VirtualMachine>(b.get(), std::move(lib));
}

// The message of the UserError `f` throws, checking its kind.
template <typename F>
std::string user_error(F&& f, UserErrorKind kind) {
  try {
    f();
  } catch (const UserError& e) {
    CHECK(static_cast<int>(e.kind) == static_cast<int>(kind));
    return e.what();
  }
  FAIL("no UserError was thrown");
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

NDArrayRef array(const std::string& dtype, Shape shape) {
  return runtime::make_array(*ir::DataType::parse(dtype), std::move(shape));
}

// sum(n) = 0 + 1 + ... + n-1, looping through registered add and less.
void emit_sum_loop(ExecBuilder& b) {
  b.emit_function("sum", 1, {"n"});
  b.emit_call("vm.builtin.copy", {Imm(0)}, 1);    // 0: i = 0
  b.emit_call("vm.builtin.copy", {Imm(0)}, 2);    // 1: s = 0
  b.emit_call("test.vm.less", {R(1), R(0)}, 3);   // 2: c = i < n
  b.emit_if(3, 4);                                // 3: if not c: goto 7
  b.emit_call("test.vm.add", {R(2), R(1)}, 2);    // 4: s += i
  b.emit_call("test.vm.add", {R(1), Imm(1)}, 1);  // 5: i += 1
  b.emit_goto(-4);                                // 6: goto 2
  b.emit_ret(2);                                  // 7: return s
  b.end_function("sum");
}

}  // namespace

TEST_CASE("VM: Any holds tuples and shapes", "[vm]") {
  Any t = Any::of_tuple({Any::of_int(1), Any::of_str("a")});
  Any s = Any::of_shape({2, 3});
  CHECK(t.type_name() == "Array");
  CHECK(s.type_name() == "ShapeTuple");
  CHECK(t.as_tuple().size() == 2);
  CHECK(t.as_tuple()[1].as_str() == "a");
  CHECK(s.as_shape() == Shape{2, 3});
  CHECK(t.as_object() == nullptr);  // only Objects have one
  CHECK(user_error([&] { s.as_tuple(); }, UserErrorKind::TypeError) == "expected an Array, got ShapeTuple");
  CHECK(user_error([&] { t.as_shape(); }, UserErrorKind::TypeError) == "expected a ShapeTuple, got Array");
}

TEST_CASE("VM: packed calls, VM-to-VM calls and text form", "[vm]") {
  ExecBuilder b;
  b.emit_function("add3", 3, {"a", "b", "c"});
  b.emit_call("test.vm.add", {R(0), R(1)}, 10);  // registers past the arguments are renumbered
  b.emit_call("test.vm.add", {R(10), R(2)}, 20);
  b.emit_ret(20);
  b.end_function("add3");
  b.emit_function("main", 1, {"x"});
  b.emit_call("add3", {R(0), Imm(5), Imm(100)}, 7);
  b.emit_ret(7);
  b.end_function("main");
  auto vm = make_vm(b);
  CHECK(vm->invoke("main", {Any::of_int(1)}).as_int() == 106);
  CHECK(vm->invoke("add3", {Any::of_int(1), Any::of_int(2), Any::of_int(3)}).as_int() == 6);
  CHECK((*vm->get_function("main"))({Any::of_int(2)}).as_int() == 107);
  CHECK(vm->get_function("test.vm.add") == nullptr);  // a packed entry, not a VM function
  CHECK(vm->get_function("nope") == nullptr);
  CHECK(vm->has_function("add3"));
  CHECK(vm->executable().func_table[vm->executable().func_map.at("add3")].register_file_size == 5);
  CHECK(vm->executable().as_text() ==
        "@add3:\n"
        "  call  test.vm.add      in: %0, %1       dst: %3\n"
        "  call  test.vm.add      in: %3, %2       dst: %4\n"
        "  ret   %4\n"
        "\n"
        "@test.vm.add packed_func;\n"
        "\n"
        "@main:\n"
        "  call  add3             in: %0, i5, i100 dst: %1\n"
        "  ret   %1\n"
        "\n");
  CHECK(vm->executable().as_python() ==
        "ib = rx.Builder()\n"
        "with ib.function(\"add3\", num_inputs=3):\n"
        "    ib.emit_call(\"test.vm.add\", args=[ib.r(0), ib.r(1)], dst=ib.r(3))\n"
        "    ib.emit_call(\"test.vm.add\", args=[ib.r(3), ib.r(2)], dst=ib.r(4))\n"
        "    ib.emit_ret(ib.r(4))\n"
        "with ib.function(\"main\", num_inputs=1):\n"
        "    ib.emit_call(\"add3\", args=[ib.r(0), ib.imm(5), ib.imm(100)], dst=ib.r(1))\n"
        "    ib.emit_ret(ib.r(1))\n");
}

TEST_CASE("VM: a loop through goto and if, and its text", "[vm]") {
  ExecBuilder b;
  emit_sum_loop(b);
  auto vm = make_vm(b);
  CHECK(vm->invoke("sum", {Any::of_int(10)}).as_int() == 45);
  CHECK(vm->invoke("sum", {Any::of_int(0)}).as_int() == 0);
  CHECK(vm->executable().as_text() ==
        "@sum:\n"
        "  call  vm.builtin.copy  in: i0           dst: %1\n"
        "  call  vm.builtin.copy  in: i0           dst: %2\n"
        "  call  test.vm.less     in: %1, %0       dst: %3\n"
        "  If    %3, 4\n"
        "  call  test.vm.add      in: %2, %1       dst: %2\n"
        "  call  test.vm.add      in: %1, i1       dst: %1\n"
        "  goto  -4\n"
        "  ret   %2\n"
        "\n"
        "@vm.builtin.copy packed_func;\n"
        "\n"
        "@test.vm.less packed_func;\n"
        "\n"
        "@test.vm.add packed_func;\n"
        "\n");
}

TEST_CASE("VM: recursion between VM functions, and its limit", "[vm]") {
  // fact(n) = n < 2 ? 1 : n * fact(n - 1)
  ExecBuilder b;
  b.emit_function("fact", 1, {"n"});
  b.emit_call("test.vm.less", {R(0), Imm(2)}, 1);  // 0
  b.emit_if(1, 3);                                 // 1: n >= 2: goto 4
  b.emit_call("vm.builtin.copy", {Imm(1)}, 2);     // 2
  b.emit_ret(2);                                   // 3
  b.emit_call("test.vm.add", {R(0), Imm(-1)}, 3);  // 4
  b.emit_call("fact", {R(3)}, 4);                  // 5
  b.emit_call("test.vm.mul", {R(0), R(4)}, 5);     // 6
  b.emit_ret(5);                                   // 7
  b.end_function("fact");
  b.emit_function("forever", 1, {"x"});
  b.emit_call("forever", {R(0)}, 1);
  b.emit_ret(1);
  b.end_function("forever");
  auto vm = make_vm(b);
  CHECK(vm->invoke("fact", {Any::of_int(10)}).as_int() == 3628800);
  std::string msg = user_error([&] { vm->invoke("forever", {Any::of_int(0)}); }, UserErrorKind::RuntimeError);
  CHECK(msg == "maximum recursion depth exceeded in the VM function forever");
  CHECK(vm->invoke("fact", {Any::of_int(5)}).as_int() == 120);  // usable afterwards
}

TEST_CASE("VM: functions as values, closures, call_tir_dyn", "[vm]") {
  ExecBuilder b;
  b.emit_function("twice", 1, {"x"});
  b.emit_call("test.vm.mul", {R(0), Imm(2)}, 1);
  b.emit_ret(1);
  b.end_function("twice");
  b.emit_function("main", 1, {"x"});
  b.emit_call("test.vm.apply", {b.function_arg("twice"), R(0)}, 1);  // twice(x)
  b.emit_call("vm.builtin.make_closure", {b.function_arg("test.vm.add"), Imm(100)}, 2);
  b.emit_call("vm.builtin.invoke_closure", {kVM, R(2), R(1)}, 3);  // 2x + 100
  b.emit_call("vm.builtin.call_tir_dyn",
              {b.function_arg("test.vm.count_args"), R(0), b.convert_constant(Any::of_shape({7, 8}))}, 4);
  b.emit_call("vm.builtin.make_tuple", {R(3), R(4)}, 5);
  b.emit_ret(5);
  b.end_function("main");
  auto vm = make_vm(b);
  Any out = vm->invoke("main", {Any::of_int(4)});
  REQUIRE(out.as_tuple().size() == 2);
  CHECK(out.as_tuple()[0].as_int() == 108);
  CHECK(out.as_tuple()[1].as_int() == 3);  // x, 7, 8
}

TEST_CASE("VM: shape heap, match_shape, make_shape and struct-info checks", "[vm]") {
  // main(x: R.Tensor((n, 4), "float32"), y: R.Tensor((n,), "int32")) -> R.Shape((n, 8))
  const std::string ctx_x =
      "ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 4), dtype=\"float32\")) ";
  const std::string ctx_y = "ErrorContext(fn=main, loc=param[1], param=y, annotation=R.Tensor((n,), dtype=\"int32\")) ";
  auto code = [](MatchShapeCode c) { return Imm(static_cast<int64_t>(c)); };
  auto make = [](MakeShapeCode c) { return Imm(static_cast<int64_t>(c)); };
  ExecBuilder b;
  b.emit_function("main", 2, {"x", "y"});
  b.emit_call("vm.builtin.alloc_shape_heap", {kVM, Imm(1)}, 2);
  b.emit_call("vm.builtin.check_tensor_info",
              {R(0), Imm(2), b.convert_constant(Any::of_str("float32")), b.convert_constant(Any::of_str(ctx_x))});
  b.emit_call("vm.builtin.check_tensor_info",
              {R(1), Imm(1), b.convert_constant(Any::of_str("int32")), b.convert_constant(Any::of_str(ctx_y))});
  b.emit_call("vm.builtin.match_shape",
              {R(0), R(2), Imm(2), code(MatchShapeCode::kStoreToHeap), Imm(0), code(MatchShapeCode::kAssertEqualToImm),
               Imm(4), b.convert_constant(Any::of_str(ctx_x))});
  b.emit_call("vm.builtin.match_shape", {R(1), R(2), Imm(1), code(MatchShapeCode::kAssertEqualToLoad), Imm(0),
                                         b.convert_constant(Any::of_str(ctx_y))});
  b.emit_call("vm.builtin.make_shape",
              {R(2), Imm(2), make(MakeShapeCode::kLoadShape), Imm(0), make(MakeShapeCode::kUseImm), Imm(8)}, 3);
  b.emit_ret(3);
  b.end_function("main");
  auto vm = make_vm(b);
  CHECK(
      contains(vm->executable().as_text(), "  call  vm.builtin.check_tensor_info in: %0, i2, c[0], c[1] dst: %void\n"));
  auto run = [&](NDArrayRef x, NDArrayRef y) { return vm->invoke("main", {Any::of_ndarray(x), Any::of_ndarray(y)}); };
  CHECK(run(array("float32", {3, 4}), array("int32", {3})).as_shape() == Shape{3, 8});
  CHECK(user_error([&] { run(array("float32", {3, 4, 1}), array("int32", {3})); }, UserErrorKind::ValueError) ==
        ctx_x + " expect Tensor with ndim 2 but get 3");
  CHECK(user_error([&] { run(array("float64", {3, 4}), array("int32", {3})); }, UserErrorKind::ValueError) ==
        ctx_x + " expect Tensor with dtype float32 but get float64");
  CHECK(user_error([&] { vm->invoke("main", {Any::of_int(1), Any::of_ndarray(array("int32", {3}))}); },
                   UserErrorKind::TypeError) == ctx_x + " expect a Tensor but get int");
  CHECK(user_error([&] { run(array("float32", {3, 5}), array("int32", {3})); }, UserErrorKind::RuntimeError) ==
        ctx_x + " match_cast error, shape[1] mismatch to specified constant: expected 4 but got 5");
  CHECK(user_error([&] { run(array("float32", {3, 4}), array("int32", {2})); }, UserErrorKind::RuntimeError) ==
        ctx_y + " match_cast error, shape[0] mismatch to a previous populated value: expected 3 but got 2");

  // The same builtins called directly: the remaining codes and mistakes.
  auto call = [](const std::string& name, std::vector<Any> args) { return (*runtime::get_global_func(name))(args); };
  CHECK(user_error(
            [&] {
              call("vm.builtin.match_shape",
                   {Any::of_shape({1, 2}), Any(), Any::of_int(1), Any::of_int(2), Any::of_int(0), Any::of_str("ctx")});
            },
            UserErrorKind::RuntimeError) ==
        "ctx match_cast shape size mismatch: expected 1 dimensions but got 2 (1, 2)");
  CHECK(
      call("vm.builtin.match_shape", {Any::of_shape({9}), Any(), Any::of_int(1), Any::of_int(2), Any::of_int(0), Any()})
          .is_none());
  CHECK(user_error(
            [&] {
              call("vm.builtin.match_shape",
                   {Any::of_shape({9}), Any(), Any::of_int(1), Any::of_int(1), Any::of_int(0), Any()});
            },
            UserErrorKind::IndexError) ==
        "vm.builtin.match_shape: shape heap slot 0 is outside the heap of 0 (no heap was passed)");
  CHECK(user_error([&] { call("vm.builtin.make_shape", {Any(), Any::of_int(2), Any::of_int(0), Any::of_int(1)}); },
                   UserErrorKind::TypeError) == "vm.builtin.make_shape: 2 dimensions need 6 arguments, got 4");
  CHECK(call("vm.builtin.make_shape", {Any(), Any::of_int(1), Any::of_int(0), Any::of_int(5)}).as_shape() == Shape{5});
  CHECK(call("vm.builtin.make_prim_value", {Any(), Any::of_int(0), Any::of_int(5)}).as_int() == 5);
  CHECK(user_error(
            [&] {
              call("vm.builtin.match_prim_value",
                   {Any::of_int(3), Any(), Any::of_int(0), Any::of_int(4), Any::of_str("ctx")});
            },
            UserErrorKind::RuntimeError) ==
        "ctx match_cast error, PrimValue mismatch to specified constant: expected 4 but got 3");
  CHECK(call("vm.builtin.check_tensor_info",
             {Any::of_ndarray(array("int8", {2})), Any::of_int(-1), Any::of_str(""), Any()})
            .is_none());
  CHECK(call("vm.builtin.check_tensor_info", {Any::of_ndarray(array("int8", {2})), Any::of_int(1), Any()}).is_none());
  CHECK(call("vm.builtin.check_shape_info", {Any::of_shape({1, 2}), Any::of_int(2), Any()}).is_none());
  CHECK(user_error(
            [&] { call("vm.builtin.check_shape_info", {Any::of_shape({1, 2}), Any::of_int(3), Any::of_str("ctx")}); },
            UserErrorKind::ValueError) == "ctx expect Shape with ndim 3 but get 2");
  CHECK(user_error([&] { call("vm.builtin.check_shape_info", {Any::of_int(1), Any::of_int(-1), Any::of_str("ctx")}); },
                   UserErrorKind::TypeError) == "ctx expect a Shape but get int");
  CHECK(call("vm.builtin.check_prim_value_info", {Any::of_int(3), Any::of_str("int64"), Any()}).is_none());
  CHECK(call("vm.builtin.check_prim_value_info", {Any::of_int(3), Any::of_str("float32"), Any()}).is_none());
  CHECK(user_error(
            [&] {
              call("vm.builtin.check_prim_value_info", {Any::of_float(0.5), Any::of_str("int64"), Any::of_str("ctx")});
            },
            UserErrorKind::TypeError) == "ctx, expected dtype int64, but received a float");
  CHECK(user_error(
            [&] {
              call("vm.builtin.check_prim_value_info", {Any::of_shape({}), Any::of_str("int64"), Any::of_str("ctx")});
            },
            UserErrorKind::TypeError) == "ctx, expected dtype int64, but received ObjectRef of type ShapeTuple");
  Any pair = Any::of_tuple({Any::of_int(1), Any::of_int(2)});
  CHECK(call("vm.builtin.check_tuple_info", {pair, Any::of_int(2), Any()}).is_none());
  CHECK(user_error([&] { call("vm.builtin.check_tuple_info", {pair, Any::of_int(3), Any::of_str("ctx")}); },
                   UserErrorKind::ValueError) ==
        "ctx expect a Tuple with 3 elements, but get a Tuple with 2 elements.");
  CHECK(user_error([&] { call("vm.builtin.check_tuple_info", {Any::of_int(1), Any::of_int(3), Any::of_str("ctx")}); },
                   UserErrorKind::TypeError) == "ctx expect a Tuple but get int");
  CHECK(
      call("vm.builtin.check_func_info", {Any::of_function(runtime::get_global_func("test.vm.add")), Any()}).is_none());
  CHECK(user_error([&] { call("vm.builtin.check_func_info", {Any::of_int(1), Any::of_str("ctx")}); },
                   UserErrorKind::TypeError) == "ctx expect a Function but get int");
}

TEST_CASE("VM: tuples, conditions, copy, reshape, shape_of", "[vm]") {
  auto call = [](const std::string& name, std::vector<Any> args) { return (*runtime::get_global_func(name))(args); };
  Any t = call("vm.builtin.make_tuple", {Any::of_int(1), Any::of_str("x")});
  CHECK(call("vm.builtin.tuple_getitem", {t, Any::of_int(1)}).as_str() == "x");
  CHECK(user_error([&] { call("vm.builtin.tuple_getitem", {t, Any::of_int(2)}); }, UserErrorKind::IndexError) ==
        "vm.builtin.tuple_getitem: index 2 is out of range for a Tuple of 2 elements");
  CHECK(call("vm.builtin.null_value", {}).is_none());
  CHECK(call("vm.builtin.read_if_cond", {Any::of_int(0)}).as_bool() == false);
  CHECK(call("vm.builtin.read_if_cond", {Any::of_bool(true)}).as_bool() == true);
  NDArrayRef flag = array("bool", {});
  CHECK(call("vm.builtin.read_if_cond", {Any::of_ndarray(flag)}).as_bool() == false);
  flag->set_i(0, 1);
  CHECK(call("vm.builtin.read_if_cond", {Any::of_ndarray(flag)}).as_bool() == true);
  CHECK(user_error([&] { call("vm.builtin.read_if_cond", {Any::of_ndarray(array("float32", {}))}); },
                   UserErrorKind::TypeError) ==
        "vm.builtin.read_if_cond: the condition must be a bool or integer Tensor, got dtype float32");
  NDArrayRef a = array("float32", {2, 3});
  CHECK(call("vm.builtin.copy", {Any::of_ndarray(a)}).as_ndarray() == a);  // the same value, no data copied
  CHECK(call("vm.builtin.shape_of", {Any::of_ndarray(a)}).as_shape() == Shape{2, 3});
  NDArrayRef r = call("vm.builtin.reshape", {Any::of_ndarray(a), Any::of_shape({3, 2})}).as_ndarray();
  CHECK(r->shape() == Shape{3, 2});
  r->set_f(5, 7.5);
  CHECK(a->get_f(5) == 7.5);  // a view
  CHECK(user_error([&] { call("vm.builtin.reshape", {Any::of_ndarray(a), Any::of_shape({4})}); },
                   UserErrorKind::ValueError) ==
        "vm.builtin.reshape: cannot reshape a Tensor of shape (2, 3) (6 elements) into shape (4,) (4 elements)");
  CHECK(call("vm.builtin.tensor_to_shape", {Any::of_ndarray(array("int64", {2}))}).as_shape() == Shape{0, 0});
  CHECK(user_error([&] { call("vm.builtin.make_shape", {Any()}); }, UserErrorKind::TypeError) ==
        "vm.builtin.make_shape expects at least 2 arguments, got 1");
}

TEST_CASE("VM: storage, aliasing tensors and memory statistics", "[vm]") {
  ExecBuilder b;
  b.emit_function("main", 0);
  b.emit_call("vm.builtin.alloc_storage",
              {kVM, b.convert_constant(Any::of_shape({256})), Imm(0), b.convert_constant(Any::of_str("uint8")),
               b.convert_constant(Any::of_str("global"))},
              0);
  b.emit_call("vm.builtin.alloc_tensor",
              {R(0), Imm(0), b.convert_constant(Any::of_shape({4})), b.convert_constant(Any::of_str("float32"))}, 1);
  b.emit_call("vm.builtin.alloc_tensor",
              {R(0), Imm(64), b.convert_constant(Any::of_shape({2, 2})), b.convert_constant(Any::of_str("int32"))}, 2);
  b.emit_call("vm.builtin.alloc_tensor",
              {R(0), Imm(0), b.convert_constant(Any::of_shape({16})), b.convert_constant(Any::of_str("uint8"))}, 3);
  b.emit_call("vm.builtin.make_tuple", {R(1), R(2), R(3)}, 4);
  b.emit_ret(4);
  b.end_function("main");
  b.emit_function("bad_offset", 0);
  b.emit_call("vm.builtin.alloc_storage",
              {kVM, b.convert_constant(Any::of_shape({64})), Imm(-1), b.convert_constant(Any::of_str("float32"))}, 0);
  b.emit_call("vm.builtin.alloc_tensor",
              {R(0), Imm(192), b.convert_constant(Any::of_shape({32})), b.convert_constant(Any::of_str("float32"))}, 1);
  b.emit_ret(1);
  b.end_function("bad_offset");
  b.emit_function("unaligned", 0);
  b.emit_call("vm.builtin.alloc_storage",
              {kVM, b.convert_constant(Any::of_shape({64})), Imm(0), b.convert_constant(Any::of_str("uint8"))}, 0);
  b.emit_call("vm.builtin.alloc_tensor",
              {R(0), Imm(4), b.convert_constant(Any::of_shape({2})), b.convert_constant(Any::of_str("float32"))}, 1);
  b.emit_ret(1);
  b.end_function("unaligned");
  b.emit_function("scoped", 0);
  b.emit_call("vm.builtin.alloc_storage",
              {kVM, b.convert_constant(Any::of_shape({8})), Imm(0), b.convert_constant(Any::of_str("uint8")),
               b.convert_constant(Any::of_str("global.texture"))},
              0);
  b.emit_ret(0);
  b.end_function("scoped");
  auto vm = make_vm(b);
  {
    Any out = vm->invoke("main", {});
    const auto& items = out.as_tuple();
    NDArrayRef f = items[0].as_ndarray(), i = items[1].as_ndarray(), bytes = items[2].as_ndarray();
    CHECK(f->dtype() == ir::DataType::float32());
    CHECK(i->shape() == Shape{2, 2});
    CHECK(reinterpret_cast<uintptr_t>(f->data()) % 64 == 0);
    CHECK(static_cast<uint8_t*>(i->data()) - static_cast<uint8_t*>(f->data()) == 64);
    f->set_f(0, 1.0);  // float 1.0 is 00 00 80 3f
    CHECK(bytes->get_i(3) == 0x3f);
    CHECK(bytes->get_i(2) == 0x80);
    CHECK(i->get_i(0) == 0);  // a different byte range
    MemoryStats s = vm->memory_stats();
    CHECK(s.total_bytes == 256);
    CHECK(s.live_bytes == 256);  // the storage register is gone; the tensors keep it alive
    CHECK(s.peak_bytes == 256);
    CHECK(s.num_allocations == 1);
  }
  CHECK(vm->memory_stats().live_bytes == 0);
  vm->invoke("main", {});  // result dropped at once
  MemoryStats s = vm->memory_stats();
  CHECK(s.total_bytes == 512);
  CHECK(s.live_bytes == 0);
  CHECK(s.peak_bytes == 256);
  CHECK(s.num_allocations == 2);
  CHECK(user_error([&] { vm->invoke("bad_offset", {}); }, UserErrorKind::ValueError) ==
        "storage allocation failure, attempted to allocate 128 at offset 192 in region that is 256 bytes");
  CHECK(user_error([&] { vm->invoke("unaligned", {}); }, UserErrorKind::ValueError) ==
        "vm.builtin.alloc_tensor: offset 4 is not a multiple of 64 bytes, the alignment compiled functions assume");
  CHECK(user_error([&] { vm->invoke("scoped", {}); }, UserErrorKind::ValueError) ==
        "Allocator cannot allocate data space with specified memory scope: global.texture");
  CHECK(vm->memory_stats().live_bytes == 0);  // failed calls freed what they allocated
  CHECK(user_error(
            [&] {
              (*runtime::get_global_func("vm.builtin.alloc_storage"))(
                  {Any::of_int(0), Any::of_shape({1}), Any::of_int(0), Any::of_str("uint8")});
            },
            UserErrorKind::TypeError) ==
        "vm.builtin.alloc_storage: expected the VirtualMachine (%vm) as the first argument, got int");
}

TEST_CASE("VM: exceptions reach the caller unchanged", "[vm]") {
  ExecBuilder b;
  b.emit_function("inner", 1, {"which"});
  b.emit_if(0, 3);                             // 0: which == 0: goto 3
  b.emit_call("test.vm.throw_user", {}, 1);    // 1
  b.emit_ret(1);                               // 2
  b.emit_call("test.vm.throw_custom", {}, 1);  // 3
  b.emit_ret(1);                               // 4
  b.end_function("inner");
  b.emit_function("outer", 1, {"which"});
  b.emit_call("inner", {R(0)}, 1);
  b.emit_ret(1);
  b.end_function("outer");
  auto vm = make_vm(b);
  CHECK(user_error([&] { vm->invoke("outer", {Any::of_int(1)}); }, UserErrorKind::IndexError) ==
        "the original message");
  try {
    vm->invoke("outer", {Any::of_int(0)});
    FAIL("no exception");
  } catch (const CustomError& e) {
    CHECK(std::string(e.what()) == "custom failure");
  }
  // Frames were given back: the VM still runs.
  CHECK_THROWS_AS(vm->invoke("outer", {Any::of_int(0)}), CustomError);
}

TEST_CASE("VM: script exceptions cross the VM unchanged, tuples and shapes reach scripts", "[vm]") {
  // main(x) = test.vm.script_fail(x), a function the script registers after the VM exists.
  ExecBuilder b;
  b.emit_function("main", 1, {"x"});
  b.emit_call("test.vm.script_fail", {R(0)}, 1);
  b.emit_ret(1);
  b.end_function("main");
  auto vm = make_vm(b);
  runtime::register_global_func("test.vm.run_script_fail", vm->get_function("main"), true);
  std::string out;
  {
    script::Interpreter interp;
    interp.write_stdout = [&](const std::string& s) { out += s; };
    auto globals = interp.make_main_globals("");
    try {
      interp.exec_source(SourceFile::make("t.tsch",
                                          "import tvm\n"
                                          "@tvm.register_func('test.vm.script_fail', override=True)\n"
                                          "def fail(x):\n"
                                          "    raise ValueError('from the script: ' + str(x))\n"
                                          "try:\n"
                                          "    tvm.get_global_func('test.vm.run_script_fail')(7)\n"
                                          "except ValueError as e:\n"
                                          "    print('caught', e)\n"
                                          "shape = tvm.get_global_func('vm.builtin.make_shape')(None, 2, 0, 3, 0, 4)\n"
                                          "print(tvm.get_global_func('vm.builtin.make_tuple')(1, 'a', shape))\n"),
                         globals);
    } catch (const script::ScriptError& e) {
      out += script::render_script_error(interp, e);
    }
  }
  CHECK(out == "caught from the script: 7\n(1, 'a', (3, 4))\n");
  runtime::remove_global_func("test.vm.run_script_fail");
  runtime::remove_global_func("test.vm.script_fail");
}

TEST_CASE("VM: argument counts, unknown and unresolved functions", "[vm]") {
  ExecBuilder b;
  b.emit_function("two", 2, {"x", "y"});
  b.emit_ret(1);
  b.end_function("two");
  b.emit_function("calls_two_badly", 1);
  b.emit_call("two", {R(0)}, 1);
  b.emit_ret(1);
  b.end_function("calls_two_badly");
  b.emit_function("late", 0);
  b.emit_call("test.vm.registered_late", {}, 0);
  b.emit_ret(0);
  b.end_function("late");
  auto vm = make_vm(b);
  CHECK(user_error([&] { vm->invoke("two", {Any::of_int(1)}); }, UserErrorKind::TypeError) ==
        "Invoking function two expects 2 arguments (x, y), but 1 argument was provided");
  CHECK(user_error([&] { vm->invoke("calls_two_badly", {Any::of_int(1)}); }, UserErrorKind::TypeError) ==
        "Invoking function two expects 2 arguments (x, y), but 1 argument was provided");
  CHECK(user_error([&] { vm->invoke("nope", {}); }, UserErrorKind::ValueError) == "Unknown function: nope");
  // Not found at start: an error when called, found once registered.
  runtime::remove_global_func("test.vm.registered_late");
  std::string msg = user_error([&] { vm->invoke("late", {}); }, UserErrorKind::ValueError);
  CHECK(
      msg ==
      "Cannot find PackedFunc test.vm.registered_late in either Relax VM kernel library, or in TVM runtime PackedFunc "
      "registry, or in global Relax functions of the VM executable");
  runtime::register_global_func("test.vm.registered_late",
                                runtime::make_packed_func([](const std::vector<Any>&) { return Any::of_int(42); }));
  CHECK(vm->invoke("late", {}).as_int() == 42);
  runtime::remove_global_func("test.vm.registered_late");
}

TEST_CASE("VM: stateful calls, functions that outlive or keep their VM", "[vm]") {
  ExecBuilder b;
  b.emit_function("main", 2, {"x", "y"});
  b.emit_call("test.vm.add", {R(0), R(1)}, 2);
  b.emit_call("vm.builtin.make_tuple", {R(2), R(0)}, 3);
  b.emit_ret(3);
  b.end_function("main");
  auto exec = b.get();
  auto vm = std::make_shared<VirtualMachine>(exec);
  CHECK(user_error([&] { vm->invoke_stateful("main"); }, UserErrorKind::ValueError) ==
        "No inputs set for stateful call of main; use `set_input` first.");
  CHECK(user_error([&] { vm->get_outputs("main"); }, UserErrorKind::ValueError) ==
        "No output saved for call of \"main\"; use `invoke_stateful` to call it first.");
  CHECK(user_error([&] { vm->set_input("main", {Any::of_int(1)}); }, UserErrorKind::TypeError) ==
        "Invoking function main expects 2 arguments (x, y), but 1 argument was provided");
  vm->set_input("main", {Any::of_int(2), Any::of_int(3)});
  vm->invoke_stateful("main");
  CHECK(vm->get_outputs("main").as_tuple()[0].as_int() == 5);
  // Owned by a shared_ptr: the function keeps the VM alive.
  runtime::PackedFunc kept = vm->get_function("main");
  vm.reset();
  CHECK((*kept)({Any::of_int(1), Any::of_int(1)}).as_tuple()[0].as_int() == 2);
  // Not owned: the function says its VM is gone instead of crashing.
  runtime::PackedFunc orphan;
  {
    VirtualMachine local(exec);
    orphan = local.get_function("main");
    CHECK((*orphan)({Any::of_int(1), Any::of_int(2)}).as_tuple()[0].as_int() == 3);
  }
  CHECK(user_error([&] { (*orphan)({Any::of_int(1), Any::of_int(2)}); }, UserErrorKind::RuntimeError) ==
        "the VirtualMachine of the function main has been destroyed");
}

namespace {

int library_calls = 0;
int32_t library_entry(void**, int64_t*) {
  ++library_calls;
  return 0;
}

// A compiled module with one function of no parameters, without compiling anything.
class FakeModule : public runtime::CompiledModule {
 public:
  explicit FakeModule(bool has_fn) {
    if (has_fn) sigs_.push_back(runtime::FunctionSignature{"test.vm.lib_fn", {}, {}, {}, {}});
  }
  runtime::EntryPoint entry(const std::string& name) const override {
    return !sigs_.empty() && name == "test.vm.lib_fn" ? library_entry : nullptr;
  }
  const std::vector<runtime::FunctionSignature>& functions() const override { return sigs_; }
  std::string source(const std::string&) const override { return ""; }
  void export_library(const std::string&) const override {}
  std::string target_text() const override { return "llvm"; }
  std::string type_key() const override { return "llvm"; }

 private:
  std::vector<runtime::FunctionSignature> sigs_;
};

}  // namespace

TEST_CASE("VM: the library module's functions come before the registry's", "[vm]") {
  ExecBuilder b;
  b.emit_function("main", 0);
  b.emit_call("test.vm.lib_fn", {}, 0);
  b.emit_ret(0);
  b.end_function("main");
  runtime::register_global_func(
      "test.vm.lib_fn", runtime::make_packed_func([](const std::vector<Any>&) { return Any::of_str("registry"); }),
      true);
  // Found in an import of the library, as TVM's query_imports.
  runtime::Module host = runtime::make_module(std::make_shared<FakeModule>(false));
  host->imports.push_back(runtime::make_module(std::make_shared<FakeModule>(true)));
  auto vm = make_vm(b, host);
  library_calls = 0;
  CHECK(vm->invoke("main", {}).is_none());  // the library's function returns nothing
  CHECK(library_calls == 1);
  CHECK(make_vm(b)->invoke("main", {}).as_str() == "registry");  // no library: the registry's
  runtime::remove_global_func("test.vm.lib_fn");
}

TEST_CASE("VM: Ctrl-C stops a looping VM", "[vm]") {
  ExecBuilder b;
  b.emit_function("spin", 0);
  b.emit_call("vm.builtin.null_value", {}, 0);
  b.emit_goto(-1);
  b.end_function("spin");
  auto vm = make_vm(b);
  request_interrupt();
  CHECK_THROWS_AS(vm->invoke("spin", {}), Interrupted);
  CHECK_FALSE(interrupt_pending());
}

TEST_CASE("VM: malformed executables are refused", "[vm]") {
  auto exec = std::make_shared<Executable>();
  VMFuncInfo f;
  f.kind = VMFuncInfo::FuncKind::kVMFunc;
  f.name = "main";
  f.start_instr = 0;
  f.end_instr = 1;
  f.register_file_size = 1;
  exec->func_table.push_back(f);
  exec->func_map["main"] = 0;
  exec->instructions.push_back(Instruction::Ret(5));
  CHECK(user_error([&] { VirtualMachine vm(exec); }, UserErrorKind::ValueError) ==
        "VM function main, instruction 0: register %5 is outside its register file of 1");
  exec->instructions[0] = Instruction::Goto(0);
  CHECK(user_error([&] { VirtualMachine vm(exec); }, UserErrorKind::ValueError) ==
        "VM function main, instruction 0: goto 0 loops forever");
  exec->instructions[0] = Instruction::Call(0, {}, 0);
  CHECK(user_error([&] { VirtualMachine vm(exec); }, UserErrorKind::ValueError) ==
        "VM function main does not end with ret or goto: execution would run past its end");
  ExecBuilder b;
  b.emit_function("main", 0);
  b.emit_ret(3);
  b.end_function("main");
  CHECK(user_error([&] { b.get(); }, UserErrorKind::ValueError) ==
        "ExecBuilder: register %3 in VM function \"main\" is used as input while it is never defined as a destination");
  ExecBuilder undefined;
  undefined.declare_function("f", VMFuncInfo::FuncKind::kVMFunc);
  CHECK(user_error([&] { undefined.get(); }, UserErrorKind::ValueError) ==
        "ExecBuilder: function f is declared but never emitted");
}

TEST_CASE("VM: save and load", "[vm]") {
  ExecBuilder b;
  emit_sum_loop(b);
  NDArrayRef weights = array("float32", {2, 3});
  for (int64_t i = 0; i < 6; ++i) weights->set_f(i, 0.5 * static_cast<double>(i));
  b.emit_function("consts", 0);
  b.emit_call(
      "vm.builtin.make_tuple",
      {b.convert_constant(Any::of_ndarray(weights)), b.convert_constant(Any::of_float(2.5)),
       b.convert_constant(Any::of_str("float16")), b.convert_constant(Any::of_shape({1, 2, 3})),
       b.convert_constant(Any::of_bool(true)), b.convert_constant(Any::of_tuple({Any::of_int(1), Any::of_str("x")})),
       b.convert_constant(Any::of_str("float16")), b.convert_constant(Any::of_int(1) /* an immediate */),
       b.convert_constant(Any::of_ndarray(array("bool", {0})))},
      0);
  b.emit_ret(0);
  b.end_function("consts");
  auto exec = b.get();
  CHECK(exec->constants.size() == 7);  // equal strings share an entry; ints are immediates
  std::string bytes = exec->save();
  auto loaded = Executable::load(bytes);
  CHECK(loaded->as_text() == exec->as_text());
  CHECK(loaded->save() == bytes);
  CHECK(loaded->stats() ==
        "Relax VM executable statistics:\n"
        "  Constant pool (# 7): [[2, 3], 2.5, \"float16\", shapetuple[1, 2, 3], True, Array, [0]]\n"
        "  Globals (#6): [sum, vm.builtin.copy, test.vm.less, test.vm.add, consts, vm.builtin.make_tuple]\n");
  VirtualMachine vm(loaded);
  CHECK(vm.invoke("sum", {Any::of_int(5)}).as_int() == 10);
  Any consts = vm.invoke("consts", {});
  const auto& items = consts.as_tuple();
  CHECK(items[0].as_ndarray()->shape() == Shape{2, 3});
  CHECK(items[0].as_ndarray()->get_f(5) == 2.5);
  CHECK(items[1].as_float() == 2.5);
  CHECK(items[3].as_shape() == Shape{1, 2, 3});
  CHECK(items[5].as_tuple()[1].as_str() == "x");
  CHECK(items[7].as_int() == 1);

  // Script values and functions cannot be saved.
  ExecBuilder fb;
  fb.emit_function("f", 0);
  fb.emit_call("vm.builtin.copy", {fb.convert_constant(Any::of_function(runtime::get_global_func("test.vm.add")))}, 0);
  fb.emit_ret(0);
  fb.end_function("f");
  CHECK(user_error([&] { fb.get()->save(); }, UserErrorKind::ValueError) ==
        "cannot save the VM executable: constant c[0] is a Function; only arrays, numbers, strings, shapes and tuples "
        "can be saved");

  // Every truncation is refused with a message, never a crash.
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      Executable::load(bytes.substr(0, n));
      FAIL("a truncated executable (" << n << " bytes) loaded");
    } catch (const UserError& e) {
      CHECK(e.kind == UserErrorKind::ValueError);
      CHECK(std::string(e.what()).rfind("invalid VM executable", 0) == 0);
    }
  }
  CHECK(user_error([&] { Executable::load("not an executable"); }, UserErrorKind::ValueError) ==
        "invalid VM executable (17 bytes) in the header section at byte 0: it does not start with the magic header of "
        "a tsch VM executable");
  std::string other_version = bytes;
  other_version[8] = 9;
  CHECK(contains(user_error([&] { Executable::load(other_version); }, UserErrorKind::ValueError),
                 "format version 9, but this tsch reads version 1"));
  CHECK(contains(user_error([&] { Executable::load(bytes + "x"); }, UserErrorKind::ValueError),
                 "bytes follow the last instruction"));
  // Random corruption either loads something valid or is refused.
  std::mt19937 rng(7);
  int refused = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bad = bytes;
    for (int k = 0; k < 3; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    try {
      VirtualMachine probe(Executable::load(bad));
    } catch (const UserError&) {
      ++refused;
    }
  }
  CHECK(refused > 0);
}

TEST_CASE("VM: speed of dispatch (printed, not asserted)", "[vm]") {
  ExecBuilder b;
  emit_sum_loop(b);
  b.emit_function("small", 1, {"x"});
  b.emit_call("test.vm.add", {R(0), Imm(1)}, 1);
  b.emit_ret(1);
  b.end_function("small");
  auto vm = make_vm(b);
  using Clock = std::chrono::steady_clock;
  const int kRuns = 200;
  const int64_t kIterations = 1000;
  CHECK(vm->invoke("sum", {Any::of_int(kIterations)}).as_int() == kIterations * (kIterations - 1) / 2);
  auto start = Clock::now();
  for (int i = 0; i < kRuns; ++i) vm->invoke("sum", {Any::of_int(kIterations)});
  double loop_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kRuns;
  double per_instruction = loop_us / static_cast<double>(5 * kIterations + 5);  // 5 per iteration, 5 around
  const int kCalls = 100000;
  std::vector<Any> args = {Any::of_int(1)};
  start = Clock::now();
  for (int i = 0; i < kCalls; ++i) vm->invoke("small", args);
  double call_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kCalls;
  WARN("VM: " << per_instruction << " us per instruction (a 1,000-iteration loop), " << call_us
              << " us per call of a two-instruction function");
}

namespace {

// An exported executable without a library, as relax::export_executable lays it out: the
// bytecode, has_library, the bytecode's size and the tag.
std::string exported_file(const std::string& blob, uint8_t has_library, uint64_t size) {
  std::string out = blob;
  out += static_cast<char>(has_library);
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out += "TSCHVMEX";
  return out;
}

std::string load_refusal(const std::string& bytes) {
  std::string path = "/tmp/tsch_unit_vm_" + std::to_string(getpid()) + ".so";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  std::string why = user_error([&] { relax::load_executable(path); }, UserErrorKind::RuntimeError);
  std::remove(path.c_str());
  CHECK(why.rfind("cannot load module " + path + ": ", 0) == 0);
  return why.substr(why.find(".so: ") + 5);
}

}  // namespace

TEST_CASE("VM: an exported executable is refused at load when corrupt", "[vm]") {
  ExecBuilder b;
  emit_sum_loop(b);  // loops: goto -4
  std::string looping = b.get()->save();
  CHECK(contains(load_refusal(exported_file(looping, 0, looping.size())), "goto -4 jumps backward"));
  // A size near 2**64 must not wrap the footer's bounds check.
  CHECK(load_refusal(exported_file(looping, 0, UINT64_MAX)) == "it is not an executable written by export_library");
  CHECK(load_refusal(exported_file(looping, 0, UINT64_MAX - 16)) ==
        "it is not an executable written by export_library");
  // The bytecode of a module with functions, its library missing.
  ExecBuilder ok;
  ok.emit_function("main", 1, {"x"});
  ok.emit_ret(0);
  ok.end_function("main");
  std::string blob = ok.get()->save();
  CHECK(contains(load_refusal(exported_file(blob, 1, blob.size())), "invalid ELF header"));
  std::string corrupt = blob;
  corrupt[0] = 'X';
  CHECK(contains(load_refusal(exported_file(corrupt, 0, corrupt.size())), "invalid VM executable"));
}
