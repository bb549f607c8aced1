// TVM's expression classes for script values: tvm.tir.expr.<Kind> per node kind, subclasses
// of PrimExpr with TVM's constructors and fields, and tvm.ir.Op (a Call's operator).
#pragma once

#include "ir/expr.h"
#include "script/object.h"

namespace tsch::bindings {

// The class of an expression of `kind` (Var's is var_type()).
script::TypeRef expr_kind_type(ir::ExprKind kind);
// Sets every class under its TVM name (Add, IntImm, Call, ...) in `ns`.
void install_expr_classes(script::Namespace& ns);
// Sets tvm.ir.Op (with Op.get) in `ns`.
void install_op_class(script::Namespace& ns);

}  // namespace tsch::bindings
