// The stage record: what each stage call changes, checked as TVM's legacy schedule checks it
// (schedule_lang.cc's messages), then confirmed by replaying the schedule as tir primitives.
#include "te/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tsch::te {

ir::IterType Stage::type_of(const ir::VarNode* v) const {
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].get() == v) return all_types[i];
  }
  return ir::IterType::DataPar;
}

namespace {

void add_var(Stage& s, const ir::Var& v, ir::IterType t) {
  s.all.push_back(v);
  s.all_types.push_back(t);
}

Stage make_stage(int id, Operation op) {
  Stage s;
  s.id = id;
  s.op = std::move(op);
  s.origin_op = s.op;
  for (const auto& ax : s.op->axis) {
    s.root.push_back(ax.var);
    add_var(s, ax.var, ir::IterType::DataPar);
  }
  if (s.op->reduce) {
    for (const auto& ax : s.op->reduce->axis) {
      s.root.push_back(ax.var);
      add_var(s, ax.var, ir::IterType::CommReduce);
    }
  }
  s.leaf = s.root;
  return s;
}

std::string stage_text(const Stage& s) { return "stage(" + s.op->name + ")"; }

}  // namespace

Schedule::Schedule(const std::vector<Operation>& outputs) : outputs_(outputs) {
  // Every operation the outputs depend on, inputs first (TVM's post-DFS order).
  std::unordered_map<const OperationNode*, int> ids;
  std::function<void(const Operation&)> visit = [&](const Operation& op) {
    if (ids.count(op.get())) return;
    for (const auto& in : op->inputs) visit(in);
    int id = next_id_++;
    ids[op.get()] = id;
    Stage s = make_stage(id, op);
    for (const auto& in : op->inputs) s.inputs.push_back(ids.at(in.get()));
    stages_.push_back(std::move(s));
  };
  for (const auto& op : outputs) visit(op);
  for (const auto& op : outputs) mut(ids.at(op.get())).is_output = true;
}

int Schedule::stage_of(const OperationNode* op) const {
  for (const auto& s : stages_) {
    if (s.op.get() == op || s.origin_op.get() == op) return s.id;
  }
  return -1;
}

const Stage& Schedule::stage(int id) const {
  for (const auto& s : stages_) {
    if (s.id == id) return s;
  }
  TSCH_INTERNAL_ASSERT(false) << "no stage " << id;
}

Stage& Schedule::mut(int id) { return const_cast<Stage&>(stage(id)); }

size_t Schedule::leaf_position(const Stage& s, const ir::Var& v) const {
  for (size_t i = 0; i < s.leaf.size(); ++i) {
    if (s.leaf[i] == v) return i;
  }
  bool known = std::find(s.all.begin(), s.all.end(), v) != s.all.end();
  TSCH_USER_ASSERT(!known, ValueError) << "Operate on iter var " << v->name
                                       << " that has already been split (or fused) in " << stage_text(s);
  std::string owner;
  for (const auto& other : stages_) {
    if (std::find(other.all.begin(), other.all.end(), v) != other.all.end())
      owner = " (it is an axis of " + stage_text(other) + ")";
  }
  TSCH_USER_ASSERT(false, ValueError) << "Operate on iter var " << v->name << " that is not part of the schedule of "
                                      << stage_text(s) << owner;
}

template <class F>
auto Schedule::checked(F&& change) {
  Schedule next = *this;
  auto result = change(next);
  next.to_prim_func(next.default_args(), "main");
  *this = std::move(next);
  return result;
}

namespace {
void check_schedulable(const Stage& s) {
  TSCH_USER_ASSERT(!s.is_placeholder(), ValueError)
      << stage_text(s) << " is a placeholder (an input): it has no loops to schedule";
}
}  // namespace

std::pair<ir::Var, ir::Var> Schedule::split(int id, const ir::Var& parent, std::optional<int64_t> factor,
                                            std::optional<int64_t> nparts) {
  return checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    size_t pos = next.leaf_position(s, parent);
    int64_t by = factor ? *factor : *nparts;
    TSCH_USER_ASSERT(by > 0, ValueError) << "split: the " << (factor ? "factor" : "nparts") << " must be positive, got "
                                         << by;
    ir::IterType t = s.type_of(parent.get());
    ir::Var outer = ir::make_var(parent->name + "_outer", parent->dtype),
            inner = ir::make_var(parent->name + "_inner", parent->dtype);
    s.relations.push_back(IterRelation{IterRelation::Kind::Split, {parent, outer, inner}, factor, nparts});
    add_var(s, outer, t);
    add_var(s, inner, t);
    s.leaf.erase(s.leaf.begin() + static_cast<std::ptrdiff_t>(pos));
    s.leaf.insert(s.leaf.begin() + static_cast<std::ptrdiff_t>(pos), {outer, inner});
    return std::make_pair(outer, inner);
  });
}

std::vector<ir::Var> Schedule::tile(int id, const ir::Var& x, const ir::Var& y, int64_t x_factor, int64_t y_factor) {
  auto [xo, xi] = split(id, x, x_factor, std::nullopt);
  auto [yo, yi] = split(id, y, y_factor, std::nullopt);
  reorder(id, {xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

ir::Var Schedule::fuse(int id, const std::vector<ir::Var>& vars) {
  TSCH_USER_ASSERT(!vars.empty(), NotImplementedError) << "not supported yet: fuse of no axes (TVM's singleton loop)";
  return checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    ir::Var fused = vars[0];
    next.leaf_position(s, fused);
    for (size_t k = 1; k < vars.size(); ++k) {
      ir::Var outer = fused, inner = vars[k];
      size_t pos_outer = next.leaf_position(s, outer), pos_inner = next.leaf_position(s, inner);
      if (pos_inner + 1 == pos_outer) {
        std::swap(outer, inner);
        std::swap(pos_outer, pos_inner);
      }
      TSCH_USER_ASSERT(pos_inner == pos_outer + 1, ValueError)
          << "Can only fuse iterations that are consecutive between each other (" << outer->name << " and "
          << inner->name << " are not next to each other in " << stage_text(s) << ")";
      ir::IterType t = std::max(s.type_of(outer.get()), s.type_of(inner.get()));
      ir::DataType dtype = outer->dtype.bits >= inner->dtype.bits ? outer->dtype : inner->dtype;
      fused = ir::make_var(outer->name + "_" + inner->name + "_fused", dtype);
      s.relations.push_back(IterRelation{IterRelation::Kind::Fuse, {outer, inner, fused}, std::nullopt, std::nullopt});
      add_var(s, fused, t);
      s.leaf.erase(s.leaf.begin() + static_cast<std::ptrdiff_t>(pos_outer),
                   s.leaf.begin() + static_cast<std::ptrdiff_t>(pos_inner) + 1);
      s.leaf.insert(s.leaf.begin() + static_cast<std::ptrdiff_t>(pos_outer), fused);
    }
    return fused;
  });
}

void Schedule::reorder(int id, const std::vector<ir::Var>& order) {
  checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    std::unordered_set<const ir::VarNode*> seen;
    std::vector<size_t> pos;
    for (const auto& v : order) {
      TSCH_USER_ASSERT(seen.insert(v.get()).second, ValueError)
          << "Same axis can not appear more than once " << v->name;
      pos.push_back(next.leaf_position(s, v));
    }
    std::sort(pos.begin(), pos.end());
    for (size_t i = 0; i < pos.size(); ++i) s.leaf[pos[i]] = order[i];
    s.relations.push_back(IterRelation{IterRelation::Kind::Reorder, order, std::nullopt, std::nullopt});
    return 0;
  });
}

void Schedule::annotate(int id, LoopAnnotation annotation) {
  checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    next.leaf_position(s, annotation.iter_var);
    s.annotations.push_back(std::move(annotation));
    return 0;
  });
}

void Schedule::set_store_predicate(int id, const ir::PrimExpr& predicate) {
  const Stage& s = stage(id);
  check_schedulable(s);
  // The thread variables bound to reduce axes of the stage.
  std::vector<const ir::VarNode*> reduce_threads;
  for (const auto& ann : s.annotations) {
    if (ann.kind == LoopAnnotation::Kind::Bind && ann.thread_var && ann.text.rfind("threadIdx", 0) == 0 &&
        s.type_of(ann.iter_var.get()) == ir::IterType::CommReduce)
      reduce_threads.push_back(ann.thread_var.get());
  }
  std::vector<ir::PrimExpr> terms{predicate}, leaves;
  while (!terms.empty()) {
    ir::PrimExpr e = terms.back();
    terms.pop_back();
    if (auto* a = ir::as<ir::AndNode>(e)) {
      terms.push_back(a->a);
      terms.push_back(a->b);
    } else {
      leaves.push_back(e);
    }
  }
  for (const auto& e : leaves) {
    auto* eq = ir::as<ir::EQNode>(e);
    auto* v = eq ? ir::as<ir::VarNode>(eq->a) : nullptr;
    bool ok =
        v && ir::is_zero(eq->b) && std::find(reduce_threads.begin(), reduce_threads.end(), v) != reduce_threads.end();
    TSCH_USER_ASSERT(ok, NotImplementedError)
        << "not supported yet: set_store_predicate(" << ir::script(predicate) << ") on " << stage_text(s)
        << ": tsch accepts a store predicate only where the stores it skips are redundant, `tx.var.equal(0)` for "
           "threads "
           "already bound to the stage's reduce axes (the cross-thread reduction stores from thread 0 anyway); any "
           "other "
           "predicate changes what the stage computes";
  }
}

void Schedule::storage_align(int id, const ir::Var& axis, int64_t factor, int64_t offset) {
  checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    int dim = -1;
    for (size_t i = 0; i < s.op->axis.size(); ++i) {
      if (s.op->axis[i].var == axis) dim = static_cast<int>(i);
    }
    TSCH_USER_ASSERT(dim >= 0, ValueError) << "storage_align: " << axis->name << " is not an axis of " << stage_text(s)
                                           << "'s output (the axis names the dimension aligned)";
    TSCH_USER_ASSERT(factor > 0 && offset >= 0 && offset < factor, ValueError)
        << "storage_align: the factor must be positive and the offset in [0, factor), got factor " << factor
        << ", offset " << offset;
    s.aligns.push_back(Stage::Align{dim, factor, offset});
    return 0;
  });
}

bool Schedule::depends_on(int consumer, int producer) const {
  std::vector<int> work{consumer};
  std::unordered_set<int> seen;
  while (!work.empty()) {
    int id = work.back();
    work.pop_back();
    for (int in : stage(id).inputs) {
      if (in == producer) return true;
      if (seen.insert(in).second) work.push_back(in);
    }
  }
  return false;
}

void Schedule::compute_at(int id, int parent, const ir::Var& var) {
  checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    const Stage& p = next.stage(parent);
    TSCH_USER_ASSERT(std::find(p.leaf.begin(), p.leaf.end(), var) != p.leaf.end(), ValueError)
        << "Cannot find the axis " << var->name << " in parent's leaf_iter_vars parent=" << stage_text(p);
    TSCH_USER_ASSERT(next.depends_on(parent, id), ValueError)
        << "compute_at: " << stage_text(p) << " does not consume " << stage_text(s)
        << " (a stage is computed at a loop of a stage that reads its result)";
    s.attach = AttachKind::At;
    s.attach_stage = parent;
    s.attach_var = var;
    return 0;
  });
}

void Schedule::compute_inline(int id) {
  checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    s.attach = AttachKind::Inline;
    return 0;
  });
}

void Schedule::compute_root(int id) {
  checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    s.attach = AttachKind::Root;
    s.attach_stage = -1;
    s.attach_var = nullptr;
    return 0;
  });
}

int Schedule::cache_read(const Operation& tensor, const std::string& scope, const std::vector<int>& readers) {
  return checked([&](Schedule& next) {
    int source = next.stage_of(tensor.get());
    TSCH_USER_ASSERT(source >= 0, ValueError) << "cache_read: " << tensor->name << " is not a tensor of this schedule";
    TSCH_USER_ASSERT(!readers.empty(), ValueError) << "cache_read: no readers given";
    std::vector<int> all_readers;
    for (const auto& s : next.stages_) {
      if (std::find(s.inputs.begin(), s.inputs.end(), source) != s.inputs.end()) all_readers.push_back(s.id);
    }
    for (int r : readers) {
      TSCH_USER_ASSERT(std::find(all_readers.begin(), all_readers.end(), r) != all_readers.end(), ValueError)
          << "cache_read: " << stage_text(next.stage(r)) << " does not read " << tensor->name;
    }
    for (int r : all_readers) {
      TSCH_USER_ASSERT(std::find(readers.begin(), readers.end(), r) != readers.end(), NotImplementedError)
          << "not supported yet: cache_read for some of the readers of " << tensor->name << " only ("
          << stage_text(next.stage(r)) << " reads it too and is not in the list)";
    }
    // The cache: a copy of the tensor, its axes ax0, ax1, ... as TVM names them.
    std::vector<ir::Var> axes;
    std::vector<ir::PrimExpr> index;
    for (size_t i = 0; i < tensor->buffer->shape.size(); ++i) {
      axes.push_back(ir::make_var("ax" + std::to_string(i), tensor->buffer->shape[i]->dtype));
      index.push_back(axes.back());
    }
    Operation copy = compute(tensor->buffer->shape, axes, ir::buffer_load(tensor->buffer, index), std::nullopt,
                             tensor->name + "." + scope, "", {});
    Stage cache = make_stage(next.next_id_++, copy);
    cache.origin = Stage::Origin::CacheRead;
    cache.scope = scope;
    cache.cached = tensor;
    cache.readers = readers;
    cache.inputs = {source};
    for (int r : readers) {
      for (int& in : next.mut(r).inputs) {
        if (in == source) in = cache.id;
      }
    }
    auto at = std::find_if(next.stages_.begin(), next.stages_.end(), [&](const Stage& s) { return s.id == source; });
    int id = cache.id;
    next.stages_.insert(at + 1, std::move(cache));
    next.step_order_.push_back(id);
    return id;
  });
}

int Schedule::cache_write(int id, const std::string& scope) {
  return checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    TSCH_USER_ASSERT(
        s.relations.empty() && s.annotations.empty() && s.attach == AttachKind::Root && s.origin == Stage::Origin::Op,
        NotImplementedError)
        << "not supported yet: cache_write of " << stage_text(s)
        << " after it was scheduled (call cache_write before the stage's "
        << "split, fuse, reorder, compute_at or annotations)";
    // The compute moves to a new stage whose axes are the old ones with `_c` (TVM's ".c");
    // the reduce axes stay.
    const Operation& op = s.op;
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> rename;
    std::vector<ir::Var> axes;
    for (const auto& ax : op->axis) {
      axes.push_back(ir::make_var(ax.var->name + "_c", ax.var->dtype));
      rename[ax.var.get()] = axes.back();
    }
    std::optional<Reduce> reduce = op->reduce;
    ir::PrimExpr body = op->body ? ir::substitute(op->body, rename) : nullptr;
    if (reduce) {
      reduce->source = ir::substitute(reduce->source, rename);
      for (auto& src : reduce->sources) src = ir::substitute(src, rename);
      if (reduce->condition) reduce->condition = ir::substitute(reduce->condition, rename);
    }
    // Several outputs (all cached together, as TVM requires): the cache computes them all.
    std::vector<ir::PrimExpr> bodies;
    for (const auto& b : op->bodies) bodies.push_back(ir::substitute(b, rename));
    Operation moved = op->outputs.size() > 1
                          ? compute_outputs(op->buffer->shape, axes, reduce ? std::vector<ir::PrimExpr>{} : bodies,
                                            reduce, op->name + "." + scope, op->tag, op->attrs)
                          : compute(op->buffer->shape, axes, body, reduce, op->name + "." + scope, op->tag, op->attrs);
    Stage cache = make_stage(next.next_id_++, moved);
    cache.origin = Stage::Origin::CacheWrite;
    cache.scope = scope;
    cache.cache_write_of = id;
    cache.inputs = s.inputs;
    // The original stage now copies the cache out: its loops are the output axes only.
    s.inputs = {cache.id};
    s.root.resize(op->axis.size());
    s.leaf = s.root;
    s.all = s.root;
    s.all_types.assign(s.root.size(), ir::IterType::DataPar);
    int cache_id = cache.id;
    auto at = std::find_if(next.stages_.begin(), next.stages_.end(), [&](const Stage& st) { return st.id == id; });
    next.stages_.insert(at, std::move(cache));
    next.step_order_.push_back(cache_id);
    return cache_id;
  });
}

int Schedule::rfactor(int id, const ir::Var& axis, int factor_axis) {
  return checked([&](Schedule& next) {
    Stage& s = next.mut(id);
    check_schedulable(s);
    TSCH_USER_ASSERT(s.op->reduce.has_value(), ValueError) << "rfactor: " << stage_text(s) << " is not a reduction";
    next.leaf_position(s, axis);
    TSCH_USER_ASSERT(s.type_of(axis.get()) == ir::IterType::CommReduce, ValueError)
        << "Can only factor reduction axis (" << axis->name << ")";
    TSCH_USER_ASSERT(s.origin == Stage::Origin::Op && s.attach == AttachKind::Root && s.annotations.empty(),
                     NotImplementedError)
        << "not supported yet: rfactor of " << stage_text(s)
        << " after compute_at, annotations or caching (call rfactor first)";
    // The extent of every variable, and the value of each split variable in its parts.
    const Operation& op = s.op;
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> extent, value;
    for (const auto& ax : op->axis) extent[ax.var.get()] = ax.dom.extent;
    for (const auto& ax : op->reduce->axis) extent[ax.var.get()] = ax.dom.extent;
    std::unordered_map<const ir::VarNode*, const ir::VarNode*> root_of;
    for (const auto& v : s.root) root_of[v.get()] = v.get();
    for (const auto& rel : s.relations) {
      TSCH_USER_ASSERT(
          rel.kind == IterRelation::Kind::Split && s.type_of(rel.vars[0].get()) == ir::IterType::CommReduce,
          NotImplementedError)
          << "not supported yet: rfactor of " << stage_text(s)
          << " after a fuse, a reorder or a split of a data-parallel axis "
          << "(TVM drops those; call rfactor right after splitting the reduction axis)";
      ir::PrimExpr ext = extent.at(rel.vars[0].get());
      ir::PrimExpr inner = rel.factor ? ir::make_int(*rel.factor, ext->dtype)
                                      : ir::floordiv(ir::add(ext, ir::make_int(*rel.nparts - 1, ext->dtype)),
                                                     ir::make_int(*rel.nparts, ext->dtype));
      ir::PrimExpr outer = rel.factor ? ir::floordiv(ir::add(ext, ir::make_int(*rel.factor - 1, ext->dtype)), inner)
                                      : ir::make_int(*rel.nparts, ext->dtype);
      extent[rel.vars[1].get()] = outer;
      extent[rel.vars[2].get()] = inner;
      root_of[rel.vars[1].get()] = root_of[rel.vars[2].get()] = root_of.at(rel.vars[0].get());
    }
    const ir::VarNode* touched = root_of.at(axis.get());
    for (const auto& rel : s.relations) {
      TSCH_USER_ASSERT(root_of.at(rel.vars[0].get()) == touched, NotImplementedError)
          << "not supported yet: rfactor with another reduction axis split too (" << rel.vars[0]->name << ")";
    }
    for (auto it = s.relations.rbegin(); it != s.relations.rend(); ++it) {
      auto part = [&](const ir::Var& v) { return value.count(v.get()) ? value.at(v.get()) : ir::PrimExpr(v); };
      value[it->vars[0].get()] = ir::add(ir::mul(part(it->vars[1]), extent.at(it->vars[2].get())), part(it->vars[2]));
    }
    int ndim = static_cast<int>(op->axis.size());
    TSCH_USER_ASSERT(factor_axis >= -(ndim + 1) && factor_axis <= ndim, ValueError)
        << "rfactor: factor_axis " << factor_axis << " is out of range [" << -(ndim + 1) << ", " << ndim << "]";
    int pos = factor_axis >= 0 ? factor_axis : ndim + 1 + factor_axis;

    // "B.rf": B's axes with the factored variable (now data parallel) at `pos`, reducing over
    // the untouched reduce axes and the touched leaves but `axis`.
    std::vector<ir::PrimExpr> rf_shape = op->buffer->shape;
    std::vector<ir::Var> rf_axes;
    for (const auto& ax : op->axis) rf_axes.push_back(ax.var);
    rf_shape.insert(rf_shape.begin() + pos, extent.at(axis.get()));
    rf_axes.insert(rf_axes.begin() + pos, axis);
    Reduce rf_reduce = *op->reduce;
    rf_reduce.axis.clear();
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> vsub;
    for (const auto& ax : op->reduce->axis) {
      if (ax.var.get() != touched)
        rf_reduce.axis.push_back(ax);
      else if (value.count(touched))
        vsub[touched] = value.at(touched);
    }
    for (const auto& v : s.leaf) {
      if (v != axis && root_of.count(v.get()) && root_of.at(v.get()) == touched &&
          s.type_of(v.get()) == ir::IterType::CommReduce) {
        rf_reduce.axis.push_back(
            ir::IterVar{v, ir::Range{ir::make_int(0, v->dtype), extent.at(v.get())}, ir::IterType::CommReduce});
      }
    }
    rf_reduce.source = ir::substitute(rf_reduce.source, vsub);
    for (auto& src : rf_reduce.sources) src = ir::substitute(src, vsub);
    if (rf_reduce.condition) rf_reduce.condition = ir::substitute(rf_reduce.condition, vsub);
    // A tuple reduction (argmax) factors into a tuple reduction: B.rf has an output per value.
    bool tuple = !rf_reduce.sources.empty();
    Operation rf_op = tuple ? compute_outputs(rf_shape, rf_axes, {}, rf_reduce, op->name + ".rf", "", {})
                            : compute(rf_shape, rf_axes, nullptr, rf_reduce, op->name + ".rf", "", {});
    Stage rf = make_stage(next.next_id_++, rf_op);
    rf.origin = Stage::Origin::Rfactor;
    rf.rfactor_of = id;
    rf.rfactor_var = axis;
    rf.factor_axis = pos;
    rf.rfactor_root = s.root;
    rf.rfactor_relations = s.relations;
    rf.inputs = s.inputs;

    // "B.repl": B's shape, reducing B.rf over <axis>_v.
    std::vector<ir::Var> axes;
    std::vector<ir::PrimExpr> index;
    for (size_t i = 0; i < op->axis.size(); ++i) {
      axes.push_back(ir::make_var("ax" + std::to_string(i), op->axis[i].var->dtype));
      index.push_back(axes.back());
    }
    ir::Var v = ir::make_var(axis->name + "_v", axis->dtype);
    index.insert(index.begin() + pos, v);
    Reduce repl_reduce = *op->reduce;
    repl_reduce.source = ir::buffer_load(rf_op->buffer, index);
    for (size_t i = 0; i < repl_reduce.sources.size(); ++i)
      repl_reduce.sources[i] = ir::buffer_load(rf_op->outputs.at(i), index);
    repl_reduce.axis = {
        ir::IterVar{v, ir::Range{ir::make_int(0, v->dtype), extent.at(axis.get())}, ir::IterType::CommReduce}};
    repl_reduce.condition = nullptr;
    Operation repl =
        tuple ? compute_outputs(op->buffer->shape, axes, {}, repl_reduce, op->name + ".repl", op->tag, op->attrs)
              : compute(op->buffer->shape, axes, nullptr, repl_reduce, op->name + ".repl", op->tag, op->attrs);
    Stage fresh = make_stage(id, repl);
    s.op = repl;
    s.root = fresh.root;
    s.all = fresh.all;
    s.all_types = fresh.all_types;
    s.leaf = fresh.leaf;
    s.relations.clear();
    s.inputs = {rf.id};
    int rf_id = rf.id;
    auto at = std::find_if(next.stages_.begin(), next.stages_.end(), [&](const Stage& st) { return st.id == id; });
    next.stages_.insert(at, std::move(rf));
    next.step_order_.push_back(rf_id);
    return rf_id;
  });
}

std::vector<FuncArg> Schedule::default_args() const {
  std::vector<FuncArg> args;
  for (const auto& s : stages_) {
    if (s.is_placeholder()) args.push_back({s.op, nullptr});
  }
  for (const auto& op : outputs_) args.push_back({op, nullptr});
  return args;
}

}  // namespace tsch::te
