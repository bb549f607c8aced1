// The expression half of the TensorIR printer: typed literals, operators by Python
// precedence, calls as TVM spells them, buffer accesses and regions, attribute values.
// tir_printer.cc's statement printer derives from it; it also keeps which buffer owns a data
// pointer or a stride / elem_offset variable, so those print through their buffer.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/module.h"
#include "ir/printer_base.h"

namespace tsch::ir {

class TIRExprPrinter {
 public:
  // Python operator precedence, higher binds tighter.
  enum Prec : int { kLambda = 0, kIfElse, kOr, kAnd, kNot, kCompare, kBitOr, kBitXor, kBitAnd, kShift, kAdd, kMul, kUnary, kPower, kAtom };
  struct Text {
    std::string s;
    int prec = kAtom;
  };

  explicit TIRExprPrinter(PrintContext& c) : c_(c) { c_.use(Dialect::TIR); }

  Text expr(const PrimExpr& e);
  std::string indices(const std::vector<PrimExpr>& idx);
  std::string region(const BufferRegion& r);
  std::string shape(const std::vector<PrimExpr>& dims);
  std::string attr_value(const AttrValue& v);
  std::string attr_map(const AttrMap& m);

  // Relax prints the integer literals of shapes plainly (`R.Tensor((1, n))`).
  bool plain_ints_ = false;

 protected:
  static std::string wrap(const Text& t, int min_prec);
  Text literal_int(int64_t v, DataType t);
  Text binary(const char* op, int prec, const PrimExpr& a, const PrimExpr& b, bool right_assoc_safe = false);
  Text call(const std::string& fn, const std::vector<PrimExpr>& args);

  std::string name_of(const VarNode* v) const { return c_.name_of(v, v->name); }
  std::string name_of(const BufferNode* b) const { return c_.name_of(b, b->name); }

  PrintContext& c_;
  // Data pointers and the buffer that owns them (parameters, allocations), for `data=A.data`.
  std::unordered_map<const VarNode*, const BufferNode*> data_owner_;
  // Variables a buffer declaration defined, spelled through it (`A.elem_offset`, `A.strides[0]`).
  std::unordered_map<const VarNode*, std::pair<const BufferNode*, std::string>> field_owner_;
};

}  // namespace tsch::ir
