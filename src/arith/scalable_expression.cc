// Expressions of T.vscale() (see scalable_expression.h).
#include "arith/scalable_expression.h"

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::arith {

using namespace ir;

namespace {

class VScaleSubstituter : public IRMutator {
 public:
  explicit VScaleSubstituter(int64_t value) : value_(value) {}
  PrimExpr mutate_Call(const CallNode& c, const PrimExpr& self) override {
    if (is_vscale_call(self)) return make_int(value_, c.dtype);
    return IRMutator::mutate_Call(c, self);
  }

 private:
  int64_t value_;
};

}  // namespace

bool is_vscale_call(const PrimExpr& e) {
  auto* c = as<CallNode>(e);
  return c && c->op == "vscale" && c->args.empty();
}

bool contains_vscale(const PrimExpr& e) {
  bool found = false;
  for_each_expr(e, [&](const PrimExpr& x) { found = found || is_vscale_call(x); });
  return found;
}

bool is_vscale_constant(const PrimExpr& e) {
  bool ok = true;
  for_each_expr(e, [&](const PrimExpr& x) {
    // Any other call (a load, an extern function) or a variable makes it depend on more.
    if (as<VarNode>(x) || as<BufferLoadNode>(x) || (as<CallNode>(x) && !is_vscale_call(x))) ok = false;
  });
  return ok;
}

PrimExpr substitute_vscale(const PrimExpr& e, int64_t value) { return VScaleSubstituter(value).mutate(e); }

bool can_prove_for_vscale_values(const PrimExpr& cond, const std::vector<int64_t>& values) {
  if (values.empty()) return false;
  for (int64_t v : values) {
    int64_t c = 0;
    if (!as_const_int(simplify(substitute_vscale(cond, v)), &c) || c == 0) return false;
  }
  return true;
}

}  // namespace tsch::arith
