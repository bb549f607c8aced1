// TVM's buffer layout queries (buffer_layout.h), written from src/tir/ir/buffer.cc's behaviour.
#include "arith/buffer_layout.h"

#include <fmt/format.h>

#include <list>
#include <utility>

#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/op.h"
#include "support/error.h"

namespace tsch::arith {

namespace {

using ir::PrimExpr;

// What TVM's ICHECKs refuse: an IRError, raised in scripts as tvm.error.InternalError.
[[noreturn]] void throw_refusal(const std::string& message) { throw ir::IRError(ir::IRError::Kind::Value, message); }

// TVM's BufferNode::DefaultIndexType: the first extent's type, int32 for a 0-d buffer.
ir::DataType default_index_type(const ir::Buffer& b) {
  return b->shape.empty() ? ir::DataType::int32() : b->shape[0]->dtype;
}

PrimExpr elem_offset_of(const ir::Buffer& b) {
  return b->elem_offset ? b->elem_offset : ir::make_int(0, default_index_type(b));
}

// Analyzer::CanProveEqual as TVM's analyzer answers it for a fresh analyzer.
bool can_prove_equal(const PrimExpr& a, const PrimExpr& b) {
  int64_t x, y;
  if (ir::as_const_int(a, &x) && ir::as_const_int(b, &y)) return x == y;
  return ir::is_zero(simplify(ir::sub(a, b)));
}

// The leaves of a tree of additions, left to right.
void split_addition(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (auto* add = ir::as<ir::AddNode>(e)) {
    split_addition(add->a, out);
    split_addition(add->b, out);
  } else {
    out->push_back(e);
  }
}

struct MulModTerms {
  std::list<PrimExpr> mults;                      // terms that are products
  std::list<std::pair<PrimExpr, PrimExpr>> mods;  // floormod(a, b) terms as (a, b)
  PrimExpr rest;                                  // the sum of the others
  bool has_mult = false, has_mod = false;         // what the last insert added

  void insert(const std::vector<PrimExpr>& terms) {
    has_mult = has_mod = false;
    for (const PrimExpr& t : terms) {
      if (auto* mod = ir::as<ir::FloorModNode>(t)) {
        has_mod = true;
        mods.emplace_back(mod->a, mod->b);
      } else if (ir::as<ir::MulNode>(t)) {
        has_mult = true;
        mults.push_back(t);
      } else {
        rest = rest ? ir::add(rest, t) : t;
      }
    }
  }
};

// Whether `mult` is `(s1 + ... + sj + c // K * k1 * ... * k(t-1)) * kt * ... * ki` with
// K = k1 * ... * ki written the same way as `mod_b`, and `c` congruent to `mod_a` modulo K:
// then `mult + mod_a % mod_b` is `(s1 + ... + sj) * kt * ... * ki + c`, returned; else null.
// As TVM, the factors are matched as written, not searched through every grouping.
PrimExpr merge_mul_mod_pair(const PrimExpr& mult, const PrimExpr& mod_a, const PrimExpr& mod_b) {
  auto* m = ir::as<ir::MulNode>(mult);
  if (!m) return nullptr;
  PrimExpr outer = m->b;
  PrimExpr inner = m->a;
  while (auto* im = ir::as<ir::MulNode>(inner)) {
    outer = ir::mul(im->b, outer);
    inner = im->a;
  }
  PrimExpr inner_factor, summands;
  for (PrimExpr search = inner;;) {
    if (auto* div = ir::as<ir::FloorDivNode>(search)) {
      PrimExpr overall = inner_factor ? ir::mul(inner_factor, outer) : outer;
      if (!ir::expr_deep_equal(overall, div->b) || !ir::expr_deep_equal(overall, mod_b) ||
          !can_prove_equal(ir::floormod(ir::sub(div->a, mod_a), mod_b), ir::make_int(0))) {
        return nullptr;
      }
      return summands ? ir::add(ir::mul(summands, outer), div->a) : div->a;
    }
    if (auto* mul = ir::as<ir::MulNode>(search)) {
      inner_factor = inner_factor ? ir::mul(mul->b, inner_factor) : mul->b;
      search = mul->a;
    } else if (auto* add = ir::as<ir::AddNode>(search)) {
      if (inner_factor) return nullptr;  // (a + b) * k: the sum is not a plain summand
      summands = summands ? ir::add(summands, add->a) : add->a;
      search = add->b;
    } else {
      return nullptr;
    }
  }
}

// TVM's MergeMulMod: pairs each `x % K` term of a flattened index with a product holding
// `x // K * K`, merging them back into `x`, until no pair merges. The simplifier alone does
// not see these when K's factors are spread over nested products.
PrimExpr merge_mul_mod(const PrimExpr& base) {
  PrimExpr simplified = base;
  // x // y * y + x % y, the pattern the loop below would find first.
  if (auto* add = ir::as<ir::AddNode>(base)) {
    auto* mul = ir::as<ir::MulNode>(add->a);
    auto* div = mul ? ir::as<ir::FloorDivNode>(mul->a) : nullptr;
    auto* mod = ir::as<ir::FloorModNode>(add->b);
    if (div && mod && ir::expr_deep_equal(div->a, mod->a) && ir::expr_deep_equal(div->b, mul->b) &&
        ir::expr_deep_equal(div->b, mod->b)) {
      simplified = div->a;
    }
  }
  simplified = simplify(simplified);
  MulModTerms terms;
  std::vector<PrimExpr> leaves;
  split_addition(simplified, &leaves);
  terms.insert(leaves);
  bool merged_any = false;
  auto mod_it = terms.mods.begin();
  while (mod_it != terms.mods.end()) {
    bool merged = false;
    for (auto mult_it = terms.mults.begin(); mult_it != terms.mults.end(); ++mult_it) {
      PrimExpr merged_expr = merge_mul_mod_pair(*mult_it, mod_it->first, mod_it->second);
      if (!merged_expr) continue;
      merged = true;
      mod_it = terms.mods.erase(mod_it);
      terms.mults.erase(mult_it);
      std::vector<PrimExpr> more;
      split_addition(merged_expr, &more);
      terms.insert(more);
      // A new product may pair with any remainder; a new remainder alone is tried in turn.
      if (terms.has_mult) {
        mod_it = terms.mods.begin();
      } else if (terms.has_mod && mod_it == terms.mods.end()) {
        --mod_it;
      }
      break;
    }
    merged_any = merged_any || merged;
    if (!merged) ++mod_it;
  }
  if (!merged_any) return simplified;
  PrimExpr out = terms.rest;
  for (const PrimExpr& t : terms.mults) out = out ? ir::add(out, t) : t;
  for (const auto& [a, b] : terms.mods) out = out ? ir::add(out, ir::floormod(a, b)) : ir::floormod(a, b);
  return out;
}

}  // namespace

std::vector<PrimExpr> buffer_elem_offset(const ir::Buffer& b, const std::vector<PrimExpr>& indices) {
  if (b->shape.size() != indices.size()) {
    throw_refusal(
        fmt::format("Buffer {} is {}-dimensional, cannot be indexed with the {}-dimensional indices provided.", b->name,
                    b->shape.size(), indices.size()));
  }
  if (!b->strides.empty() && b->strides.size() != indices.size()) {
    throw_refusal(
        "If strides are defined, the index's dimensionality must match the dimensionality of the index given.");
  }
  // As TVM, an element offset is only defined for a buffer flattened to one axis.
  bool has_offset = b->elem_offset && !ir::is_zero(b->elem_offset);
  if (has_offset && !b->axis_separators.empty()) {
    throw_refusal("If element offsets are defined, there must be one element offset for each output index.");
  }
  std::vector<PrimExpr> out(b->axis_separators.size() + 1, ir::make_int(0));
  size_t axis = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (axis < b->axis_separators.size() && static_cast<int64_t>(i) == b->axis_separators[axis]) ++axis;
    PrimExpr index = b->strides.empty() ? ir::add(ir::mul(out[axis], b->shape[i]), indices[i])
                                        : ir::add(out[axis], ir::mul(indices[i], b->strides[i]));
    out[axis] = i > 0 ? merge_mul_mod(index) : index;
  }
  if (has_offset) out[0] = ir::add(out[0], b->elem_offset);
  for (PrimExpr& e : out) e = simplify(e);
  return out;
}

ir::Buffer flattened_buffer(const ir::Buffer& b) {
  // TVM's ValidateAxisSeparators (decl_buffer already refuses these; a buffer built otherwise
  // may not have).
  const auto& seps = b->axis_separators;
  for (size_t i = 0; i + 1 < seps.size(); ++i) {
    if (seps[i] > seps[i + 1]) {
      throw UserError(
          UserErrorKind::ValueError,
          fmt::format("Axis separators must be in increasing order, but axis_separators[{}] = {} is greater than or "
                      "equal to axis_separators[{}] = {}.",
                      i, seps[i], i + 1, seps[i + 1]));
    }
  }
  if (!seps.empty() && seps[0] < 0) {
    throw UserError(
        UserErrorKind::ValueError,
        fmt::format("All axis separators must be non-negative.  However, the axis_separators[0] = {}", seps[0]));
  }
  if (!seps.empty() && seps.back() > static_cast<int64_t>(b->shape.size())) {
    throw UserError(
        UserErrorKind::ValueError,
        fmt::format("All axis separators must be within the range 0 <= sep <= buffer_dim.  However, the last "
                    "axis_separators[{}] = {} is greater than the buffer's dimensionality of {}",
                    seps.size() - 1, seps.back(), b->shape.size()));
  }
  std::vector<PrimExpr> shape;
  if (!b->strides.empty()) {
    if (b->strides.size() != b->shape.size()) {
      throw_refusal(
          fmt::format("buffer {} has {} strides for {} dimensions", b->name, b->strides.size(), b->shape.size()));
    }
    // Each physical axis spans stride * extent of the first logical axis in it.
    shape.push_back(ir::mul(b->strides[0], b->shape[0]));
    for (int64_t sep : seps) shape.push_back(ir::mul(b->strides[sep], b->shape[sep]));
  } else {
    // The product of each group's extents; a 0-d buffer becomes [1].
    shape.assign(seps.size() + 1, ir::make_int(1));
    size_t axis = 0;
    for (size_t i = 0; i < b->shape.size(); ++i) {
      if (axis < seps.size() && static_cast<int64_t>(i) == seps[axis]) ++axis;
      shape[axis] = ir::mul(shape[axis], b->shape[i]);
    }
  }
  if (shape.size() == b->shape.size() && b->strides.empty()) return b;
  auto flat = std::make_shared<ir::BufferNode>(*b);  // same data, name and offset
  flat->shape = std::move(shape);
  flat->strides.clear();
  flat->axis_separators.clear();
  for (size_t i = 0; i < seps.size(); ++i) flat->axis_separators.push_back(static_cast<int64_t>(i + 1));
  return flat;
}

PrimExpr buffer_access_ptr(const ir::Buffer& b, int64_t mask, ir::DataType ptr_type, int content_lanes,
                           const PrimExpr& offset, const std::optional<PrimExpr>& extent) {
  PrimExpr size;
  if (b->shape.empty()) {
    size = ir::make_int(1, default_index_type(b));
  } else if (b->strides.size() == b->shape.size()) {
    // As TVM: the outermost axis's stride times its extent.
    size = ir::sub(ir::mul(b->strides[0], b->shape[0]), offset);
  } else {
    PrimExpr product = ir::make_int(1);
    for (const PrimExpr& d : b->shape) product = ir::mul(product, d);
    size = ir::sub(product, offset);
  }
  PrimExpr base = elem_offset_of(b);
  PrimExpr start = ir::add(base, offset);
  ir::DataType content = b->dtype;
  if (content_lanes > 1) {
    content = b->dtype.with_lanes(content_lanes);
    PrimExpr lanes = ir::make_int(content_lanes, base->dtype);
    size = ir::div(size, lanes);
    // As TVM's: the start counts vectors from the buffer's own offset; `offset` is not added.
    start = ir::div(base, lanes);
  }
  if (extent) size = *extent;
  PrimExpr annotation = ir::call(content, "type_annotation", {});
  return ir::call(ptr_type, "tvm_access_ptr", {annotation, PrimExpr(b->data), start, size, ir::make_int(mask)});
}

}  // namespace tsch::arith
