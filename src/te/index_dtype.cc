// create_prim_func(..., index_dtype_override="int64"): the function with its index arithmetic
// in another integer type (TVM's IndexDataTypeNormalizer) — buffer shapes, loop variables and
// extents, block iterators, their bindings and predicates, buffer indices and regions — while
// the values computed keep their types.
#include "te/index_dtype.h"

#include <unordered_map>

#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"

namespace tsch::te {
namespace {

using namespace ir;

class IndexDtypeRewriter : public IRMutator {
 public:
  explicit IndexDtypeRewriter(DataType index) : index_(index) {}

  Buffer buffer(const Buffer& b) {
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    std::vector<PrimExpr> shape;
    for (const auto& d : b->shape) shape.push_back(index(d));
    Buffer out = buffer_with(b, b->name, shape, b->scope);
    buffers_[b.get()] = out;
    return out;
  }

  PrimExpr index(const PrimExpr& e) {
    if (!e) return e;
    bool was = in_index_;
    in_index_ = true;
    PrimExpr out = mutate(e);
    in_index_ = was;
    return out;
  }

  PrimExpr mutate_IntImm(const IntImmNode& imm, const PrimExpr& self) override {
    return in_index_ && is_narrow(imm.dtype) ? make_int(imm.value, index_) : self;
  }

  PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
    auto it = vars_.find(&v);
    if (it == vars_.end()) {
      TSCH_USER_ASSERT(!in_index_ || !is_narrow(v.dtype), NotImplementedError)
          << "not supported yet: index_dtype_override with the symbolic size " << v.name << " (" << v.dtype.to_string()
          << ")";
      return self;
    }
    // Outside an index (an index used as a value) it keeps its type.
    return in_index_ ? PrimExpr(it->second) : cast(v.dtype, it->second);
  }

  PrimExpr mutate_BufferLoad(const BufferLoadNode& load, const PrimExpr&) override {
    std::vector<PrimExpr> indices;
    for (const auto& i : load.indices) indices.push_back(index(i));
    return std::make_shared<BufferLoadNode>(load.dtype, buffer(load.buffer), indices);
  }

  Stmt mutate_For(const ForNode& f, const Stmt&) override {
    auto loop = std::make_shared<ForNode>(f);
    loop->loop_var = fresh(f.loop_var);
    loop->min = index(f.min);
    loop->extent = index(f.extent);
    loop->body = mutate(f.body);
    return loop;
  }

  Stmt mutate_BufferStore(const BufferStoreNode& st, const Stmt&) override {
    std::vector<PrimExpr> indices;
    for (const auto& i : st.indices) indices.push_back(index(i));
    return std::make_shared<BufferStoreNode>(buffer(st.buffer), mutate(st.value), indices);
  }

  Stmt mutate_BlockRealize(const BlockRealizeNode& r, const Stmt&) override {
    std::vector<PrimExpr> values;
    for (const auto& v : r.iter_values) values.push_back(index(v));
    PrimExpr predicate = r.predicate ? index(r.predicate) : r.predicate;
    const BlockNode& b = *r.block;
    auto block = std::make_shared<BlockNode>(b);
    for (auto& iv : block->iter_vars) {
      iv.var = fresh(iv.var);
      iv.dom = Range{index(iv.dom.min), index(iv.dom.extent)};
    }
    for (auto& a : block->alloc_buffers) a = buffer(a);
    TSCH_USER_ASSERT(block->match_buffers.empty(), NotImplementedError)
        << "not supported yet: index_dtype_override with match_buffer";
    for (auto* regions : {&block->reads, &block->writes}) {
      for (auto& region : *regions) {
        region.buffer = buffer(region.buffer);
        for (auto& r : region.region) r = Range{index(r.min), index(r.extent)};
      }
    }
    if (block->init) block->init = mutate(block->init);
    block->body = mutate(block->body);
    return std::make_shared<BlockRealizeNode>(values, predicate, block);
  }

 private:
  bool is_narrow(DataType t) const { return t.is_int() && t.lanes == 1 && t.bits < index_.bits; }
  Var fresh(const Var& v) {
    if (!is_narrow(v->dtype)) return v;
    Var out = make_var(v->name, index_);
    vars_[v.get()] = out;
    return out;
  }

  DataType index_;
  bool in_index_ = false;
  std::unordered_map<const VarNode*, Var> vars_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

}  // namespace

PrimFunc override_index_dtype(const PrimFunc& f, DataType index) {
  TSCH_USER_ASSERT(index.is_int() && index.lanes == 1 && (index.bits == 32 || index.bits == 64), ValueError)
      << "index_dtype_override must be \"int32\" or \"int64\", got \"" << index.to_string() << "\"";
  IndexDtypeRewriter rewriter(index);
  auto out = std::make_shared<PrimFuncNode>(*f);
  for (auto& [param, buf] : out->buffer_map) buf = rewriter.buffer(buf);
  out->body = rewriter.mutate(f->body);
  return out;
}

}  // namespace tsch::te
