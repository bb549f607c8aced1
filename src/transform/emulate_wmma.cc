#include "transform/emulate_wmma.h"

#include <unordered_map>

#include "ir/buffer.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"
#include "transform/wmma_fragments.h"

namespace tsch::transform {
namespace {

using namespace ir;

class WmmaEmulation : public IRMutator {
 public:
  WmmaEmulation(const Stmt& kernel, Var lane_x, std::unordered_set<const VarNode*> x_vars)
      : frags_(infer_wmma_fragments(kernel)), lane_x_(std::move(lane_x)), x_vars_(std::move(x_vars)) {
    for (auto& [var, f] : frags_) {
      auto local = std::make_shared<BufferNode>(*f.buffer);
      local->scope = "local";
      local_[var] = local;
    }
    for_each_stmt(kernel, [&](const Stmt& s) {
      if (auto* a = as<AllocateNode>(s)) memory_[a->buffer->data.get()] = a->buffer;
    });
  }

  Stmt mutate_Allocate(const AllocateNode& a, const Stmt& self) override {
    if (!frags_.count(a.buffer->data.get())) return IRMutator::mutate_Allocate(a, self);
    return std::make_shared<AllocateNode>(local_.at(a.buffer->data.get()), mutate(a.body));
  }
  Stmt mutate_Evaluate(const EvaluateNode& ev, const Stmt& self) override {
    auto* c = as<CallNode>(ev.value);
    if (!c || !is_wmma_call(*c)) return IRMutator::mutate_Evaluate(ev, self);
    for (const auto& arg : c->args) {
      TSCH_USER_ASSERT(!uses_var(arg, [&](const VarNode* v) { return x_vars_.count(v) > 0; }), ValueError)
          << "T." << c->op
          << " is an operation of a whole warp: the 32 lanes of a warp must pass it the same operands, but "
          << script(arg)
          << " depends on threadIdx.x (bind the warps to threadIdx.y / threadIdx.z and keep threadIdx.x for the lanes)";
    }
    Stmt body = c->op == "tvm_fill_fragment" ? fill(*c) : c->op == "tvm_mma_sync" ? mma(*c) : copy(*c);
    if (!lane_x_) return body;
    // Lane 0 of each warp does the warp's work (threadIdx.x is whole warps: checked).
    return std::make_shared<IfThenElseNode>(
        make_binary(ExprKind::EQ, floormod(lane_x_, make_int(32, lane_x_->dtype)), make_int(0, lane_x_->dtype)), body,
        nullptr);
  }

 private:
  const WmmaFragment& frag(const PrimExpr& data) const { return frags_.at(as<VarNode>(data)); }
  const Buffer& local(const PrimExpr& data) const { return local_.at(as<VarNode>(data)); }

  static Stmt loop(const Var& v, int64_t extent, Stmt body) {
    return std::make_shared<ForNode>(v, make_int(0), make_int(extent), ForKind::Serial, std::move(body));
  }
  // Element (r, c) of fragment `index`.
  static PrimExpr element(const WmmaFragment& f, const PrimExpr& index, const PrimExpr& r, const PrimExpr& c) {
    return add(mul(cast(DataType::int32(), index), make_int(f.rows() * f.cols())), add(mul(r, make_int(f.cols())), c));
  }

  Stmt fill(const CallNode& c) {
    const WmmaFragment& f = frag(c.args[0]);
    Var r = make_var("wmma_r"), col = make_var("wmma_c");
    Stmt store = std::make_shared<BufferStoreNode>(local(c.args[0]), cast(f.buffer->dtype, c.args[5]),
                                                   std::vector<PrimExpr>{element(f, c.args[4], r, col)});
    return loop(r, f.rows(), loop(col, f.cols(), store));
  }

  // T.tvm_load_matrix_sync / T.tvm_store_matrix_sync: element (r, c) of the fragment is
  // memory[offset + r * stride + c] (row_major) or memory[offset + c * stride + r] (col_major).
  Stmt copy(const CallNode& c) {
    const WmmaFragment& f = frag(c.args[0]);
    auto* ptr = as<CallNode>(c.args[5]);
    DataType t = ptr->args[0]->dtype;
    TSCH_USER_ASSERT(t == f.buffer->dtype, ValueError)
        << "T." << c.op << " copies " << f.buffer->dtype.to_string() << " fragments of " << f.buffer->name
        << " but its memory operand is " << t.to_string();
    Buffer memory = memory_of(ptr->args[1], t);
    bool row_major = as<StringImmNode>(c.args[7])->value == "row_major";
    Var r = make_var("wmma_r"), col = make_var("wmma_c");
    PrimExpr stride = cast(DataType::int32(), c.args[6]);
    PrimExpr at =
        add(cast(DataType::int32(), ptr->args[2]), row_major ? add(mul(r, stride), col) : add(mul(col, stride), r));
    PrimExpr e = element(f, c.args[4], r, col);
    Stmt store =
        c.op == "tvm_load_matrix_sync"
            ? std::make_shared<BufferStoreNode>(local(c.args[0]), buffer_load(memory, {at}), std::vector<PrimExpr>{e})
            : std::make_shared<BufferStoreNode>(memory, buffer_load(local(c.args[0]), {e}), std::vector<PrimExpr>{at});
    return loop(r, f.rows(), loop(col, f.cols(), store));
  }

  // d[i, j] = c[i, j] + sum over l of a[i, l] * b[l, j], in the accumulator's type.
  Stmt mma(const CallNode& c) {
    const WmmaFragment &d = frag(c.args[0]), &a = frag(c.args[2]), &b = frag(c.args[4]), &acc = frag(c.args[6]);
    DataType t = d.buffer->dtype;
    Var i = make_var("wmma_i"), j = make_var("wmma_j"), l = make_var("wmma_k");
    PrimExpr at_d = element(d, c.args[1], i, j);
    Stmt init = std::make_shared<BufferStoreNode>(
        local(c.args[0]), buffer_load(local(c.args[6]), {element(acc, c.args[7], i, j)}), std::vector<PrimExpr>{at_d});
    PrimExpr product = mul(cast(t, buffer_load(local(c.args[2]), {element(a, c.args[3], i, l)})),
                           cast(t, buffer_load(local(c.args[4]), {element(b, c.args[5], l, j)})));
    Stmt update = std::make_shared<BufferStoreNode>(
        local(c.args[0]), add(buffer_load(local(c.args[0]), {at_d}), product), std::vector<PrimExpr>{at_d});
    return loop(i, d.m, loop(j, d.n, make_seq({init, loop(l, d.k, update)})));
  }

  // The buffer an access_ptr points into: the kernel's allocation, or a parameter's data
  // (a flat view of it in the pointer's type).
  Buffer memory_of(const PrimExpr& data, DataType t) {
    auto* v = as<VarNode>(data);
    TSCH_USER_ASSERT(v, ValueError) << "T.tvm_access_ptr of " << script(data)
                                    << ": the data operand is a buffer's .data";
    auto it = memory_.find(v);
    if (it != memory_.end()) return it->second;
    auto view = std::make_shared<BufferNode>(v->name, t, std::vector<PrimExpr>{make_int(1)});
    view->data = std::static_pointer_cast<const VarNode>(data);
    memory_[v] = view;
    return view;
  }

  std::unordered_map<const VarNode*, WmmaFragment> frags_;
  std::unordered_map<const VarNode*, Buffer> local_, memory_;
  Var lane_x_;
  std::unordered_set<const VarNode*> x_vars_;
};

}  // namespace

Stmt emulate_wmma(const Stmt& kernel, const Var& lane_x, const PrimExpr& x_extent,
                  const std::unordered_set<const VarNode*>& x_vars) {
  bool any = false;
  for_each_expr(kernel, [&](const PrimExpr& e) {
    if (auto* c = as<CallNode>(e); c && is_wmma_call(*c)) any = true;
  });
  if (!any) return kernel;
  int64_t extent = 0;
  TSCH_USER_ASSERT(lane_x && as_const_int(x_extent, &extent) && extent % 32 == 0, ValueError)
      << "tensor-core operations (T.tvm_mma_sync and the fragment loads and stores) run on whole warps: the kernel's "
         "threadIdx.x extent "
      << "must be a multiple of 32, got " << (lane_x ? script(x_extent) : std::string("none bound"));
  return WmmaEmulation(kernel, lane_x, x_vars).mutate(kernel);
}

}  // namespace tsch::transform
