// Relax operators (TVM's Op registry with FInferStructInfo and FPurity): each operator is
// named as TVM names it ("relax.call_tir") and says how the struct info of a call is derived
// from its arguments and whether it is pure. Calls are built through make_call, which infers
// (and checks) struct info, so every Call the front end or a pass creates is normalized.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relax/expr.h"

namespace tsch::relax {

struct OpInfo {
  std::string name;
  // The call's struct info; UserError (TypeError/ValueError) for wrong arguments.
  std::function<StructInfo(const CallNode& call)> infer;
  bool pure = true;
};

// The operator named `name` (with or without the "relax." prefix), or null.
const OpInfo* find_op(const std::string& name);

// A call of `op` (an Op, a GlobalVar, an ExternFunc or a Var of function struct info),
// with its struct info inferred.
Expr make_call(Expr op, std::vector<Expr> args, ir::AttrMap attrs = {}, std::vector<StructInfo> sinfo_args = {});
Expr make_op_call(const std::string& op_name, std::vector<Expr> args, ir::AttrMap attrs = {},
                  std::vector<StructInfo> sinfo_args = {});

// Whether a call has no side effect visible to the program (TVM's purity): pure ops, calls of
// pure functions; `R.call_packed` and impure functions are not.
bool is_pure_call(const CallNode& call);

// The op name of `e` when it is an Op node, else "".
std::string op_name_of(const Expr& e);

// The struct info a call of a function with signature `f` returns for `args`: the symbolic
// variables of the parameters are bound from the arguments (TVM's DeriveCallRetStructInfo).
StructInfo derive_call_ret_sinfo(const FuncSInfoNode& f, const std::vector<Expr>& args, const std::string& callee);

}  // namespace tsch::relax
