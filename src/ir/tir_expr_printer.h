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
  enum Prec : int {
    kLambda = 0,
    kIfElse,
    kOr,
    kAnd,
    kNot,
    kCompare,
    kBitOr,
    kBitXor,
    kBitAnd,
    kShift,
    kAdd,
    kMul,
    kUnary,
    kPower,
    kAtom
  };
  struct Text {
    std::string s;
    int prec = kAtom;
  };

  explicit TIRExprPrinter(PrintContext& c) : c_(c) { c_.use(Dialect::TIR); }
  virtual ~TIRExprPrinter() = default;

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

  // A variable's or buffer's name. Printing a statement alone (free_decls_ set), one that
  // nothing printed so far defines is declared first, as TVM's printer does for free
  // variables and buffers (`i = T.int32()`, `A = T.Buffer((16,))` above the statement).
  std::string name_of(const VarNode* v) {
    if (free_decls_ && !c_.is_defined(v)) declare_free_var(v);
    return c_.name_of(v, v->name);
  }
  std::string name_of(const BufferNode* b) {
    if (free_decls_ && !c_.is_defined(b)) declare_free_buffer(b);
    return c_.name_of(b, b->name);
  }
  void declare_free_var(const VarNode* v);
  virtual void declare_free_buffer(const BufferNode*) {}

  PrintContext& c_;
  // The declarations of free variables and buffers, in order of first use (null: not
  // printing a statement alone).
  std::vector<std::string>* free_decls_ = nullptr;
  // Data pointers and the buffer that owns them (parameters, allocations), for `data=A.data`.
  std::unordered_map<const VarNode*, const BufferNode*> data_owner_;
  // Variables a buffer declaration defined, spelled through it (`A.elem_offset`, `A.strides[0]`).
  std::unordered_map<const VarNode*, std::pair<const BufferNode*, std::string>> field_owner_;
};

}  // namespace tsch::ir
