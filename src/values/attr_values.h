// Attributes in scripts: script values to ir::AttrValue and back, and `tvm.ir.DictAttrs`
// (function and module attributes; printed as TVMScript spells them).
#pragma once

#include <string>

#include "ir/stmt.h"
#include "script/interpreter.h"

namespace tsch::bindings {

// bool/int/float/str/PrimExpr/list/tuple/dict to an attribute value; TypeError otherwise.
ir::AttrValue to_attr(script::Interpreter& interp, const script::Value& v);
// A dict with string keys to attributes; TypeError naming `what` otherwise.
ir::AttrMap to_attr_map(script::Interpreter& interp, const script::Value& v, const std::string& what);
script::Value attr_to_value(script::Interpreter& interp, const ir::AttrValue& a);
// The node or value of an attribute statement (T.attr, tvm.tir.AttrStmt): an expression, a
// string (a StringImm) or a number. TVM's node may be any object; tsch's are expressions.
ir::PrimExpr attr_stmt_operand(script::Interpreter& interp, const script::Value& v, const std::string& what);
// A read-only `tvm.ir.DictAttrs` over `attrs`.
script::Value wrap_attrs(ir::AttrMap attrs);

}  // namespace tsch::bindings
