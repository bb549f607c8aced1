// Lowering + LLVM code generation + runtime calls on small hand-built functions.
#include <catch2/catch.hpp>
#include <set>
#include <thread>

#include "codegen/llvm/llvm_build.h"
#include "driver/build.h"
#include "driver/differential.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "runtime/call.h"
#include "runtime/registry.h"
#include "support/error.h"
#include "target/target.h"
#include "transform/pipeline.h"

using namespace tsch;
using ir::DataType;

namespace {

// C[i] = A[i] op B[i] for i in [0, n), the loop of the given kind.
ir::IRModule elementwise(ir::ExprKind op, int64_t n, ir::ForKind kind, DataType t = DataType::float32()) {
  auto shape = std::vector<ir::PrimExpr>{ir::make_int(n)};
  ir::Buffer a = ir::make_buffer("A", t, shape), b = ir::make_buffer("B", t, shape), c = ir::make_buffer("C", t, shape);
  ir::Var i = ir::make_var("i");
  ir::PrimExpr value = ir::make_binary(op, ir::buffer_load(a, {i}), ir::buffer_load(b, {i}));
  ir::Stmt store = std::make_shared<ir::BufferStoreNode>(c, value, std::vector<ir::PrimExpr>{i});
  auto f = std::make_shared<ir::PrimFuncNode>();
  for (const auto& buf : {a, b, c}) {
    ir::Var p = ir::make_var(buf->name, DataType::handle());
    f->params.push_back(p);
    f->buffer_map.emplace_back(p, buf);
  }
  f->body = std::make_shared<ir::ForNode>(i, ir::make_int(0), ir::make_int(n), kind, store);
  auto m = std::make_shared<ir::IRModuleNode>();
  m->functions.emplace_back("f", f);
  return m;
}

std::vector<float> run_elementwise(const ir::IRModule& m, int64_t n) {
  auto lib = codegen::build_llvm(transform::lower(m), codegen::parse_llvm_target("llvm"));
  auto a = runtime::make_array(DataType::float32(), {n}), b = runtime::make_array(DataType::float32(), {n}),
       c = runtime::make_array(DataType::float32(), {n});
  for (int64_t i = 0; i < n; ++i) a->set_f(i, i), b->set_f(i, 2 * i + 1);
  runtime::call_compiled(lib->functions()[0], lib->entry("f"), {{a.get()}, {b.get()}, {c.get()}});
  std::vector<float> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(static_cast<float>(c->get_f(i)));
  return out;
}

}  // namespace

TEST_CASE("serial, parallel, vectorized and unrolled loops compute the same", "[codegen]") {
  for (auto kind : {ir::ForKind::Serial, ir::ForKind::Parallel, ir::ForKind::Vectorized, ir::ForKind::Unrolled}) {
    auto c = run_elementwise(elementwise(ir::ExprKind::Add, 16, kind), 16);
    for (int i = 0; i < 16; ++i) CHECK(c[i] == 3.0f * i + 1);
  }
  auto big = run_elementwise(elementwise(ir::ExprKind::Mul, 10007, ir::ForKind::Parallel), 10007);
  CHECK(big[10006] == 10006.0f * 20013.0f);
}

TEST_CASE("a loop with a step visits min, min + step, ... below min + extent, for every kind", "[codegen]") {
  const int64_t n = 40;
  struct Case {
    int64_t min, extent, step;
  };
  for (auto kind : {ir::ForKind::Serial, ir::ForKind::Parallel, ir::ForKind::Vectorized, ir::ForKind::Unrolled}) {
    for (Case k : {Case{0, 40, 3}, Case{5, 30, 4}, Case{1, 7, 7}, Case{2, 9, 10}, Case{0, 16, 2}}) {
      ir::IRModule m = elementwise(ir::ExprKind::Add, n, kind);
      auto f = std::make_shared<ir::PrimFuncNode>(*m->prim_funcs()[0].second);
      auto loop = std::make_shared<ir::ForNode>(*ir::as<ir::ForNode>(f->body));
      loop->min = ir::make_int(k.min);
      loop->extent = ir::make_int(k.extent);
      loop->step = ir::make_int(k.step);
      f->body = loop;
      auto stepped = std::make_shared<ir::IRModuleNode>();
      stepped->functions.emplace_back("f", f);
      // Canonicalized: a unit-step loop from 0 over ceildiv(extent, step) iterations.
      auto lowered = transform::lower(stepped);
      CHECK(ir::script(lowered).find("step") == std::string::npos);
      auto c = run_elementwise(stepped, n);
      for (int64_t i = 0; i < n; ++i) {
        bool visited = i >= k.min && i < k.min + k.extent && (i - k.min) % k.step == 0;
        INFO("kind " << static_cast<int>(kind) << " min " << k.min << " extent " << k.extent << " step " << k.step
                     << " i " << i);
        CHECK(c[i] == (visited ? 3.0f * i + 1 : 0.0f));
      }
    }
  }
}

TEST_CASE("a vectorized loop becomes Ramp accesses", "[codegen]") {
  auto lowered = transform::lower(elementwise(ir::ExprKind::Add, 8, ir::ForKind::Vectorized));
  std::string text = ir::script(lowered);
  CHECK(text.find("T.Ramp(0, 1, 8)") != std::string::npos);
  CHECK(text.find("for") == std::string::npos);
}

TEST_CASE("arguments are checked against the signature", "[codegen]") {
  auto lib = codegen::build_llvm(transform::lower(elementwise(ir::ExprKind::Add, 4, ir::ForKind::Serial)),
                                 codegen::parse_llvm_target("llvm"));
  auto f32 = runtime::make_array(DataType::float32(), {4}), f64 = runtime::make_array(DataType::float_(64), {4}),
       wrong = runtime::make_array(DataType::float32(), {5});
  const auto& sig = lib->functions()[0];
  CHECK_THROWS_WITH(runtime::call_compiled(sig, lib->entry("f"), {{f32.get()}, {f64.get()}, {f32.get()}}),
                    Catch::Contains("argument 2 ('B')") && Catch::Contains("expected dtype float32, got float64"));
  CHECK_THROWS_WITH(runtime::call_compiled(sig, lib->entry("f"), {{f32.get()}, {wrong.get()}, {f32.get()}}),
                    Catch::Contains("expected shape (4,)"));
  CHECK_THROWS_WITH(runtime::call_compiled(sig, lib->entry("f"), {{f32.get()}}),
                    Catch::Contains("expects 3 arguments but 1 was given"));
}

TEST_CASE("differential execution tells equal modules from different ones", "[codegen]") {
  auto add = elementwise(ir::ExprKind::Add, 64, ir::ForKind::Serial);
  auto add_parallel = elementwise(ir::ExprKind::Add, 64, ir::ForKind::Parallel);
  auto sub = elementwise(ir::ExprKind::Sub, 64, ir::ForKind::Serial);
  auto same = driver::compare_execution(add, add_parallel);
  CHECK(same.compared);
  CHECK(same.equal);
  auto differ = driver::compare_execution(add, sub);
  CHECK(differ.compared);
  CHECK_FALSE(differ.equal);
  CHECK(differ.note.find("parameter C differs") != std::string::npos);
}

TEST_CASE("target strings", "[codegen]") {
  auto t = codegen::parse_llvm_target("llvm -mcpu=tigerlake --num-cores=1");
  CHECK(t.cpu == "tigerlake");
  CHECK(t.num_cores == 1);
  CHECK(t.text == "llvm -keys=cpu -mcpu=tigerlake -num-cores=1");
  CHECK_THROWS_AS(codegen::parse_llvm_target("llvm -bogus=1"), tsch::UserError);
  CHECK_THROWS_AS(codegen::parse_llvm_target("cuda -arch=sm_80"), tsch::UserError);
  CHECK_THROWS_AS(codegen::parse_llvm_target("llvm -fast-math"), tsch::UserError);
}

TEST_CASE("every buffer's accesses carry a type-based alias tag of their own", "[codegen]") {
  // A parallel task function reads its buffer pointers from a closure, so the parameters'
  // noalias is lost there; the TBAA tags are what still tell LLVM that A, B and C differ.
  auto lib = codegen::build_llvm(transform::lower(elementwise(ir::ExprKind::Add, 64, ir::ForKind::Parallel)),
                                 codegen::parse_llvm_target("llvm"));
  std::string ll = lib->source("ll");
  CHECK(ll.find("!{!\"tsch buffers\"}") != std::string::npos);
  std::set<std::string> types;
  for (size_t at = ll.find("!{!\""); at != std::string::npos; at = ll.find("!{!\"", at + 1)) {
    std::string name = ll.substr(at + 4, ll.find('"', at + 4) - at - 4);
    if (name.find('#') != std::string::npos) types.insert(name.substr(0, name.find('#')));
  }
  CHECK(types == std::set<std::string>{"A", "B", "C"});
  CHECK(ll.find("!tbaa") != std::string::npos);
}

TEST_CASE("driver::build shares one compiled module between threads building the same code", "[codegen][driver]") {
  // The cache is the only state builds share; several threads building at once (a tuner's
  // builder) each get a working module, and builds of identical code get the same one.
  target::Target llvm = target::parse_target("llvm -opt-level=1");
  std::vector<runtime::CompiledModuleRef> built(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < built.size(); ++t)
    threads.emplace_back(
        [&, t] { built[t] = driver::build(elementwise(ir::ExprKind::Mul, 16 + t % 2, ir::ForKind::Serial), llvm); });
  for (auto& th : threads) th.join();
  for (const auto& m : built) CHECK(m->entry("f") != nullptr);
  CHECK(driver::build(elementwise(ir::ExprKind::Mul, 16, ir::ForKind::Serial), llvm) ==
        driver::build(elementwise(ir::ExprKind::Mul, 16, ir::ForKind::Serial), llvm));
  CHECK(built[0] != built[1]);  // 16 and 17 elements: different code
}

TEST_CASE("T.call_packed from a parallel loop: arrays over the kernel's memory, failures return to the caller",
          "[codegen][registry]") {
  // for i in T.parallel(64): T.call_packed("test.codegen.touch", A, i)
  ir::Buffer a = ir::make_buffer("A", DataType::float32(), {ir::make_int(8), ir::make_int(8)});
  ir::Var i = ir::make_var("i");
  ir::PrimExpr call = ir::call(DataType::int32(), "call_packed",
                               {std::make_shared<ir::StringImmNode>("test.codegen.touch"), ir::stack_array_of(a), i});
  auto f = std::make_shared<ir::PrimFuncNode>();
  ir::Var p = ir::make_var("A", DataType::handle());
  f->params.push_back(p);
  f->buffer_map.emplace_back(p, a);
  f->body = std::make_shared<ir::ForNode>(i, ir::make_int(0), ir::make_int(64), ir::ForKind::Parallel,
                                          std::make_shared<ir::EvaluateNode>(call));
  auto m = std::make_shared<ir::IRModuleNode>();
  m->functions.emplace_back("f", f);
  auto lib = driver::build(m, target::parse_target("llvm -num-cores=4"));
  // Each call writes its index into the kernel's array: the callee sees the kernel's memory.
  int64_t fail_at = -1;
  runtime::register_global_func("test.codegen.touch",
                                runtime::make_packed_func([&](const std::vector<runtime::Any>& args) {
                                  const runtime::NDArrayRef& arr = args.at(0).as_ndarray();
                                  int64_t index = args.at(1).as_int();
                                  TSCH_USER_ASSERT(arr->shape() == runtime::Shape({8, 8}), ValueError) << "wrong shape";
                                  TSCH_USER_ASSERT(index != fail_at, ValueError) << "failed at " << index;
                                  arr->set_f(index, static_cast<double>(index));
                                  return runtime::Any();
                                }),
                                true);
  auto data = runtime::make_array(DataType::float32(), {8, 8});
  runtime::call_compiled(lib->functions()[0], lib->entry("f"), {{data.get()}});
  for (int64_t k = 0; k < 64; ++k) CHECK(data->get_f(k) == static_cast<double>(k));
  fail_at = 37;
  try {
    runtime::call_compiled(lib->functions()[0], lib->entry("f"), {{data.get()}});
    FAIL("the failing call went unnoticed");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) == "failed at 37");
  }
  // The error was taken: the next call starts clean.
  fail_at = -1;
  runtime::call_compiled(lib->functions()[0], lib->entry("f"), {{data.get()}});
  runtime::remove_global_func("test.codegen.touch");
}
