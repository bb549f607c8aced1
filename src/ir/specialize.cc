#include "ir/specialize.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tsch::ir {
namespace {

using VarMap = std::unordered_map<const VarNode*, PrimExpr>;

bool is_param(const PrimFunc& f, const Var& v) {
  return std::any_of(f->params.begin(), f->params.end(), [&](const Var& p) { return p == v; });
}

PrimExpr offset_or_zero(const Buffer& b) { return b->elem_offset ? b->elem_offset : make_int(0); }

// The variables `old` declares (its data, shape, strides, offset) bound to `given`'s
// corresponding values, as TVM's UpdateSpecializeVarMap; parts that are equal need no binding.
void bind_buffer(const Buffer& old, const Buffer& given, VarMap& vars) {
  auto bind = [&](const PrimExpr& value, const PrimExpr& declared) {
    if (expr_deep_equal(value, declared)) return;
    auto* v = as<VarNode>(declared);
    TSCH_USER_ASSERT(v, TypeError) << "The signature of target buffer exprected an independent Var, but got "
                                   << script(declared) << ".";
    auto it = vars.find(v);
    if (it == vars.end()) {
      vars[v] = value;
      return;
    }
    TSCH_USER_ASSERT(expr_deep_equal(it->second, value), ValueError)
        << "The assigned value of var " << v->name << " mismatched. " << script(it->second) << " vs. " << script(value)
        << ".";
  };
  TSCH_USER_ASSERT(given->shape.size() == old->shape.size(), ValueError)
      << "The buffer dimensions mismatched" << old->shape.size() << " vs. " << given->shape.size() << ".";
  TSCH_USER_ASSERT(given->strides.size() == old->strides.size(), ValueError)
      << "The buffer strides dimensions mismatched" << old->strides.size() << " vs. " << given->strides.size() << ".";
  TSCH_USER_ASSERT(given->dtype == old->dtype, ValueError)
      << "The buffer dtype mismatched" << old->dtype.to_string() << " vs. " << given->dtype.to_string() << ".";
  bind(given->data, old->data);
  for (size_t i = 0; i < old->shape.size(); ++i) bind(given->shape[i], old->shape[i]);
  for (size_t i = 0; i < old->strides.size(); ++i) bind(given->strides[i], old->strides[i]);
  bind(offset_or_zero(given), offset_or_zero(old));
  TSCH_USER_ASSERT(given->offset_factor == old->offset_factor, ValueError)
      << "The buffer offset_factor mismatched" << old->offset_factor << " vs. " << given->offset_factor << ".";
}

// Substitutes the bound variables, folding an operation whose operands changed (TVM's
// specializer rebuilds them through the folding constructors), and rebuilds every buffer
// whose fields use a bound variable.
class Specializer : public IRMutator {
 public:
  explicit Specializer(const VarMap& vars) : vars_(vars) {}
  using IRMutator::mutate;

  PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
    auto it = vars_.find(&v);
    return it == vars_.end() ? self : it->second;
  }
  // An operation whose operands changed is folded (Div by TVM's div, the others by
  // make_binary).
#define TSCH_X(K)                                                                     \
  PrimExpr mutate_##K(const K##Node& n, const PrimExpr& self) override {              \
    PrimExpr a = mutate(n.a), b = mutate(n.b);                                        \
    if (a == n.a && b == n.b) return self;                                            \
    return ExprKind::K == ExprKind::Div ? div(a, b) : make_binary(ExprKind::K, a, b); \
  }
  TSCH_IR_BINARY_KINDS(TSCH_X)
#undef TSCH_X
  // A cast stays a Cast node (TVM's mutator rebuilds it as is; ir::cast would fold it).
  PrimExpr mutate_Cast(const CastNode& c, const PrimExpr& self) override {
    PrimExpr v = mutate(c.value);
    return v == c.value ? self : std::make_shared<CastNode>(c.dtype, v);
  }
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr out = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(out);
    Buffer b = buffer(load->buffer);
    return b == load->buffer ? out : std::make_shared<BufferLoadNode>(load->dtype, b, load->indices);
  }

  Stmt mutate_BufferStore(const BufferStoreNode& node, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BufferStore(node, self);
    auto* n = as<BufferStoreNode>(out);
    Buffer b = buffer(n->buffer);
    return b == n->buffer ? out : std::make_shared<BufferStoreNode>(b, n->value, n->indices);
  }
  Stmt mutate_Block(const BlockNode& node, const Stmt& self) override {
    Stmt out = IRMutator::mutate_Block(node, self);
    auto* n = as<BlockNode>(out);
    auto block = std::make_shared<BlockNode>(*n);
    bool changed = false;
    auto swap = [&](Buffer& b) {
      Buffer r = buffer(b);
      changed |= r != b;
      b = r;
    };
    for (auto& b : block->alloc_buffers) swap(b);
    for (auto& r : block->reads) swap(r.buffer);
    for (auto& r : block->writes) swap(r.buffer);
    for (auto& m : block->match_buffers) {
      swap(m.buffer);
      swap(m.source.buffer);
    }
    return changed ? Stmt(block) : out;
  }
  Stmt mutate_DeclBuffer(const DeclBufferNode& node, const Stmt& self) override {
    Stmt out = IRMutator::mutate_DeclBuffer(node, self);
    auto* n = as<DeclBufferNode>(out);
    Buffer b = buffer(n->buffer);
    Stmt decl = b == n->buffer ? out : std::make_shared<DeclBufferNode>(b, n->body);
    // A data pointer bound to an expression stays a variable, bound by a LetStmt around the
    // declaration (TVM's specializer: a buffer's data must be a Var).
    if (auto it = vars_.find(b->data.get()); it != vars_.end() && !as<VarNode>(it->second)) {
      let_bound_.insert(b->data.get());
      return std::make_shared<LetStmtNode>(b->data, it->second, decl);
    }
    return decl;
  }
  Stmt mutate_Allocate(const AllocateNode& node, const Stmt& self) override {
    Stmt out = IRMutator::mutate_Allocate(node, self);
    auto* n = as<AllocateNode>(out);
    Buffer b = buffer(n->buffer);
    return b == n->buffer ? out : std::make_shared<AllocateNode>(b, n->body);
  }

  // The buffer with its fields specialized (the same buffer when none uses a bound variable);
  // a data pointer bound to another variable moves to it.
  Buffer buffer(const Buffer& b) {
    if (!b) return b;
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    bool changed = false;
    auto field = [&](const PrimExpr& e) {
      if (!e) return e;
      PrimExpr r = mutate(e);
      changed |= r != e;
      return r;
    };
    auto copy = std::make_shared<BufferNode>(*b);
    for (auto& d : copy->shape) d = field(d);
    for (auto& s : copy->strides) s = field(s);
    copy->elem_offset = field(copy->elem_offset);
    if (auto data = vars_.find(b->data.get()); data != vars_.end()) {
      if (as<VarNode>(data->second)) {
        copy->data = std::static_pointer_cast<const VarNode>(data->second);
        changed = true;
      } else {
        expr_data_.emplace(b->data.get(), b->name);  // kept; a DeclBuffer of it binds it
      }
    }
    Buffer out = changed ? Buffer(copy) : b;
    buffers_[b.get()] = out;
    return out;
  }

  // A buffer whose data pointer was bound to an expression but that no T.decl_buffer declares
  // (a parameter's or an allocation's): its variable would be left undefined.
  void check_expression_pointers() const {
    for (const auto& [data, name] : expr_data_) {
      TSCH_USER_ASSERT(let_bound_.count(data), NotImplementedError)
          << "not supported yet: specializing the data pointer of " << name
          << " to an expression (only a T.decl_buffer's can be)";
    }
  }

 private:
  const VarMap& vars_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
  std::map<const VarNode*, std::string> expr_data_;
  std::set<const VarNode*> let_bound_;
};

}  // namespace

PrimFunc specialize(const PrimFunc& f, const std::vector<std::pair<Var, SpecializeTo>>& bindings) {
  VarMap vars;
  for (const auto& [param, to] : bindings) {
    TSCH_USER_ASSERT(is_param(f, param), ValueError) << "Specialize expects param to be in PrimFunc's params";
    if (to.buffer) {
      Buffer old = f->buffer_of(param);
      TSCH_USER_ASSERT(old, ValueError) << "specialize expects param to be in PrimFunc's buffer_map";
      bind_buffer(old, to.buffer, vars);
    } else {
      TSCH_USER_ASSERT(!f->buffer_of(param), ValueError)
          << "Specialize expects param to not be in PrimFunc's buffer_map";
      // A buffer bound first may have bound it already (TVM overwrites; refused unless equal).
      auto it = vars.find(param.get());
      TSCH_USER_ASSERT(it == vars.end() || expr_deep_equal(it->second, to.value), ValueError)
          << "The assigned value of var " << param->name << " mismatched. " << script(it->second) << " vs. "
          << script(to.value) << ".";
      vars[param.get()] = to.value;
    }
  }
  if (vars.empty()) return f;
  Specializer specializer(vars);
  auto out = std::make_shared<PrimFuncNode>(*f);
  out->params.clear();
  for (const auto& p : f->params)
    if (!vars.count(p.get())) out->params.push_back(p);
  for (auto& [param, buf] : out->buffer_map) buf = specializer.buffer(buf);
  out->body = specializer.mutate(f->body);
  specializer.check_expression_pointers();
  return out;
}

}  // namespace tsch::ir
