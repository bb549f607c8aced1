// Well-formedness rules that no TVMScript text can break (the parser scopes names and makes
// fresh variables), but a faulty schedule primitive could: checked on IR built here directly.
#include <catch2/catch.hpp>

#include "arith/verify_well_formed.h"
#include "ir/op.h"

using namespace tsch;
using namespace tsch::ir;

namespace {
PrimExpr c(int64_t v) { return make_int(v); }

// for i in range(8): block "B": OUT[vi] = IN[vi] (the loop var `i` given, or a fresh one).
Stmt copy_loop(const Buffer& in, const Buffer& out, Var i = nullptr) {
  if (!i) i = make_var("i");
  Var vi = make_var("vi");
  auto block = std::make_shared<BlockNode>();
  block->name = "B";
  block->iter_vars = {IterVar{vi, Range{c(0), c(8)}, IterType::DataPar}};
  block->reads = {BufferRegion{in, {Range{vi, c(1)}}}};
  block->writes = {BufferRegion{out, {Range{vi, c(1)}}}};
  block->body = std::make_shared<BufferStoreNode>(out, buffer_load(in, {vi}), std::vector<PrimExpr>{vi});
  return std::make_shared<ForNode>(
      i, c(0), c(8), ForKind::Serial,
      std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{i}, make_bool(true), block));
}

// `body` inside a root block that allocates `root_alloc`, with `params` as parameters.
PrimFunc func_of(Stmt body, std::vector<Buffer> root_alloc, std::vector<Buffer> params) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->alloc_buffers = std::move(root_alloc);
  root->body = std::move(body);
  auto func = std::make_shared<PrimFuncNode>();
  for (const auto& p : params) {
    Var handle = make_var(p->name + "_handle", DataType::handle());
    func->params.push_back(handle);
    func->buffer_map.emplace_back(handle, p);
  }
  func->body = std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), root);
  return func;
}

PrimFunc copy_func(const Buffer& in, const Buffer& out, std::vector<Buffer> root_alloc, std::vector<Buffer> params) {
  return func_of(copy_loop(in, out), std::move(root_alloc), std::move(params));
}
}  // namespace

TEST_CASE("verify_well_formed: a buffer must be a parameter or allocated around its use", "[arith]") {
  Buffer a = make_buffer("A", DataType::float32(), {c(8)});
  Buffer b = make_buffer("B", DataType::float32(), {c(8)});
  Buffer t = make_buffer("T", DataType::float32(), {c(8)});
  CHECK(arith::verify_well_formed(copy_func(a, b, {}, {a, b})).empty());
  CHECK(arith::verify_well_formed(copy_func(a, t, {t}, {a})).empty());
  std::vector<std::string> errors = arith::verify_well_formed(copy_func(a, t, {}, {a}));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("buffer T is used where it is not allocated") != std::string::npos);
}

TEST_CASE("verify_well_formed: a loop variable is bound once in a function", "[arith]") {
  Buffer a = make_buffer("A", DataType::float32(), {c(8)});
  Buffer b = make_buffer("B", DataType::float32(), {c(8)});
  Buffer d = make_buffer("D", DataType::float32(), {c(8)});
  Var i = make_var("i");
  CHECK(arith::verify_well_formed(func_of(make_seq({copy_loop(a, b), copy_loop(a, d)}), {}, {a, b, d})).empty());
  // Two sibling loops sharing one Var object: the printed text could not parse back to it.
  std::vector<std::string> errors =
      arith::verify_well_formed(func_of(make_seq({copy_loop(a, b, i), copy_loop(a, d, i)}), {}, {a, b, d}));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "variable i is defined more than once");
}
