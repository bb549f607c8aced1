// The build registry (driver/backend.h) and the build cache (driver/build_cache.h).
#include <catch2/catch.hpp>
#include <memory>

#include "driver/backend.h"
#include "driver/build.h"
#include "driver/build_cache.h"
#include "ir/op.h"
#include "support/error.h"
#include "target/target.h"

using namespace tsch;
using ir::DataType;

namespace {

// B[i] = A[i] * 2 for i in [0, n), with the buffers named as given.
ir::IRModule doubling(int64_t n, const std::string& a_name = "A", const std::string& b_name = "B") {
  auto shape = std::vector<ir::PrimExpr>{ir::make_int(n)};
  ir::Buffer a = ir::make_buffer(a_name, DataType::float32(), shape);
  ir::Buffer b = ir::make_buffer(b_name, DataType::float32(), shape);
  ir::Var i = ir::make_var("i");
  ir::PrimExpr value =
      ir::make_binary(ir::ExprKind::Mul, ir::buffer_load(a, {i}), ir::make_float(2, DataType::float32()));
  ir::Stmt store = std::make_shared<ir::BufferStoreNode>(b, value, std::vector<ir::PrimExpr>{i});
  auto f = std::make_shared<ir::PrimFuncNode>();
  for (const auto& buf : {a, b}) {
    ir::Var p = ir::make_var(buf->name, DataType::handle());
    f->params.push_back(p);
    f->buffer_map.emplace_back(p, buf);
  }
  f->body = std::make_shared<ir::ForNode>(i, ir::make_int(0), ir::make_int(n), ir::ForKind::Serial, store);
  auto m = std::make_shared<ir::IRModuleNode>();
  m->functions.emplace_back("f", f);
  return m;
}

}  // namespace

TEST_CASE("every code generator is registered by its target kind", "[driver]") {
  CHECK(driver::backend_kinds() == std::vector<std::string>{"c", "cuda", "llvm", "nvptx"});
  CHECK(driver::find_backend("llvm") != nullptr);
  CHECK_FALSE(driver::find_backend("c")->vectorizes);
  CHECK(driver::find_backend("rocm") == nullptr);
  try {
    driver::build(doubling(8), target::parse_target("rocm"));
    FAIL("a kind without a code generator built");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find(
              "not supported yet: target \"rocm\" (tsch generates code for c, cuda, llvm, nvptx)") !=
          std::string::npos);
  }
}

TEST_CASE("a registered backend is what driver::build runs for its kind", "[driver]") {
  // "hexagon" has no code generator in tsch; a backend registered for it (as a new code
  // generator would be) receives the module its own lowering made, and the target object.
  // The registry outlives this test: the backend keeps its state by value, not by reference.
  struct Counts {
    int lowered = 0, generated = 0;
  };
  auto counts = std::make_shared<Counts>();
  runtime::CompiledModuleRef llvm_module = driver::build(doubling(8), target::parse_target("llvm"));
  driver::register_backend(
      "hexagon",
      {true,
       [counts](const ir::IRModule& mod, const target::Target&, const driver::BuildOptions&) {
         ++counts->lowered;
         return driver::LoweredModule{mod, nullptr};
       },
       [counts, llvm_module](const driver::LoweredModule&, const target::Target& t, const driver::BuildOptions&) {
         ++counts->generated;
         CHECK(t->kind->name == "hexagon");
         return llvm_module;
       }});
  CHECK(driver::build(doubling(8), target::parse_target("hexagon")) == llvm_module);
  // The same code again: lowered again, generated once (the cache has it).
  CHECK(driver::build(doubling(8), target::parse_target("hexagon")) == llvm_module);
  CHECK(counts->lowered == 2);
  CHECK(counts->generated == 1);
}

TEST_CASE("the build cache keys by structural hash and still tells renamed copies apart", "[driver]") {
  // Structurally equal modules (buffers renamed) hash alike, but names reach generated source
  // and error messages: each gets its own compiled module.
  target::Target c = target::parse_target("c");
  runtime::CompiledModuleRef first = driver::build(doubling(8), c);
  CHECK(driver::build(doubling(8), c) == first);
  runtime::CompiledModuleRef renamed = driver::build(doubling(8, "X", "Y"), c);
  CHECK(renamed != first);
  CHECK(renamed->source("c").find("X") != std::string::npos);
  // The options that change the code are in the key.
  driver::BuildOptions no_checks;
  no_checks.interrupt_checks = false;
  CHECK(driver::build(doubling(8), c, no_checks) != first);
  driver::LoweredModule a{doubling(8), nullptr}, b{doubling(8, "X", "Y"), nullptr};
  CHECK(driver::build_key(a, c, {}) == driver::build_key(b, c, {}));
  CHECK_FALSE(driver::build_key(a, c, {}) == driver::build_key(a, target::parse_target("llvm"), {}));
}

TEST_CASE("a CUDA target's architecture is read from its attributes", "[driver][target]") {
  CHECK(target::cuda_arch(target::parse_target("cuda")) == "sm_80");
  CHECK(target::cuda_sm_version(target::parse_target("cuda -arch=sm_75")) == 75);
  CHECK(target::cuda_sm_version(target::parse_target("cuda -arch=sm_90a")) == 90);
  CHECK(target::cuda_sm_version(target::parse_target("nvptx -mcpu=sm_86")) == 86);
  CHECK(target::cuda_arch(target::parse_target("nvptx -mcpu=sm_86")) == "sm_86");
  // Target parsing refuses an -arch that is not sm_<n>[a]; an nvptx -mcpu is LLVM's to check.
  CHECK_THROWS_AS(target::parse_target("cuda -arch=compute_80"), UserError);
  CHECK(target::cuda_sm_version(target::parse_target("nvptx -mcpu=sm_")) == 0);
  CHECK(target::cuda_sm_version(target::parse_target("nvptx -mcpu=sm_8x")) == 0);
}
