// transform_layout: re-index a buffer through an index map (`lambda i, j: (i // 16, j, i % 16)`),
// changing its shape and every access, read/write region and allocation (TVM's
// TransformLayout), or the parameter's buffer_map entry. The map must be a bijective
// affine map of the buffer's index space, or of a slightly larger one: then the new
// buffer has padding (`lambda i: (i // 4, i % 4)` on 14 elements gives 4 x 4), which needs
// a pad_value (how it gets there: transform_layout_padding.cc) or assume_injective_transform=True.
#include <fmt/format.h>

#include <optional>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/iter_map_symbolic.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitive/transform_layout_padding.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"
#include "support/error.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// The index map applied to one access, and to a region (its bounding box: the point a point
// maps to; the whole new dimension where the bounds are not known, e.g. over a symbolic shape).
BufferReindex through_index_map(const std::vector<Var>& params, const std::vector<PrimExpr>& outputs,
                                const std::vector<PrimExpr>& shape) {
  BufferReindex reindex;
  reindex.indices = [&params, &outputs](const std::vector<PrimExpr>& indices) {
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < params.size(); ++i) vmap[params[i].get()] = indices[i];
    std::vector<PrimExpr> out;
    for (const auto& o : outputs) out.push_back(arith::simplify(substitute(o, vmap)));
    return out;
  };
  reindex.region = [&params, &outputs, &shape, indices = reindex.indices](const std::vector<Range>& region) {
    bool point = true;
    for (const auto& r : region) point &= is_one(r.extent);
    std::vector<PrimExpr> mins;
    for (const auto& r : region) mins.push_back(r.min);
    std::vector<PrimExpr> mapped = indices(mins);
    arith::VarDomain dom;
    for (size_t i = 0; i < params.size(); ++i) dom[params[i].get()] = arith::interval_of(region[i]);
    std::vector<Range> out;
    for (size_t k = 0; k < outputs.size(); ++k) {
      arith::Interval range = arith::eval_interval(outputs[k], dom);
      if (range.min && range.max)
        out.push_back(arith::range_of(range));
      else if (point)
        out.push_back(Range{mapped[k], make_int(1, mapped[k]->dtype)});
      else
        out.push_back(Range{make_int(0, shape[k]->dtype), shape[k]});
    }
    return out;
  };
  return reindex;
}

bool is_matched(const ScheduleState& s, const std::string& func, const Buffer& buffer) {
  for (BlockSid b : s.blocks_in(func)) {
    for (const auto& m : s.block_at(b).match_buffers) {
      if (m.source.buffer == buffer) return true;
    }
  }
  return false;
}

std::string shape_text(const std::vector<PrimExpr>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + ir::script(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// The loops that if_then_else_producers rewrote, swapped for their new nests.
class NestReplacer : public IRMutator {
 public:
  explicit NestReplacer(const std::unordered_map<const StmtNode*, Stmt>& nests) : nests_(nests) {}
  // Whole-node on purpose: the replaced statements are picked by identity, whatever their kind.
  Stmt mutate(const Stmt& s) override {
    auto it = nests_.find(s.get());
    return it != nests_.end() ? it->second : mutate_children(s);
  }
  using IRMutator::mutate;

 private:
  const std::unordered_map<const StmtNode*, Stmt>& nests_;
};

// `body` with the padding block after the nest of the buffer's one producer, a top-level
// statement of the function (TVM's EpiloguePlan).
Stmt with_padding_block(ScheduleState& s, const std::string& func, BlockSid root, BlockSid block_sid, const Stmt& body,
                        const Buffer& buffer, const Stmt& pad_nest) {
  std::vector<BlockSid> producers;
  for (BlockSid b : s.blocks_in(func)) {
    for (const auto& w : s.block_at(b).writes) {
      if (w.buffer == buffer) {
        producers.push_back(b);
        break;
      }
    }
  }
  if (producers.size() != 1) {
    fail_not_supported(s, {block_sid},
                       fmt::format("padding buffer {}, which {} blocks write (exactly one is supported)", buffer->name,
                                   producers.size()));
  }
  BlockSid producer = producers[0];
  if (s.scope_block(producer) != root)
    fail_not_supported(s, {producer}, "padding a buffer whose producer {0} is nested in another block");
  std::vector<LoopSid> loops = s.enclosing_loops(producer);
  const StmtNode* top =
      loops.empty() ? static_cast<const StmtNode*>(s.info(producer)->realize) : s.info(loops[0])->node;
  std::vector<Stmt> items;
  for (const Stmt& item : body_items(body)) {
    items.push_back(item);
    if (item.get() == top) items.push_back(pad_nest);
  }
  if (items.size() != body_items(body).size() + 1)
    fail_not_supported(s, {producer},
                       "padding a buffer whose producer {0} is not a top-level statement of the function");
  return rewrap(peel_decls(body).wrappers, make_seq(items));
}

// The last value of a range.
PrimExpr last_of(const PrimExpr& min, const PrimExpr& extent) {
  return arith::simplify(sub(add(min, extent), make_int(1, extent->dtype)));
}

std::vector<PrimExpr> simplified(const std::vector<PrimExpr>& indices, const arith::VarDomain& dom) {
  std::vector<PrimExpr> out;
  for (const auto& i : indices) out.push_back(arith::simplify(i, dom));
  return out;
}

// The accesses of the new buffer simplified where they stand, knowing the loops and block
// iterators around them: (vo * 16 + vi) // 16 is vo when vi < 16 (TVM's
// IterMapSimplifyWithContext in its rewriter).
class ContextSimplifier : public IRMutator {
 public:
  explicit ContextSimplifier(const Buffer& buffer) : buffer_(buffer) {}
  using IRMutator::mutate;

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr out = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(out);
    if (load->buffer != buffer_) return out;
    return std::make_shared<BufferLoadNode>(load->dtype, load->buffer, simplified(load->indices, dom_));
  }
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    Scoped bound(dom_, f.loop_var.get(), arith::Interval{f.min, last_of(f.min, f.extent)});
    return IRMutator::mutate_For(f, self);
  }
  Stmt mutate_Block(const BlockNode& b, const Stmt& self) override {
    std::vector<Scoped> bound;
    bound.reserve(b.iter_vars.size());
    for (const auto& iv : b.iter_vars) {
      bound.emplace_back(dom_, iv.var.get(), arith::Interval{iv.dom.min, last_of(iv.dom.min, iv.dom.extent)});
    }
    Stmt out = IRMutator::mutate_Block(b, self);
    auto copy = std::make_shared<BlockNode>(*as<BlockNode>(out));
    for (auto* regions : {&copy->reads, &copy->writes}) {
      for (auto& r : *regions) {
        if (r.buffer != buffer_) continue;
        for (auto& range : r.region)
          range = Range{arith::simplify(range.min, dom_), arith::simplify(range.extent, dom_)};
      }
    }
    return copy;
  }
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BufferStore(n, self);
    auto* store = as<BufferStoreNode>(out);
    if (store->buffer != buffer_) return out;
    return std::make_shared<BufferStoreNode>(store->buffer, store->value, simplified(store->indices, dom_));
  }

 private:
  // A variable's domain while its loop or block is being visited.
  struct Scoped {
    Scoped(arith::VarDomain& dom, const VarNode* v, arith::Interval i) : dom_(&dom), v_(v) {
      (*dom_)[v] = std::move(i);
    }
    Scoped(Scoped&& o) noexcept : dom_(o.dom_), v_(o.v_) { o.dom_ = nullptr; }
    Scoped(const Scoped&) = delete;
    ~Scoped() {
      if (dom_) dom_->erase(v_);
    }
    arith::VarDomain* dom_;
    const VarNode* v_;
  };
  const Buffer& buffer_;
  arith::VarDomain dom_;
};

// Every access of `buffer` in the function (root block `root_block`) through the map, into
// `changed`; the parameter's buffer_map entry too.
void rewrite_through_map(ScheduleState& s, const std::string& func, const std::shared_ptr<BlockNode>& root_block,
                         const Buffer& buffer, const Buffer& changed, bool is_param, const std::vector<Var>& params,
                         const std::vector<PrimExpr>& outputs) {
  BlockSid root = s.root_of(func);
  BufferReindex reindex = through_index_map(params, outputs, changed->shape);
  Stmt new_root = ContextSimplifier(changed).mutate(replace_buffer(Stmt(root_block), buffer, changed, &reindex));
  const BlockRealizeNode* r = s.info(root)->realize;
  s.replace(root, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate,
                                                     std::static_pointer_cast<const BlockNode>(new_root)));
  if (is_param) s.replace_param_buffer(func, buffer, changed);
}

TSCH_SCHEDULE_ERROR_KIND(
    kBufferIsSubregionError, "BufferIsSubregionError",
    "The input buffer is defined in `match_buffer` of a block, it is expected to be a function parameter or "
    "allocated by a block",
    "The input buffer is defined in `match_buffer` of a block");
TSCH_SCHEDULE_ERROR_KIND(kTransformationIntroducesPaddingError, "TransformationIntroducesPaddingError",
                         "Transformation would introduce padding.", "Transformation would introduce padding.");
TSCH_SCHEDULE_ERROR_KIND(kTransformationPaddingExpressionError, "TransformationPaddingExpressionError",
                         "Pad value may only contain BufferLoad from the transformed buffer",
                         "Pad value may not contain load from another buffer");
TSCH_SCHEDULE_ERROR_KIND(kTransformationPaddingTypeError, "TransformationPaddingTypeError", "Type mismatch",
                         "The pad value's type does not match the buffer's");

// A buffer of symbolic shape: the map must fuse whole indices (`lambda y, w: y * n + w` on
// shape (32, n)), a bijection whatever the shape's values (arith/iter_map_symbolic.h), so no
// padding; the new shape is the outputs' extents (32 * n). Anything else is refused.
void transform_layout_symbolic(ScheduleState& s, BlockSid block_sid, const Buffer& buffer, bool is_param,
                               const std::vector<Var>& params, std::vector<PrimExpr> outputs) {
  // Step 1. Check: the map's other variables come from the shape (so they are defined where
  // the buffer is), and it fuses whole indices.
  std::string stranger = arith::bind_to_scope(outputs, params, buffer->shape);
  std::string what = "transform_layout of buffer " + buffer->name + " of symbolic shape " + shape_text(buffer->shape);
  if (!stranger.empty())
    fail_not_supported(s, {block_sid}, what + " through a map using " + stranger + ", which its shape does not use");
  arith::SymbolicFuseResult map = arith::detect_symbolic_fuse(outputs, params, buffer->shape);
  if (!map.ok)
    fail_not_supported(s, {block_sid}, what + " through a map that does not fuse whole indices: the map " + map.error);

  // Step 2. Rewrite: the new shape; indices of extent 1 (always 0) dropped from the map.
  DataType t = buffer->shape[0]->dtype;
  std::vector<PrimExpr> shape;
  for (const auto& sum : map.sums)
    shape.push_back(sum.extent->dtype == t ? sum.extent : arith::simplify(cast(t, sum.extent)));
  std::unordered_map<const VarNode*, PrimExpr> unit;
  for (size_t i = 0; i < params.size(); ++i) {
    if (is_one(buffer->shape[i])) unit[params[i].get()] = make_int(0, params[i]->dtype);
  }
  std::vector<PrimExpr> fused;
  for (const auto& o : outputs) fused.push_back(arith::simplify(substitute(o, unit)));
  const std::string func = s.info(block_sid)->func;
  Buffer changed = buffer_with(buffer, buffer->name, shape, buffer->scope);
  rewrite_through_map(s, func, std::make_shared<BlockNode>(s.block_at(s.root_of(func))), buffer, changed, is_param,
                      params, fused);
}

// Whether the buffer is one of the function's parameters.
bool is_param_buffer(const ScheduleState& s, const std::string& func, const Buffer& buffer) {
  bool is_param = false;
  for (const auto& [name, f] : s.mod()->prim_funcs()) {
    if (name != func) continue;
    for (const auto& [param, b] : f->buffer_map) is_param |= b == buffer;
  }
  return is_param;
}

// A buffer defined by a block's T.match_buffer cannot be transformed (TVM's
// BufferIsSubregionError).
void check_not_sub_buffer(const ScheduleState& s, BlockSid block_sid, const std::string& func, const Buffer& buffer) {
  bool is_sub_buffer = false;
  for (BlockSid b : s.blocks_in(func)) {
    for (const auto& m : s.block_at(b).match_buffers) is_sub_buffer |= m.buffer == buffer;
  }
  if (is_sub_buffer) {
    fail(s, kBufferIsSubregionError, {block_sid},
         "ScheduleError: The input buffer " + buffer->name +
             " is defined in `match_buffer` of a block, it is expected to be a function parameter or allocated by a "
             "block.");
  }
}

// The identity (what remains of `lambda i, j: [i, IndexMap.AXIS_SEPARATOR, j]`) changes
// nothing, views of the buffer included.
bool is_identity_map(const Buffer& buffer, const std::vector<Var>& params, const std::vector<PrimExpr>& outputs,
                     const LayoutPadding& padding) {
  bool identity = outputs.size() == params.size() && params.size() == buffer->shape.size() && !padding.value;
  for (size_t i = 0; identity && i < params.size(); ++i) identity = outputs[i].get() == params[i].get();
  return identity;
}

// A buffer no view matches, a parameter or an allocation, with one map parameter per dimension.
void check_transformable(const ScheduleState& s, BlockSid block_sid, const std::string& func, const Buffer& buffer,
                         const std::vector<Var>& params, bool is_param) {
  bool allocated = allocated_in_function(s, func, buffer);
  if (is_matched(s, func, buffer)) {
    fail_not_supported(s, {block_sid}, "transform_layout of a buffer used by T.match_buffer (" + buffer->name + ")");
  }
  // A block accesses only parameters, allocations and match_buffer views.
  TSCH_INTERNAL_ASSERT(allocated || is_param)
      << "transform_layout: buffer " << buffer->name << " is not defined in function " << func;
  // The script binding checks this with the arguments; C++ callers get the same ValueError.
  TSCH_USER_ASSERT(params.size() == buffer->shape.size(), ValueError)
      << "the index map takes " << params.size() << " indices but buffer " << buffer->name << " has "
      << buffer->shape.size() << " dimensions";
}

// A map over other values (`lambda i: [i // n, i % n]`) is a bijection only for some of
// them (n > 0), which tsch cannot know; TVM assumes it.
void check_map_over_indices(const ScheduleState& s, BlockSid block_sid, const Buffer& buffer,
                            const std::vector<PrimExpr>& outputs, const arith::VarDomain& dom) {
  for (const auto& o : outputs) {
    uses_var(o, [&](const VarNode* v) {
      if (dom.count(v)) return false;
      fail_not_supported(s, {block_sid},
                         "transform_layout of buffer " + buffer->name + " of shape " + shape_text(buffer->shape) +
                             " through a map using " + v->name + ", " + ir::script(o) +
                             ": tsch cannot prove the map a bijection for every value of " + v->name);
    });
  }
}

// The new shape: each output must range over [0, n).
std::vector<PrimExpr> mapped_shape(const ScheduleState& s, BlockSid block_sid, const Buffer& buffer,
                                   const std::vector<PrimExpr>& outputs, const arith::VarDomain& dom) {
  std::vector<PrimExpr> shape;
  for (const auto& o : outputs) {
    arith::Interval range = arith::eval_interval(o, dom);
    int64_t lo, hi;
    if (!range.min || !as_const_int(range.min, &lo) || !as_const_int(range.max, &hi) || lo != 0) {
      fail(s, kNotBijectiveAffineIndexMapError, {block_sid},
           "The index map is not bijective affine: its output " + ir::script(o) + " does not range over [0, n)");
    }
    shape.push_back(make_int(hi + 1, buffer->shape[0]->dtype));
  }
  return shape;
}

// The map, detected bijective affine over the buffer's indices, or over indices padded (and
// shifted by constants) to a larger space: then `padded` holds those extents, and `shape`
// becomes the map's range over them.
struct LayoutMap {
  arith::IterMapResult map;
  std::optional<arith::LoopExtents> padded;
  IndexOffsets offsets;
};

LayoutMap detect_layout_map(const ScheduleState& s, BlockSid block_sid, const std::vector<Var>& params,
                            const std::vector<PrimExpr>& outputs, const arith::LoopExtents& extents,
                            std::vector<PrimExpr>& shape) {
  LayoutMap m;
  m.map = arith::detect_iter_map(outputs, extents, true);
  if (m.map.ok) return m;
  // A map of indices shifted by constants (`(i + 1) // 8`) is detected over the shifted
  // indices, whose first values are padding too.
  m.offsets = index_offsets(params, outputs);
  std::vector<PrimExpr> detected = shifted_by(params, outputs, m.offsets);
  arith::LoopExtents shifted_extents = extents;
  for (const auto& [p, c] : m.offsets) shifted_extents[p] += c;
  m.padded = padded_extents(params, detected, shifted_extents, shape);
  if (!m.padded)
    fail(s, kNotBijectiveAffineIndexMapError, {block_sid},
         "The index map is not bijective affine: the map " + m.map.error);
  m.map = arith::detect_iter_map(detected, *m.padded, true);
  // The new shape is the map's range over the padded indices.
  arith::VarDomain padded_dom;
  for (const Var& p : params)
    padded_dom[p.get()] = arith::Interval{make_int(0, p->dtype), make_int(m.padded->at(p.get()) - 1, p->dtype)};
  for (size_t k = 0; k < outputs.size(); ++k) {
    int64_t hi;
    if (as_const_int(arith::eval_interval(detected[k], padded_dom).max, &hi))
      shape[k] = make_int(hi + 1, shape[k]->dtype);
  }
  return m;
}

// The pad value may read the transformed buffer only (TVM's
// TransformationPaddingExpressionError), and where there is padding it has the buffer's type.
void check_pad_value(const ScheduleState& s, BlockSid block_sid, const Buffer& buffer, const LayoutPadding& padding,
                     bool padded) {
  if (padding.value) {
    std::string other;
    for_each_expr(padding.value, [&](const PrimExpr& e) {
      if (auto* load = as<BufferLoadNode>(e); load && load->buffer != buffer && other.empty())
        other = load->buffer->name;
    });
    if (!other.empty()) {
      fail(s, kTransformationPaddingExpressionError, {block_sid},
           fmt::format(
               "ScheduleError: Pad value may only contain BufferLoad from the transformed buffer {}, but pad_value {} "
               "reads {}",
               buffer->name, ir::script(padding.value), other),
           "Pad value may not contain load from " + other);
    }
  }
  if (padded && padding.value && padding.value->dtype != buffer->dtype) {
    fail(s, kTransformationPaddingTypeError, {block_sid},
         fmt::format("ScheduleError: Buffer {} has elements of type {}, but the transformation fills padding with {}, "
                     "which is of "
                     "type {}",
                     buffer->name, buffer->dtype.to_string(), ir::script(padding.value),
                     padding.value->dtype.to_string()),
         fmt::format("Type mismatch {} vs {}", buffer->dtype.to_string(), padding.value->dtype.to_string()));
  }
}

// Step 3. How the padding gets its value (TVM's plans, in TVM's order): nothing writes
// the buffer: assumptions first; producers that visit every index: rewritten with
// if_then_else; else a padding block after the one producer. Rewrites the root block's body.
void fill_padding(ScheduleState& s, const std::string& func, BlockSid root, BlockSid block_sid, BlockNode& root_block,
                  const PaddingContext& context) {
  const Buffer& buffer = context.buffer;
  if (!writes_buffer(root_block.body, buffer)) {
    root_block.body = insert_into_body(root_block.body, 0, assumption_nest(s, context));
  } else if (auto nests = if_then_else_producers(s, root_block.body, context); !nests.empty()) {
    root_block.body = NestReplacer(nests).mutate(root_block.body);
  } else {
    root_block.body = with_padding_block(s, func, root, block_sid, root_block.body, buffer, padding_nest(s, context));
  }
}

}  // namespace

void transform_layout(ScheduleState& s, BlockSid block_sid, const Buffer& buffer, const std::vector<Var>& params,
                      const std::vector<PrimExpr>& outputs, const LayoutPadding& padding) {
  // Step 1. Check: a buffer allocated in the function; a bijective affine map of its shape.
  const std::string func = s.info(block_sid)->func;  // a copy: s.replace below frees the index it is in
  BlockSid root = s.root_of(func);
  bool is_param = is_param_buffer(s, func, buffer);
  check_not_sub_buffer(s, block_sid, func, buffer);
  if (is_identity_map(buffer, params, outputs, padding)) return;
  check_transformable(s, block_sid, func, buffer, params, is_param);
  bool symbolic = false;
  int64_t n;
  for (const auto& dim : buffer->shape) symbolic |= !as_const_int(dim, &n);
  if (symbolic) return transform_layout_symbolic(s, block_sid, buffer, is_param, params, outputs);
  arith::LoopExtents extents;
  arith::VarDomain dom;
  for (size_t i = 0; i < params.size(); ++i) {
    as_const_int(buffer->shape[i], &n);
    extents[params[i].get()] = n;
    dom[params[i].get()] = arith::Interval{make_int(0, params[i]->dtype), make_int(n - 1, params[i]->dtype)};
  }
  check_map_over_indices(s, block_sid, buffer, outputs, dom);
  std::vector<PrimExpr> shape = mapped_shape(s, block_sid, buffer, outputs, dom);
  LayoutMap m = detect_layout_map(s, block_sid, params, outputs, extents, shape);
  // Step 2. Padding: refused unless a value or assume_injective_transform says what it holds
  // (with assume_injective_transform nothing writes it, as in TVM, whatever pad_value says).
  Buffer changed = buffer_with(buffer, buffer->name, shape, buffer->scope);
  auto root_block = std::make_shared<BlockNode>(s.block_at(root));
  check_pad_value(s, block_sid, buffer, padding, m.padded.has_value());
  if (m.padded && !padding.assume_injective) {
    if (!padding.value) {
      fail(
          s, kTransformationIntroducesPaddingError, {block_sid},
          fmt::format(
              "The transformation applied on buffer {} of shape {} would result in shape {}, which introduces padding: "
              "pass pad_value (the value of the padding), or assume_injective_transform=True when nothing reads it",
              buffer->name, shape_text(buffer->shape), shape_text(shape)));
    }
    fill_padding(s, func, root, block_sid, *root_block,
                 PaddingContext{buffer, changed, m.map, params, extents, m.offsets, padding});
  }
  // Step 4. Rewrite the whole function.
  rewrite_through_map(s, func, root_block, buffer, changed, is_param, params, outputs);
}

// set_axis_separator: the buffer (a parameter or an allocation, not a match_buffer view) gets
// `separators`; the views of it follow (TVM's SetAxisSeparator). The layout itself is lowering's.
void set_axis_separator(ScheduleState& s, BlockSid block_sid, const Buffer& buffer,
                        const std::vector<int64_t>& separators) {
  const std::string func = s.info(block_sid)->func;  // a copy: s.replace below frees the index it is in
  PrimFunc f = s.mod()->prim_func(func);
  bool is_param = false;
  for (const auto& [param, b] : f->buffer_map) is_param |= b == buffer;
  if (!is_param && !allocated_in_function(s, func, buffer)) {
    fail(s, kBufferIsSubregionError, {block_sid},
         "ScheduleError: The input buffer " + buffer->name +
             " is defined in `match_buffer` of a block, it is expected to be a function parameter or allocated by a "
             "block.");
  }
  int64_t prev = 0;
  for (int64_t sep : separators) {
    TSCH_USER_ASSERT_ARG(sep >= prev && sep <= static_cast<int64_t>(buffer->shape.size()), ValueError,
                         "axis_separators")
        << "axis separators must be non-decreasing axes of buffer " << buffer->name << " (0.." << buffer->shape.size()
        << "), got " << sep;
    prev = sep;
  }
  BlockSid root = s.root_of(func);
  Buffer replacement;
  Stmt new_root = change_buffer(Stmt(std::make_shared<BlockNode>(s.block_at(root))), buffer,
                                BufferChange{std::nullopt, std::nullopt, separators}, &replacement);
  const BlockRealizeNode* r = s.info(root)->realize;
  s.replace(root, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate,
                                                     std::static_pointer_cast<const BlockNode>(new_root)));
  if (is_param) s.replace_param_buffer(func, buffer, replacement);
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

namespace {

// The buffer a LayoutBuffer argument names: attributes (index, kind) as TVM's BufferIndexType
// (0 read, 1 write).
Buffer layout_buffer(Schedule& sch, BlockSid block, const InstructionCall& c) {
  const BlockNode& b = sch.block(block);
  bool write = c.attrs[1].as_int() != 0;
  const std::vector<BufferRegion>& regions = write ? b.writes : b.reads;
  int64_t index = c.attrs[0].as_int();
  TSCH_USER_ASSERT_ARG(index >= 0 && index < static_cast<int64_t>(regions.size()), ValueError, "buffer")
      << "the block has no " << (write ? "write" : "read") << " buffer " << index;
  return regions[static_cast<size_t>(index)].buffer;
}

}  // namespace

void register_transform_layout_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "SetAxisSeparator", "set_axis_separator",
      {input("block", ParamType::Block), attr("buffer", ParamType::LayoutBuffer),
       attr("axis_separators", ParamType::IntList)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        BlockSid block = sch.block_sid(c.inputs[0]);
        std::vector<int64_t> separators;
        for (const TraceArg& v : c.attrs[2].list) separators.push_back(v.as_int());
        set_axis_separator(sch.state(), block, layout_buffer(sch, block, c), separators);
      },
      "set_axis_separator(block, buffer, axis_separators): where the buffer's physical layout starts a new dimension "
      "(e.g. [1]: a 2-d physical buffer of rows); for memories addressed in more than one dimension.",
      "the buffer is a parameter or allocated by a block (not a match_buffer view); separators are non-decreasing axes",
      "B = T.alloc_buffer((128, 128))  ->  B = T.alloc_buffer((128, 128), axis_separators=[1])"));
  ParamSpec assume = attr("assume_injective_transform", ParamType::Bool, "False");
  assume.keyword_only = true;
  kinds.push_back(define_kind(
      "TransformLayout", "transform_layout",
      {input("block", ParamType::Block), attr("buffer", ParamType::LayoutBuffer),
       input("index_map", ParamType::IndexMap), attr("pad_value", ParamType::PadValue, "None"), assume},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        BlockSid block = sch.block_sid(c.inputs[0]);
        Buffer buffer = layout_buffer(sch, block, c);
        const TraceArg& map = c.inputs[1];
        TSCH_USER_ASSERT_ARG(map.kind == TraceArg::Kind::IndexMap, TypeError, "index_map") << "expected an index map";
        LayoutPadding padding;
        padding.assume_injective = c.attrs[3].as_bool();
        if (c.attrs[2].kind == TraceArg::Kind::IndexMap) {
          TSCH_USER_ASSERT_ARG(c.attrs[2].map_outputs.size() == 1, ValueError, "pad_value")
              << "expected a single value";
          padding.indices = c.attrs[2].map_params;
          padding.value = c.attrs[2].map_outputs[0];
        }
        transform_layout(sch.state(), block, buffer, map.map_params, map.map_outputs, padding);
      },
      "transform_layout(block, buffer, index_map, pad_value=None, *, assume_injective_transform=False): re-index a "
      "buffer, "
      "e.g. index_map=lambda i, j: (i // 16, j, i % 16); padding needs pad_value (a constant or a function of the new "
      "indices).",
      "the index map takes one index per buffer dimension and is a bijective affine map of the buffer's shape; "
      "a map that pads (lambda i: (i // 4, i % 4) on 14 elements) needs pad_value of the buffer's dtype (written by a "
      "block <producer>_pad_<buffer> after the one producer) or assume_injective_transform=True",
      "Y (128, 128), lambda i, j: (i // 16, j, i % 16)  ->  Y (8, 128, 16), Y[vi // 16, vj, vi % 16]"));
  kinds.push_back(define_kind(
      "TransformBlockLayout", "transform_block_layout",
      {input("block", ParamType::Block), attr("index_map", ParamType::IndexMap)}, OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        const TraceArg& map = c.attrs[0];
        TSCH_USER_ASSERT_ARG(map.kind == TraceArg::Kind::IndexMap, TypeError, "index_map") << "expected an index map";
        transform_block_layout(sch.state(), sch.block_sid(c.inputs[0]), map.map_params, map.map_outputs);
      },
      "transform_block_layout(block, index_map): re-index the block's iteration space, e.g. lambda i, j: (i * 128 + "
      "j,); "
      "its loops are rebuilt, one per output of the map.",
      "the block's loops start at 0, hold only it and bind its iterators in order; the map is a bijective affine map "
      "of "
      "its iterators whose outputs each combine iterators of one kind",
      "for i, j in T.grid(128, 128): vi, vj = i, j  ->  for ax0 in range(16384): v0 = ax0; ... [v0 // 128, v0 % 128]"));
}

}  // namespace tsch::schedule
