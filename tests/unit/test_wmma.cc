// Tensor-core fragments in lowered kernels: what InferFragment (transform/wmma_fragments.h)
// reads from the WMMA builtins, what it refuses, and the emulation's warp check.
#include <catch2/catch.hpp>

#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/emulate_wmma.h"
#include "transform/wmma_fragments.h"

using namespace tsch;
using ir::DataType;

namespace {

ir::PrimExpr str(const std::string& s) { return std::make_shared<ir::StringImmNode>(s); }
ir::PrimExpr i32(int64_t v) { return ir::make_int(v); }
ir::Stmt eval(ir::PrimExpr e) { return std::make_shared<ir::EvaluateNode>(std::move(e)); }

// T.tvm_access_ptr(T.type_annotation(t), data, offset, 256, mask)
ir::PrimExpr access_ptr(DataType t, const ir::Buffer& b, int64_t offset, int64_t mask) {
  return ir::call(DataType::handle(), "tvm_access_ptr",
                  {ir::call(t, "type_annotation", {}), b->data, i32(offset), i32(256), i32(mask)});
}

ir::PrimExpr load(const ir::Buffer& frag, int64_t index, const ir::Buffer& mem, const std::string& layout,
                  int64_t m = 16) {
  return ir::call(
      DataType::handle(), "tvm_load_matrix_sync",
      {frag->data, i32(m), i32(16), i32(16), i32(index), access_ptr(mem->dtype, mem, 0, 1), i32(16), str(layout)});
}

ir::Stmt alloc(const ir::Buffer& b, ir::Stmt body) { return std::make_shared<ir::AllocateNode>(b, std::move(body)); }

struct Kernel {
  ir::Buffer a = ir::make_buffer("A_frag", DataType::float_(16), {i32(32), i32(16)}, "wmma.matrix_a");
  ir::Buffer b = ir::make_buffer("B_frag", DataType::float_(16), {i32(16), i32(16)}, "wmma.matrix_b");
  ir::Buffer c = ir::make_buffer("C_frag", DataType::float32(), {i32(32), i32(16)}, "wmma.accumulator");
  ir::Buffer shared = ir::make_buffer("S", DataType::float_(16), {i32(512)}, "shared");
  ir::Buffer out = ir::make_buffer("C", DataType::float32(), {i32(512)});

  // Fill both accumulator fragments, load A (col_major) and B, multiply, store.
  ir::Stmt body(std::vector<ir::Stmt> extra = {}) const {
    std::vector<ir::Stmt> seq{
        eval(ir::call(DataType::handle(), "tvm_fill_fragment",
                      {c->data, i32(16), i32(16), i32(16), i32(0), ir::make_float(0)})),
        eval(ir::call(DataType::handle(), "tvm_fill_fragment",
                      {c->data, i32(16), i32(16), i32(16), i32(1), ir::make_float(0)})),
        eval(load(a, 0, shared, "col_major")),
        eval(load(b, 0, shared, "row_major")),
        eval(ir::call(DataType::handle(), "tvm_mma_sync",
                      {c->data, i32(0), a->data, i32(0), b->data, i32(0), c->data, i32(0)})),
        eval(ir::call(DataType::handle(), "tvm_store_matrix_sync",
                      {c->data, i32(16), i32(16), i32(16), i32(0), access_ptr(DataType::float32(), out, 0, 2), i32(16),
                       str("row_major")})),
    };
    seq.insert(seq.end(), extra.begin(), extra.end());
    return alloc(shared, alloc(a, alloc(b, alloc(c, ir::make_seq(std::move(seq))))));
  }
};

}  // namespace

TEST_CASE("fragment shapes, layouts and counts come from the WMMA builtins", "[wmma]") {
  Kernel k;
  auto frags = transform::infer_wmma_fragments(k.body());
  REQUIRE(frags.size() == 3);
  const auto& a = frags.at(k.a->data.get());
  CHECK(a.m == 16);
  CHECK(a.layout == "col_major");
  CHECK(a.count() == 2);  // 32x16 holds two 16x16 fragments
  CHECK(frags.at(k.b->data.get()).layout == "row_major");
  const auto& c = frags.at(k.c->data.get());
  CHECK(c.layout.empty());  // an accumulator has no layout of its own
  CHECK(c.count() == 2);
}

TEST_CASE("fragments used wrongly are refused with the buffer named", "[wmma]") {
  Kernel k;
  // Element by element (a block left untensorized).
  ir::Stmt poke = std::make_shared<ir::BufferStoreNode>(k.c, ir::make_float(1), std::vector<ir::PrimExpr>{i32(0)});
  CHECK_THROWS_WITH(transform::infer_wmma_fragments(k.body({poke})),
                    Catch::Contains("C_frag is written element by element"));
  // Two shapes for one buffer.
  ir::Buffer odd = ir::make_buffer("D_frag", DataType::float32(), {i32(32), i32(16)}, "wmma.accumulator");
  ir::Stmt odd_fill = eval(ir::call(DataType::handle(), "tvm_fill_fragment",
                                    {odd->data, i32(32), i32(16), i32(16), i32(0), ir::make_float(0)}));
  CHECK_THROWS_WITH(transform::infer_wmma_fragments(alloc(odd, odd_fill)),
                    Catch::Contains("not supported yet: the tensor-core shape m32n16k16"));
  ir::PrimExpr other = ir::call(DataType::handle(), "tvm_load_matrix_sync",
                                {k.a->data, i32(32), i32(8), i32(16), i32(0),
                                 access_ptr(DataType::float_(16), k.shared, 0, 1), i32(16), str("col_major")});
  CHECK_THROWS_WITH(transform::infer_wmma_fragments(k.body({eval(other)})),
                    Catch::Contains("is used with the shapes m16n16k16 and m32n8k16"));
  // Two layouts for one buffer.
  CHECK_THROWS_WITH(transform::infer_wmma_fragments(k.body({eval(load(k.a, 1, k.shared, "row_major"))})),
                    Catch::Contains("loaded both col_major and row_major"));
  // An mma whose b operand is an accumulator.
  ir::PrimExpr swapped = ir::call(DataType::handle(), "tvm_mma_sync",
                                  {k.c->data, i32(0), k.a->data, i32(0), k.c->data, i32(0), k.c->data, i32(0)});
  CHECK_THROWS_WITH(transform::infer_wmma_fragments(k.body({eval(swapped)})),
                    Catch::Contains("it must be wmma.matrix_b"));
}

TEST_CASE("the emulation runs WMMA builtins once per warp and refuses lane-dependent operands", "[wmma]") {
  Kernel k;
  ir::Var tx = ir::make_var("tx");
  ir::Stmt emulated = transform::emulate_wmma(k.body(), tx, i32(64), {tx.get()});
  // Each builtin became a guarded loop nest on the fragment's "local" copy.
  int guards = 0;
  ir::for_each_stmt(emulated, [&](const ir::Stmt& s) {
    if (ir::as<ir::IfThenElseNode>(s)) ++guards;
    if (auto* a = ir::as<ir::AllocateNode>(s)) CHECK(a->buffer->scope.rfind("wmma.", 0) != 0);
  });
  CHECK(guards == 6);
  CHECK_THROWS_WITH(transform::emulate_wmma(k.body(), tx, i32(48), {tx.get()}),
                    Catch::Contains("must be a multiple of 32, got 48"));
  ir::PrimExpr lane_dependent =
      ir::call(DataType::handle(), "tvm_fill_fragment",
               {k.c->data, i32(16), i32(16), i32(16), ir::floordiv(tx, i32(32)), ir::make_float(0)});
  CHECK_THROWS_WITH(transform::emulate_wmma(k.body({eval(lane_dependent)}), tx, i32(64), {tx.get()}),
                    Catch::Contains("depends on threadIdx.x"));
}
