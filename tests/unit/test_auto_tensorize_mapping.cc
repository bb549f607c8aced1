// get_auto_tensorize_mapping_info on hand-built blocks: iterators fused into the description's
// by the buffers they index, unmatched ones first, and the refusals (dtypes, ambiguity).
#include <catch2/catch.hpp>

#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/auto_tensorize_mapping.h"
#include "schedule/schedule.h"
#include "support/error.h"

using namespace tsch;
using namespace tsch::ir;
using namespace tsch::schedule;

namespace {

struct Iter {
  std::string name;
  int64_t extent;
  IterType type;
};

// One block "C" under loops of its iterators: C[c] = C[c] + A[a] * B[b], each index list
// naming iterators by position.
IRModule product(const std::vector<Iter>& iters, const std::vector<int>& a, const std::vector<int>& b,
                 const std::vector<int>& c, DataType acc = DataType::float32()) {
  std::vector<Var> loop_vars, block_vars;
  auto block = std::make_shared<BlockNode>();
  block->name = "C";
  for (const Iter& it : iters) {
    loop_vars.push_back(make_var(it.name));
    block_vars.push_back(make_var("v" + it.name));
    block->iter_vars.push_back(IterVar{block_vars.back(), Range{make_int(0), make_int(it.extent)}, it.type});
  }
  auto buffer = [&](const std::string& name, const std::vector<int>& idx, DataType t, std::vector<PrimExpr>& indices) {
    std::vector<PrimExpr> shape;
    for (int p : idx) {
      shape.push_back(make_int(iters[static_cast<size_t>(p)].extent));
      indices.push_back(block_vars[static_cast<size_t>(p)]);
    }
    return make_buffer(name, t, shape);
  };
  std::vector<PrimExpr> ai, bi, ci;
  Buffer A = buffer("A", a, DataType::float32(), ai), B = buffer("B", b, DataType::float32(), bi),
         C = buffer("C", c, acc, ci);
  PrimExpr prod = mul(buffer_load(A, ai), buffer_load(B, bi));
  if (acc != DataType::float32()) prod = cast(acc, prod);
  block->body = std::make_shared<BufferStoreNode>(C, add(buffer_load(C, ci), prod), ci);
  std::vector<PrimExpr> values(loop_vars.begin(), loop_vars.end());
  Stmt body = std::make_shared<BlockRealizeNode>(values, make_bool(true), block);
  for (size_t k = iters.size(); k-- > 0;)
    body = std::make_shared<ForNode>(loop_vars[k], make_int(0), make_int(iters[k].extent), ForKind::Serial, body);
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->body = body;
  auto func = std::make_shared<PrimFuncNode>();
  for (const Buffer& buf : {A, B, C}) {
    Var handle = make_var(buf->name + "_handle", DataType::handle());
    func->params.push_back(handle);
    func->buffer_map.emplace_back(handle, buf);
  }
  func->body = std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), root);
  auto mod = std::make_shared<IRModuleNode>();
  mod->functions.emplace_back("main", func);
  return mod;
}

constexpr IterType S = IterType::DataPar, R = IterType::CommReduce;

// The 16x16x16 matmul description: C[i, j] += A[i, k] * B[k, j].
PrimFunc matmul_desc(DataType acc = DataType::float32()) {
  return product({{"i", 16, S}, {"j", 16, S}, {"k", 16, R}}, {0, 2}, {2, 1}, {0, 1}, acc)->prim_func("main");
}

// The mapping's outputs as text, or "none".
std::string mapping(const IRModule& mod, const PrimFunc& desc) {
  Schedule sch(mod);
  BlockSid block = sch.block_sid(TraceArg::of_ref(sch.get_block("C", "main")));
  auto info = get_auto_tensorize_mapping_info(sch.state(), block, desc);
  if (!info) return "none";
  REQUIRE(info->mappings.size() == 1);
  std::string out;
  for (const PrimExpr& e : info->mappings[0].outputs) out += (out.empty() ? "" : ", ") + script(e);
  return out;
}

}  // namespace

TEST_CASE("auto tensorize: iterators indexing the same buffers fuse into one", "[auto_tensorize]") {
  // C[b, i0, i1, j] += A[b, i0, i1, k] * B[b, k, j]: b indexes all three (no description
  // iterator does), i0 and i1 fuse into the description's i.
  IRModule mod = product({{"b", 2, S}, {"i0", 4, S}, {"i1", 8, S}, {"j", 32, S}, {"k", 64, R}}, {0, 1, 2, 4}, {0, 4, 3},
                         {0, 1, 2, 3});
  CHECK(mapping(mod, matmul_desc()) == "vb, vi0 * 8 + vi1, vj, vk");
  // A unit iterator keeps its variable and still maps.
  CHECK(mapping(product({{"i", 1, S}, {"j", 16, S}, {"k", 32, R}}, {0, 2}, {2, 1}, {0, 1}), matmul_desc()) ==
        "vi, vj, vk");
}

TEST_CASE("auto tensorize: no mapping when dtypes differ or a description iterator is left", "[auto_tensorize]") {
  IRModule mm = product({{"i", 32, S}, {"j", 32, S}, {"k", 32, R}}, {0, 2}, {2, 1}, {0, 1});
  CHECK(mapping(mm, matmul_desc()) == "vi, vj, vk");
  CHECK(mapping(mm, matmul_desc(DataType::float_(16))) == "none");
  // C[i, j] += A[i, k] * B[i, j]: k indexes A alone, the description's k A and B, so nothing
  // takes the description's k.
  CHECK(mapping(product({{"i", 32, S}, {"j", 32, S}, {"k", 32, R}}, {0, 2}, {0, 1}, {0, 1}), matmul_desc()) == "none");
  // An elementwise description: i and j both index every buffer, so each block iterator has
  // two candidates, which TVM refuses as ambiguous.
  PrimFunc elementwise = product({{"i", 16, S}, {"j", 16, S}}, {0, 1}, {0, 1}, {0, 1})->prim_func("main");
  CHECK(mapping(product({{"i", 32, S}, {"j", 32, S}}, {0, 1}, {0, 1}, {0, 1}), elementwise) == "none");
}
