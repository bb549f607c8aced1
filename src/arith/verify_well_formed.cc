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

class Verifier : public IRVisitor {
 public:
  std::vector<std::string> errors;

  // Definitions are scoped: a loop variable, let variable or block iterator is defined only
  // inside its loop, let or block, so a use after it (a loop extent naming a variable of a
  // loop that has ended) is reported. Counted, since one Var may be defined in two siblings.
  void define(const Var& v) { ++defined_[v.get()]; }
  void undefine(const Var& v) {
    if (--defined_[v.get()] > 0) return;
    defined_.erase(v.get());
    ended_.insert(v.get());
  }

  void visit(const PrimExpr& e) override {
    if (!e) return;
    if (auto* v = as<VarNode>(e)) {
      if (!defined_.count(v) && reported_.insert(v).second) {
        errors.push_back(ended_.count(v) ? fmt::format("variable {} is used outside its scope", v->name)
                                         : fmt::format("variable {} is used but not defined", v->name));
      }
      return;
    }
    if (auto* load = as<BufferLoadNode>(e)) check_access(load->buffer, load->indices, "read");
    visit_children(e);
  }

  void visit(const Stmt& s) override {
    switch (s->kind) {
      case StmtKind::For: {
        auto* loop = as<ForNode>(s);
        visit(loop->min);
        visit(loop->extent);
        define(loop->loop_var);
        dom_[loop->loop_var.get()] = interval_of(Range{loop->min, loop->extent});
        visit(loop->body);
        dom_.erase(loop->loop_var.get());
        undefine(loop->loop_var);
        return;
      }
      case StmtKind::LetStmt: {
        auto* let = as<LetStmtNode>(s);
        visit(let->value);
        define(let->var);
        visit(let->body);
        undefine(let->var);
        return;
      }
      case StmtKind::BufferStore: {
        auto* store = as<BufferStoreNode>(s);
        check_access(store->buffer, store->indices, "written");
        visit_children(s);
        return;
      }
      case StmtKind::BlockRealize: {
        auto* realize = as<BlockRealizeNode>(s);
        const BlockNode* block = realize->block.get();
        for (const auto& v : realize->iter_values) visit(v);
        visit(realize->predicate);
        if (realize->iter_values.size() != block->iter_vars.size()) {
          errors.push_back(fmt::format("block \"{}\" has {} iterators but {} bindings", block->name, block->iter_vars.size(),
                                       realize->iter_values.size()));
        } else {
          // A T.where predicate narrows what the bindings reach (an imperfect split binds
          // `i_0 * 16 + i_1` under `i_0 * 16 + i_1 < 130`), so only the dtypes are checked then.
          bool guarded = !is_one(realize->predicate);
          for (size_t i = 0; i < block->iter_vars.size(); ++i) {
            check_binding(*block, block->iter_vars[i], realize->iter_values[i], guarded);
          }
        }
        // Inside, the predicate may be what keeps the accesses in bounds (an rfactor block's
        // new iterators span the split loops, `vk_0 * 3 + vk_1` up to 128 under
        // `k_0 * 3 + k_1 < 128`): the bounds are checked only in unguarded blocks.
        bool saved_guarded = guarded_;
        guarded_ = guarded_ || !is_one(realize->predicate);
        visit(Stmt(realize->block));
        guarded_ = saved_guarded;
        return;
      }
      case StmtKind::Block: {
        auto* block = as<BlockNode>(s);
        // Inside the block, accesses are in terms of its iterators, ranging over their domains.
        auto saved = dom_;
        dom_.clear();
        for (const auto& iv : block->iter_vars) {
          visit(iv.dom.min);
          visit(iv.dom.extent);
          define(iv.var);
          dom_[iv.var.get()] = interval_of(iv.dom);
        }
        for (const auto& b : block->alloc_buffers) {
          for (const auto& d : b->shape) visit(d);
        }
        for (const auto& m : block->match_buffers) visit_buffer_region(m.source);
        for (const auto& r : block->reads) visit_buffer_region(r);
        for (const auto& r : block->writes) visit_buffer_region(r);
        if (block->init) visit(block->init);
        visit(block->body);
        for (const auto& iv : block->iter_vars) undefine(iv.var);
        dom_ = saved;
        return;
      }
      default:
        visit_children(s);
    }
  }
  using IRVisitor::visit;

 private:
  void check_binding(const BlockNode& block, const IterVar& iv, const PrimExpr& value, bool guarded) {
    if (value->dtype != iv.var->dtype) {
      errors.push_back(fmt::format("block \"{}\": iterator {} is {} but its binding {} is {}", block.name, iv.var->name,
                                   iv.var->dtype.to_string(), script(value), value->dtype.to_string()));
      return;
    }
    if (guarded) return;
    Interval range = eval_interval(value, dom_);
    int64_t lo, hi, dmin, dext;
    if (range.min && as_const_int(simplify(range.min), &lo) && as_const_int(simplify(range.max), &hi) &&
        as_const_int(iv.dom.min, &dmin) && as_const_int(iv.dom.extent, &dext) && (lo < dmin || hi >= dmin + dext)) {
      errors.push_back(fmt::format("block \"{}\": iterator {} is bound to {}, whose range [{}, {}) is outside its domain [{}, {})",
                                   block.name, iv.var->name, script(value), lo, hi + 1, dmin, dmin + dext));
    }
  }

  void check_access(const Buffer& b, const std::vector<PrimExpr>& indices, const char* how) {
    if (indices.size() != b->shape.size()) {
      errors.push_back(fmt::format("buffer {} has {} dimensions but is {} with {} indices", b->name, b->shape.size(), how, indices.size()));
      return;
    }
    if (guarded_) return;
    for (size_t d = 0; d < indices.size(); ++d) {
      Interval range = eval_interval(indices[d], dom_);
      int64_t lo, hi, extent;
      if (!range.min || !as_const_int(simplify(range.min), &lo) || !as_const_int(simplify(range.max), &hi)) continue;
      if (!as_const_int(b->shape[d], &extent)) continue;
      if (lo < 0 || hi >= extent) {
        errors.push_back(fmt::format("buffer {} is {} out of bounds: index {} of dimension {} ranges over [{}, {}], but the extent is {}",
                                     b->name, how, script(indices[d]), d, lo, hi, extent));
      }
    }
  }

  std::unordered_map<const VarNode*, int> defined_;
  std::unordered_set<const VarNode*> reported_, ended_;
  VarDomain dom_;
  bool guarded_ = false;  // inside a block whose realize has a T.where
};

}  // namespace

std::vector<std::string> verify_well_formed(const PrimFunc& func) {
  Verifier v;
  for (const auto& p : func->params) v.define(p);
  // Symbolic sizes of parameter buffers are defined by the call (T.match_buffer).
  for (const auto& [param, buffer] : func->buffer_map) {
    for (const auto& d : buffer->shape) {
      for_each_expr(d, [&](const PrimExpr& e) {
        if (as<VarNode>(e)) v.define(std::static_pointer_cast<const VarNode>(e));
      });
    }
  }
  v.visit(func->body);
  return v.errors;
}

}  // namespace tsch::arith
