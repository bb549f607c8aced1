#include "script/dispatch.h"

namespace tsch::script {

const char* dunder_name(ast::BinOpKind op, bool reflected) {
  using K = ast::BinOpKind;
  switch (op) {
    case K::Add:
      return reflected ? "__radd__" : "__add__";
    case K::Sub:
      return reflected ? "__rsub__" : "__sub__";
    case K::Mul:
      return reflected ? "__rmul__" : "__mul__";
    case K::MatMul:
      return reflected ? "__rmatmul__" : "__matmul__";
    case K::Div:
      return reflected ? "__rtruediv__" : "__truediv__";
    case K::FloorDiv:
      return reflected ? "__rfloordiv__" : "__floordiv__";
    case K::Mod:
      return reflected ? "__rmod__" : "__mod__";
    case K::Pow:
      return reflected ? "__rpow__" : "__pow__";
    case K::LShift:
      return reflected ? "__rlshift__" : "__lshift__";
    case K::RShift:
      return reflected ? "__rrshift__" : "__rshift__";
    case K::BitOr:
      return reflected ? "__ror__" : "__or__";
    case K::BitXor:
      return reflected ? "__rxor__" : "__xor__";
    case K::BitAnd:
      return reflected ? "__rand__" : "__and__";
  }
  return "";
}

// `__iadd__` for `+=`, ...: "__i" + the name without its leading "__".
std::string inplace_dunder_name(ast::BinOpKind op) {
  std::string name = dunder_name(op, false);
  return name.size() > 2 ? "__i" + name.substr(2) : std::string();
}

bool is_builtin_value(const Value& v) { return !v.is_object() || v.type()->is_builtin; }

// A dunder method from the value's type (not from instance attributes, as in Python).
// Plain numbers have none here (the interpreter computes them); NumPy scalars do.
bool type_method(const Value& v, const char* name, Value& out) {
  if (!v.is_object() && !v.is_numpy_scalar()) return false;
  Value* m = v.type()->lookup(intern(name));
  if (!m) return false;
  out = *m;
  return true;
}

Value call_method(Interpreter& interp, const Value& self, const Value& method, std::vector<Value> args) {
  args.insert(args.begin(), self);
  return interp.call(method, std::move(args));
}

}  // namespace tsch::script
