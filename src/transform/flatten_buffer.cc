// tir.FlattenBuffer: every buffer becomes one-dimensional. A multi-dimensional access
// A[i, j] turns into A_flat[i * stride0 + j * stride1 (+ elem_offset)], where the strides are
// the buffer's own or the compact row-major ones. The flat buffer shares the data pointer;
// for a parameter it is declared at the top of the body (`A_1 = T.decl_buffer((n,),
// data=A.data)`), while the signature keeps the parameter's own shape.
#include <unordered_set>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

ir::DataType index_type(const std::vector<ir::PrimExpr>& exprs) {
  for (const auto& e : exprs)
    if (e && e->dtype.element_of() == ir::DataType::int64()) return ir::DataType::int64();
  return ir::DataType::int32();
}

ir::PrimExpr as_index(const ir::PrimExpr& e, ir::DataType t) {
  return e->dtype.element_of() == t ? e : ir::cast(t.with_lanes(e->dtype.lanes), e);
}

// a + b where one side may be a ramp: a scalar added to a ramp moves into its base, so a
// vector access stays one contiguous ramp (`T.Ramp(i * 32 + j * 8, 1, 8)`).
ir::PrimExpr add_index(const ir::PrimExpr& a, const ir::PrimExpr& b) {
  auto* rb = ir::as<ir::RampNode>(b);
  if (rb && a->dtype.lanes == 1) return std::make_shared<ir::RampNode>(ir::add(a, rb->base), rb->stride, rb->lanes);
  auto* ra = ir::as<ir::RampNode>(a);
  if (ra && b->dtype.lanes == 1) return std::make_shared<ir::RampNode>(ir::add(ra->base, b), ra->stride, ra->lanes);
  return ir::add(a, b);
}

class Flattener : public ir::IRMutator {
 public:
  // Accesses and allocations name the flat buffer, loads and stores at the flat offset.
  ir::PrimExpr mutate_BufferLoad(const ir::BufferLoadNode& n, const ir::PrimExpr& self) override {
    ir::PrimExpr t = IRMutator::mutate_BufferLoad(n, self);
    auto* load = ir::as<ir::BufferLoadNode>(t);
    return std::make_shared<ir::BufferLoadNode>(load->dtype, flat(load->buffer),
                                                std::vector<ir::PrimExpr>{offset(load->buffer, load->indices)});
  }
  ir::Stmt mutate_BufferStore(const ir::BufferStoreNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_BufferStore(n, self);
    auto* store = ir::as<ir::BufferStoreNode>(t);
    return std::make_shared<ir::BufferStoreNode>(flat(store->buffer), store->value,
                                                 std::vector<ir::PrimExpr>{offset(store->buffer, store->indices)});
  }
  ir::Stmt mutate_Allocate(const ir::AllocateNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_Allocate(n, self);
    auto* alloc = ir::as<ir::AllocateNode>(t);
    return std::make_shared<ir::AllocateNode>(flat(alloc->buffer), alloc->body);
  }
  // A view declared in the body (over a T.allocate_const's data) declares its flat form,
  // the buffer the accesses below now use.
  ir::Stmt mutate_DeclBuffer(const ir::DeclBufferNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_DeclBuffer(n, self);
    auto* decl = ir::as<ir::DeclBufferNode>(t);
    ir::Buffer f = flat(decl->buffer);
    return f == decl->buffer ? t : std::make_shared<ir::DeclBufferNode>(f, decl->body);
  }

  // The flat views of the function's parameters, in parameter order, around `body`.
  ir::Stmt declare_views(const ir::PrimFunc& f, ir::Stmt body) const {
    for (size_t i = f->params.size(); i-- > 0;) {
      ir::Buffer param = f->buffer_of(f->params[i]);
      auto it = param ? flat_.find(param.get()) : flat_.end();
      if (it != flat_.end() && it->second != param) body = std::make_shared<ir::DeclBufferNode>(it->second, body);
    }
    return body;
  }

 private:
  ir::Buffer flat(const ir::Buffer& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    if (b->shape.size() == 1 && b->strides.empty() &&
        (!b->elem_offset || ir::is_zero(b->elem_offset) || param_offset(b))) {
      flat_[b.get()] = b;  // already flat
      return b;
    }
    // TVM flattens such a buffer to one physical axis per separated group, for memories
    // addressed in several dimensions (textures, Hexagon VTCM); tsch's targets have none.
    TSCH_USER_ASSERT(b->axis_separators.empty(), NotImplementedError)
        << "not supported yet: lowering buffer " << b->name << " with axis_separators (a physical layout of "
        << b->axis_separators.size() + 1 << " dimensions); tsch's targets address memory in one";
    if (!b->strides.empty() && b->strides.size() != b->shape.size()) {
      TSCH_USER_ASSERT(false, ValueError) << "buffer " << b->name << " has " << b->strides.size() << " strides for its "
                                          << b->shape.size() << " dimensions";
    }
    ir::DataType t = index_type(b->shape);
    ir::PrimExpr size = ir::make_int(1, t);
    if (b->strides.empty()) {
      for (const auto& d : b->shape) size = ir::mul(size, as_index(d, t));
    } else {
      // Strided: the extent is the largest offset plus one.
      ir::PrimExpr last = ir::make_int(0, t);
      for (size_t i = 0; i < b->shape.size(); ++i)
        last =
            ir::add(last, ir::mul(ir::sub(as_index(b->shape[i], t), ir::make_int(1, t)), as_index(b->strides[i], t)));
      size = ir::add(last, ir::make_int(1, t));
    }
    auto node =
        std::make_shared<ir::BufferNode>(b->name, b->dtype, std::vector<ir::PrimExpr>{arith::simplify(size)}, b->scope);
    node->data = b->data;
    node->align = b->align;
    ir::Buffer out = node;
    flat_[b.get()] = out;
    return out;
  }

  ir::PrimExpr offset(const ir::Buffer& b, const std::vector<ir::PrimExpr>& indices) {
    std::vector<ir::PrimExpr> all = indices;
    all.insert(all.end(), b->shape.begin(), b->shape.end());
    ir::DataType t = index_type(all);
    ir::PrimExpr off;
    if (b->strides.empty()) {
      for (size_t i = 0; i < indices.size(); ++i) {
        ir::PrimExpr idx = as_index(indices[i], t);
        off = off ? add_index(ir::mul(off, as_index(b->shape[i], t)), idx) : idx;
      }
    } else {
      for (size_t i = 0; i < indices.size(); ++i) {
        ir::PrimExpr term = ir::mul(as_index(indices[i], t), as_index(b->strides[i], t));
        off = off ? add_index(off, term) : term;
      }
    }
    if (!off) off = ir::make_int(0, t);
    if (b->elem_offset && !param_offset(b)) off = add_index(off, as_index(b->elem_offset, t));
    return off;
  }

  // A parameter's own elem_offset variable: 0 (see tir.LowerMatchBuffer).
  bool param_offset(const ir::Buffer& b) const { return ir::as<ir::VarNode>(b->elem_offset) && params_.count(b.get()); }

 public:
  std::unordered_set<const ir::BufferNode*> params_;

 private:
  std::unordered_map<const ir::BufferNode*, ir::Buffer> flat_;
};

}  // namespace

Pass flatten_buffer() {
  return {"tir.FlattenBuffer", [](const ir::PrimFunc& f) {
            Flattener flattener;
            for (const auto& [param, b] : f->buffer_map) flattener.params_.insert(b.get());
            ir::Stmt body = flattener.mutate(f->body);
            return with_body(f, flattener.declare_views(f, body));
          }};
}

}  // namespace tsch::transform
