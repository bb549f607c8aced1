// How the interpreter finds a type's dunder methods (`__add__`, `__radd__`, `__iadd__`,
// `__eq__` ...) and calls them: shared by the generic operations (interpreter.cc) and the
// operators (operators.cc).
#pragma once

#include <string>
#include <vector>

#include "script/interpreter.h"
#include "syntax/ast.h"

namespace tsch::script {

const char* dunder_name(ast::BinOpKind op, bool reflected);
// `__iadd__` for `+=`, ...
std::string inplace_dunder_name(ast::BinOpKind op);
// None/bool/int/float, or an object of a built-in type (which takes the fast paths).
bool is_builtin_value(const Value& v);
// A dunder method from the value's type (not from instance attributes, as in Python).
bool type_method(const Value& v, const char* name, Value& out);
Value call_method(Interpreter& interp, const Value& self, const Value& method, std::vector<Value> args);
// The NotImplemented singleton a binary dunder returns to defer to the other operand.
bool is_not_implemented(const Value& v);

}  // namespace tsch::script
