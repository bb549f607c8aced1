#include "bindings/schedule_help.h"

#include <map>

namespace tsch::bindings {

namespace {

struct Help {
  const char* checks;
  const char* example;
};

const std::map<std::string, Help>& table() {
  static const std::map<std::string, Help> t = {
      {"split",
       {"the loop still exists; at most one factor is None (or -1); the factors' product covers the extent "
        "(a larger product adds a T.where guard)",
        "for i in range(128):              ->  for i_0, i_1 in T.grid(32, 4):\n"
        "    vi = T.axis.spatial(128, i)           vi = T.axis.spatial(128, i_0 * 4 + i_1)"}},
      {"fuse",
       {"the loops are adjacent and perfectly nested (each the only child of the previous), start at 0",
        "for i, j in T.grid(16, 8):        ->  for i_j_fused in range(128):\n"
        "    vi, vj = ... [i, j]                   vi = i_j_fused // 8; vj = i_j_fused % 8"}},
      {"reorder",
       {"the loops form a single chain (each under the previous), no loop given twice, nothing but loops between them",
        "for i, j, k in T.grid(...)        ->  sch.reorder(k, i)  gives  for k, j, i in T.grid(...)"}},
      {"compute_at",
       {"the block is a producer whose consumers are all under the loop; the loop is not inside the block",
        "producer B over all i, consumer C in loop i_0  ->  B moves under i_0 and computes only the rows C reads "
        "there (new loops ax0, ax1, ...)"}},
      {"reverse_compute_at",
       {"the block is a consumer whose producers are all under the loop; the loop is not inside the block",
        "mm_relu: Y in loops i, j_0, k, j_1; C over all (i, j)  ->  C moves under j_0: for ax0 in range(4)"}},
      {"compute_inline",
       {"the block writes one buffer with a single BufferStore whose indices are its iterators; it is not an "
        "output of the function; it is not a reduction",
        "B[vi] = A[vi] * 2; C[vi] = B[vi] + 1  ->  C[vi] = A[vi] * 2 + 1 (block B and buffer B removed)"}},
      {"reverse_compute_inline",
       {"the block reads exactly one intermediate buffer, with indices that invert its producer's; the producer "
        "is not a reduction",
        "B[vi] = A[vi] * 2; C[vi] = B[vi] + 1  ->  B's block writes C[vi] = A[vi] * 2 + 1"}},
      {"decompose_reduction",
       {"the block has a T.init; the loop encloses the block and is above every reduction loop of it",
        "Y with T.init() under loops i, j, k  ->  Y_init under i, j (before k) and Y_update under i, j, k"}},
      {"rfactor",
       {"the loop drives only reduction iterators of one reduction block with a recognised combiner (+, *, min, max)",
        "B[vi] += A[vi, vk] over k = k_0 * 4 + k_1; rfactor(k_1, 0)  ->  B_rf[vk_1, vi] partial sums, then B sums B_rf"}},
      {"cache_read",
       {"read_buffer_index names a buffer the block reads; the scope is a storage scope (shared, local, global, ...)",
        "C reads A  ->  new block A_shared copies A into A_shared (scope \"shared\") and C reads A_shared"}},
      {"cache_write",
       {"write_buffer_index names a buffer the block writes; the scope is a storage scope",
        "C writes C  ->  C writes C_local, and a new block C_local copies it to C"}},
      {"parallel",
       {"the loop's iterators are all data-parallel (no reduction carried), it starts at 0, and nothing else "
        "binds it",
        "for i in range(128):  ->  for i in T.parallel(128):"}},
      {"vectorize",
       {"as parallel: the loop carries no reduction",
        "for j_1 in range(4):  ->  for j_1 in T.vectorized(4):"}},
      {"unroll", {"the loop exists", "for k in range(4):  ->  for k in T.unroll(4):"}},
      {"bind",
       {"the thread tag is blockIdx.x/y/z, threadIdx.x/y/z or vthread.*; the loop carries no reduction",
        "for i_0 in range(32):  ->  for i_0 in T.thread_binding(32, thread=\"blockIdx.x\"):"}},
      {"blockize",
       {"a loop: exactly one block under it; a list of blocks: one scope, consecutive statements under their "
        "common loop or block, holding no other block, all dividing into the same outer iterators; bindings divide "
        "into outer and inner parts (inner loops only below outer ones)",
        "C under i_0, j_0, k_0, i_1, j_1, k_1; blockize(i_1)  ->  outer block C_o (vi_o, vj_o, vk_o) holding C; "
        "blockize([B, C])  ->  outer block outer_B_C_"}},
      {"transform_layout",
       {"the index map takes one index per buffer dimension and is a bijective affine map of the buffer's shape; "
        "a map that pads (lambda i: (i // 4, i % 4) on 14 elements) needs pad_value of the buffer's dtype (written by a "
        "block <producer>_pad_<buffer> after the one producer) or assume_injective_transform=True",
        "Y (128, 128), lambda i, j: (i // 16, j, i % 16)  ->  Y (8, 128, 16), Y[vi // 16, vj, vi % 16]"}},
      {"storage_align",
       {"the buffer is written by the block and allocated in the function; axis is one of its dimensions",
        "storage_align(b, 0, axis=0, factor=128, offset=1)  ->  T.block_attr({\"buffer_dim_align\": ...})"}},
      {"set_scope",
       {"the buffer is allocated in the function (parameters keep global scope)",
        "Y = T.alloc_buffer((128, 128))  ->  Y = T.alloc_buffer((128, 128), scope=\"shared\")"}},
      {"add_unit_loop",
       {"the block or loop exists",
        "with T.block(\"B\"): ...  ->  for u in range(1): with T.block(\"B\"): ..."}},
      {"get_block",
       {"a block with that name exists in the function (func_name=, needed when the module has several)",
        "sch.get_block(\"Y\", func_name=\"mm_relu\")  ->  BlockRV"}},
      {"get_loops", {"the block exists", "sch.get_loops(block)  ->  [LoopRV i, LoopRV j, LoopRV k], outermost first"}},
  };
  return t;
}

}  // namespace

std::string schedule_primitive_help(const std::string& name) {
  auto it = table().find(name);
  if (it == table().end()) return {};
  return std::string("checks: ") + it->second.checks + "\nexample:\n" + it->second.example;
}

}  // namespace tsch::bindings
