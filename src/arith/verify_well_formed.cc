#include "arith/verify_well_formed.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"

namespace tsch::arith {

using namespace ir;

namespace {

// The variables a buffer declaration (T.match_buffer) may define: those of its shape, strides
// and elem_offset.
std::vector<Var> declared_vars(const Buffer& b) {
  std::vector<Var> out;
  auto collect = [&](const PrimExpr& d) {
    if (!d) return;
    for_each_expr(d, [&](const PrimExpr& e) {
      if (as<VarNode>(e)) out.push_back(std::static_pointer_cast<const VarNode>(e));
    });
  };
  for (const auto& d : b->shape) collect(d);
  for (const auto& d : b->strides) collect(d);
  collect(b->elem_offset);
  return out;
}

class Verifier : public IRVisitor {
 public:
  explicit Verifier(unsigned checks) : checks_(checks) {}

  std::vector<std::string> errors;

  void report(unsigned check, std::string problem) {
    if (checks_ & check) errors.push_back(std::move(problem));
  }

  // Definitions are scoped: a loop variable, let variable or block iterator is defined only
  // inside its loop, let or block, so a use after it (a loop extent naming a variable of a
  // loop that has ended) is reported. Counted: a symbolic size is defined by every parameter
  // buffer that names it.
  void define(const Var& v) { ++defined_[v.get()]; }
  // A loop, let or block iterator binds its variable once in the whole function (TVM's SSA
  // rule): the same Var object bound again — nested, or in a sibling — is reported.
  void bind(const Var& v) {
    if ((defined_.count(v.get()) || bound_.count(v.get())) && reported_.insert(v.get()).second)
      report(kStructure, fmt::format("variable {} is defined more than once", v->name));
    bound_.insert(v.get());
    define(v);
  }
  void undefine(const Var& v) {
    if (--defined_[v.get()] > 0) return;
    defined_.erase(v.get());
    ended_.insert(v.get());
  }

  // Buffers are scoped the same way: a parameter's, an alloc_buffer or match_buffer of an
  // enclosing block, an Allocate/DeclBuffer of lowered code. A view shares its data variable
  // with the buffer it was made from, so either the buffer or its data counts as defined.
  void define_buffer(const Buffer& b) {
    ++buffers_[b.get()];
    ++buffer_data_[b->data.get()];
  }
  void undefine_buffer(const Buffer& b) {
    if (--buffers_[b.get()] == 0) buffers_.erase(b.get());
    if (--buffer_data_[b->data.get()] == 0) buffer_data_.erase(b->data.get());
  }
  void visit_buffer_region(const BufferRegion& r) override {
    check_defined(r.buffer);
    IRVisitor::visit_buffer_region(r);
  }

  void visit_Var(const VarNode& v) override {
    // A buffer's data (`A.data`, as T.call_packed passes a buffer) is defined with the buffer.
    if (!defined_.count(&v) && !buffer_data_.count(&v) && reported_.insert(&v).second) {
      report(kStructure, ended_.count(&v) ? fmt::format("variable {} is used outside its scope", v.name)
                                          : fmt::format("variable {} is used but not defined", v.name));
    }
  }

  void visit_BufferLoad(const BufferLoadNode& load) override {
    check_access(load.buffer, load.indices, "read");
    IRVisitor::visit_BufferLoad(load);
  }

  void visit_Call(const CallNode& call) override {
    if (call.op == "if_then_else" && call.args.size() == 3) {
      // Only the chosen branch is evaluated: a padding read `X[vh - 1]` under `1 <= vh` is in
      // bounds. (Select evaluates both sides, so it gets no such treatment.)
      visit(call.args[0]);
      under_condition(call.args[0], true, [&] { visit(call.args[1]); });
      under_condition(call.args[0], false, [&] { visit(call.args[2]); });
      return;
    }
    IRVisitor::visit_Call(call);
  }

  void visit_For(const ForNode& loop) override {
    visit(loop.min);
    visit(loop.extent);
    bind(loop.loop_var);
    dom_[loop.loop_var.get()] = interval_of(Range{loop.min, loop.extent});
    visit(loop.body);
    dom_.erase(loop.loop_var.get());
    undefine(loop.loop_var);
  }

  void visit_LetStmt(const LetStmtNode& let) override {
    visit(let.value);
    bind(let.var);
    visit(let.body);
    undefine(let.var);
  }

  void visit_Allocate(const AllocateNode& n) override { with_buffer(n.buffer, n.body); }
  void visit_DeclBuffer(const DeclBufferNode& n) override { with_buffer(n.buffer, n.body); }

  void visit_AllocateConst(const AllocateConstNode& c) override {
    // Its variable is data, as an allocated buffer's: buffers over it are defined below.
    for (const auto& e : c.extents) visit(e);
    int64_t count = 1;
    bool known = true;
    for (const auto& e : c.extents) {
      if (auto* i = as<IntImmNode>(e))
        count *= i->value;
      else
        known = false;
    }
    if (known && count != static_cast<int64_t>(c.size())) {
      report(kStructure, fmt::format("T.allocate_const {} holds {} values for extents of {} elements",
                                     c.buffer_var->name, c.size(), count));
    }
    bind(c.buffer_var);
    ++buffer_data_[c.buffer_var.get()];
    const_data_.insert(c.buffer_var.get());
    visit(c.body);
    const_data_.erase(c.buffer_var.get());
    if (--buffer_data_[c.buffer_var.get()] == 0) buffer_data_.erase(c.buffer_var.get());
    undefine(c.buffer_var);
  }

  void visit_IfThenElse(const IfThenElseNode& branch) override {
    visit(branch.condition);
    under_condition(branch.condition, true, [&] { visit(branch.then_case); });
    if (branch.else_case) under_condition(branch.condition, false, [&] { visit(branch.else_case); });
  }

  void visit_BufferStore(const BufferStoreNode& store) override {
    check_access(store.buffer, store.indices, "written");
    // Constant data lives in read-only memory once built.
    if (const_data_.count(store.buffer->data.get()) && reported_buffers_.insert(store.buffer.get()).second) {
      report(kStructure, fmt::format("buffer {} is written, but its data is the constant of T.allocate_const {}",
                                     store.buffer->name, store.buffer->data->name));
    }
    IRVisitor::visit_BufferStore(store);
  }

  void visit_BlockRealize(const BlockRealizeNode& realize) override {
    const BlockNode* block = realize.block.get();
    for (const auto& v : realize.iter_values) visit(v);
    visit(realize.predicate);
    if (realize.iter_values.size() != block->iter_vars.size()) {
      report(kStructure, fmt::format("block \"{}\" has {} iterators but {} bindings", block->name,
                                     block->iter_vars.size(), realize.iter_values.size()));
    } else {
      // A T.where predicate narrows what the bindings reach (an imperfect split binds
      // `i_0 * 16 + i_1` under `i_0 * 16 + i_1 < 130`), so only the dtypes are checked then.
      bool guarded = !is_one(realize.predicate);
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        check_binding(*block, block->iter_vars[i], realize.iter_values[i], guarded);
      }
    }
    // Inside, the predicate may be what keeps the accesses in bounds (an rfactor block's
    // new iterators span the split loops, `vk_0 * 3 + vk_1` up to 128 under
    // `k_0 * 3 + k_1 < 128`): the bounds are checked only in unguarded blocks.
    // What the bindings reach under the loops here bounds the iterators inside, where their
    // declared domains may be wider (compute_at binds `vi` of domain 32 to a loop of 30 and
    // drops the T.where that kept it there).
    for (size_t i = 0; i < block->iter_vars.size() && i < realize.iter_values.size(); ++i) {
      binding_range_[block->iter_vars[i].var.get()] = eval_interval(realize.iter_values[i], dom_);
    }
    bool saved_guarded = guarded_;
    guarded_ = guarded_ || !is_one(realize.predicate);
    visit(Stmt(realize.block));
    guarded_ = saved_guarded;
  }

  void visit_Block(const BlockNode& block) override {
    // Inside the block, accesses are in terms of its iterators, ranging over their domains.
    auto saved = dom_;
    dom_.clear();
    for (const auto& iv : block.iter_vars) {
      visit(iv.dom.min);
      visit(iv.dom.extent);
      bind(iv.var);
      dom_[iv.var.get()] = narrowed_by_binding(iv);
    }
    binding_range_.clear();
    for (const auto& b : block.alloc_buffers) {
      for (const auto& d : b->shape) visit(d);
      define_buffer(b);
    }
    std::vector<Var> view_vars;  // what the views' declarations define
    for (const auto& m : block.match_buffers) {
      visit_buffer_region(m.source);
      define_buffer(m.buffer);
      for (const Var& x : declared_vars(m.buffer)) {
        if (!defined_.count(x.get())) {
          define(x);
          view_vars.push_back(x);
        }
      }
    }
    for (const auto& r : block.reads) visit_buffer_region(r);
    for (const auto& r : block.writes) visit_buffer_region(r);
    if (block.init) visit(block.init);
    visit(block.body);
    for (const auto& iv : block.iter_vars) undefine(iv.var);
    for (const auto& b : block.alloc_buffers) undefine_buffer(b);
    for (const auto& m : block.match_buffers) undefine_buffer(m.buffer);
    for (const Var& x : view_vars) undefine(x);
    dom_ = saved;
  }

 private:
  // An Allocate or DeclBuffer: `buffer` is defined in `body`.
  void with_buffer(const Buffer& buffer, const Stmt& body) {
    define_buffer(buffer);
    visit(body);
    undefine_buffer(buffer);
  }

  // Runs `body` where `cond` is known to hold (or, with holds=false, to fail): the domains of
  // the variables it compares with constants are narrowed. Accesses under a condition that
  // cannot be read that way are not bounds-checked (TVM checks no bounds at all).
  template <typename F>
  void under_condition(const PrimExpr& cond, bool holds, F&& body) {
    VarDomain saved_dom = dom_;
    bool saved_guarded = guarded_;
    if (!narrow(cond, holds)) guarded_ = true;
    body();
    dom_ = std::move(saved_dom);
    guarded_ = saved_guarded;
  }

  // Narrows the domains by `cond == holds`; false when part of it could not be used.
  bool narrow(const PrimExpr& cond, bool holds) {
    switch (cond->kind) {
      case ExprKind::Not:
        return narrow(as<NotNode>(cond)->a, !holds);
      case ExprKind::And:
      case ExprKind::Or: {
        // Both conjuncts of a true `and` hold (both disjuncts of a false `or` fail).
        if ((cond->kind == ExprKind::And) != holds) return false;
        bool a = narrow(binary_a(cond), holds);
        bool b = narrow(binary_b(cond), holds);
        return a && b;
      }
      case ExprKind::LT:
      case ExprKind::LE:
      case ExprKind::GT:
      case ExprKind::GE:
      case ExprKind::EQ: {
        // As `lhs <= rhs + slack` (and for EQ also `rhs <= lhs`).
        const PrimExpr& x = binary_a(cond);
        const PrimExpr& y = binary_b(cond);
        ExprKind k = cond->kind;
        if (!holds) {
          if (k == ExprKind::EQ) return false;
          k = k == ExprKind::LT   ? ExprKind::GE
              : k == ExprKind::LE ? ExprKind::GT
              : k == ExprKind::GT ? ExprKind::LE
                                  : ExprKind::LT;
        }
        switch (k) {
          case ExprKind::LT:
            return bound(x, y, -1);
          case ExprKind::LE:
            return bound(x, y, 0);
          case ExprKind::GT:
            return bound(y, x, -1);
          case ExprKind::GE:
            return bound(y, x, 0);
          case ExprKind::EQ:
            return bound(x, y, 0) && bound(y, x, 0);
          case ExprKind::IntImm:
          case ExprKind::FloatImm:
          case ExprKind::StringImm:
          case ExprKind::Var:
          case ExprKind::Add:
          case ExprKind::Sub:
          case ExprKind::Mul:
          case ExprKind::Div:
          case ExprKind::Mod:
          case ExprKind::FloorDiv:
          case ExprKind::FloorMod:
          case ExprKind::Min:
          case ExprKind::Max:
          case ExprKind::NE:
          case ExprKind::And:
          case ExprKind::Or:
          case ExprKind::Not:
          case ExprKind::Select:
          case ExprKind::Cast:
          case ExprKind::BufferLoad:
          case ExprKind::Call:
          case ExprKind::Ramp:
          case ExprKind::Broadcast:
          case ExprKind::Let:
            break;  // not a comparison
        }
        return false;
      }
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::StringImm:
      case ExprKind::Var:
      case ExprKind::Add:
      case ExprKind::Sub:
      case ExprKind::Mul:
      case ExprKind::Div:
      case ExprKind::Mod:
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod:
      case ExprKind::Min:
      case ExprKind::Max:
      case ExprKind::NE:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::BufferLoad:
      case ExprKind::Call:
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
      case ExprKind::Let:
        break;
    }
    return false;
  }

  // Uses `lo <= hi + slack`: narrows the variable on either side by the other side's range.
  bool bound(const PrimExpr& lo, const PrimExpr& hi, int64_t slack) {
    int64_t lo_min, lo_max, hi_min, hi_max;
    bool lo_known = constant_range(lo, &lo_min, &lo_max), hi_known = constant_range(hi, &hi_min, &hi_max);
    bool used = false;
    if (auto* v = as<VarNode>(lo); v && hi_known && lo_known) {
      set_range(v, lo_min, std::min(lo_max, hi_max + slack));
      used = true;
    }
    if (auto* v = as<VarNode>(hi); v && lo_known && hi_known) {
      set_range(v, std::max(hi_min, lo_min - slack), hi_max);
      used = true;
    }
    return used;
  }

  // The iterator's domain, narrowed to what its binding reaches when both are constant.
  Interval narrowed_by_binding(const IterVar& iv) {
    Interval dom = interval_of(iv.dom);
    auto it = binding_range_.find(iv.var.get());
    int64_t dlo, dhi, blo, bhi;
    if (it == binding_range_.end() || !it->second.min || !dom.min || !as_const_int(simplify(dom.min), &dlo) ||
        !as_const_int(simplify(dom.max), &dhi) || !as_const_int(simplify(it->second.min), &blo) ||
        !as_const_int(simplify(it->second.max), &bhi)) {
      return dom;
    }
    int64_t lo = std::max(dlo, blo), hi = std::min(dhi, bhi);
    if (hi < lo) return dom;
    return Interval{make_int(lo, iv.var->dtype), make_int(hi, iv.var->dtype)};
  }

  bool constant_range(const PrimExpr& e, int64_t* lo, int64_t* hi) {
    Interval range = eval_interval(e, dom_);
    return range.min && as_const_int(simplify(range.min), lo) && as_const_int(simplify(range.max), hi);
  }

  void set_range(const VarNode* v, int64_t lo, int64_t hi) {
    if (!dom_.count(v)) return;
    if (hi < lo) {
      guarded_ = true;  // the branch never runs
      return;
    }
    dom_[v] = Interval{make_int(lo, v->dtype), make_int(hi, v->dtype)};
  }

  void check_binding(const BlockNode& block, const IterVar& iv, const PrimExpr& value, bool guarded) {
    if (value->dtype != iv.var->dtype) {
      report(kStructure, fmt::format("block \"{}\": iterator {} is {} but its binding {} is {}", block.name,
                                     iv.var->name, iv.var->dtype.to_string(), script(value), value->dtype.to_string()));
      return;
    }
    if (guarded) return;
    Interval range = eval_interval(value, dom_);
    int64_t lo, hi, dmin, dext;
    if (range.min && as_const_int(simplify(range.min), &lo) && as_const_int(simplify(range.max), &hi) &&
        as_const_int(iv.dom.min, &dmin) && as_const_int(iv.dom.extent, &dext) && (lo < dmin || hi >= dmin + dext)) {
      report(
          kStructure,
          fmt::format("block \"{}\": iterator {} is bound to {}, whose range [{}, {}) is outside its domain [{}, {})",
                      block.name, iv.var->name, script(value), lo, hi + 1, dmin, dmin + dext));
    }
  }

  void check_defined(const Buffer& b) {
    if (buffers_.count(b.get()) || buffer_data_.count(b->data.get()) || !reported_buffers_.insert(b.get()).second)
      return;
    report(kStructure,
           fmt::format("buffer {} is used where it is not allocated (no parameter, enclosing alloc_buffer or "
                       "match_buffer holds it)",
                       b->name));
  }

  void check_access(const Buffer& b, const std::vector<PrimExpr>& indices, const char* how) {
    check_defined(b);
    if (indices.size() != b->shape.size()) {
      report(kStructure, fmt::format("buffer {} has {} dimensions but is {} with {} indices", b->name, b->shape.size(),
                                     how, indices.size()));
      return;
    }
    if (guarded_ || !(checks_ & kBounds)) return;
    for (size_t d = 0; d < indices.size(); ++d) {
      Interval range = eval_interval(indices[d], dom_);
      int64_t lo, hi, extent;
      if (!range.min || !as_const_int(simplify(range.min), &lo) || !as_const_int(simplify(range.max), &hi)) continue;
      if (!as_const_int(b->shape[d], &extent)) continue;
      if (lo < 0 || hi >= extent) {
        report(kBounds,
               fmt::format(
                   "buffer {} is {} out of bounds: index {} of dimension {} ranges over [{}, {}], but the extent is {}",
                   b->name, how, script(indices[d]), d, lo, hi, extent));
      }
    }
  }

  std::unordered_map<const VarNode*, int> defined_;
  std::unordered_map<const BufferNode*, int> buffers_;
  std::unordered_map<const VarNode*, int> buffer_data_;
  std::unordered_set<const VarNode*> const_data_;  // the data of enclosing T.allocate_const
  std::unordered_set<const BufferNode*> reported_buffers_;
  std::unordered_set<const VarNode*> reported_, ended_, bound_;
  VarDomain dom_;
  std::unordered_map<const VarNode*, Interval> binding_range_;  // of the block about to be visited
  bool guarded_ = false;                                        // inside a block whose realize has a T.where
  unsigned checks_;
};

}  // namespace

std::vector<std::string> verify_well_formed(const PrimFunc& func, unsigned checks) {
  Verifier v(checks);
  for (const auto& p : func->params) v.define(p);
  // Symbolic sizes of parameter buffers are defined by the call (T.match_buffer).
  for (const auto& [param, buffer] : func->buffer_map) {
    v.define_buffer(buffer);
    for (const Var& x : declared_vars(buffer)) v.define(x);
  }
  v.visit(func->body);
  return v.errors;
}

}  // namespace tsch::arith
