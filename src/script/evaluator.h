// The AST walker: evaluates expressions and executes statements in one scope. Internal to
// src/script; the Interpreter creates one Evaluator per module run and per function call.
#pragma once

#include <memory>
#include <vector>

#include "script/interpreter.h"

namespace tsch::script {

struct Scope {
  NamespaceRef locals;
  NamespaceRef globals;
  std::vector<NamespaceRef> enclosing;         // innermost first
  const ast::FunctionDef* function = nullptr;  // for global/nonlocal declarations
  bool is_module = false;
  bool is_class_body = false;
  bool echo = false;  // REPL: print the repr of expression statements
  std::shared_ptr<const ast::Module> owner;
  std::string qualname_prefix;  // "Outer." inside class bodies, "f.<locals>." in functions
};

enum class Flow { Normal, Break, Continue, Return };

struct Evaluator {
  Evaluator(Interpreter& i, Scope& s) : interp(i), scope(s) {}

  Interpreter& interp;
  Scope& scope;
  Value return_value;
  // TVMScript's operator table (the prim_func parser): a comparison of a number with an IR
  // expression builds it as written, `2 <= j` as LE(2, j), where Python reflects it to j >= 2;
  // `and`, `or`, `not`, chained comparisons and `x if c else y` over IR expressions build IR.
  // Outside TVMScript they ask the expression for its truth value, as Python does in TVM.
  bool tvmscript = false;

  Value eval(const ast::Expr& e);
  Flow exec(const ast::Stmt& s);
  Flow exec_body(const ast::Body& body);

  // expressions
  Value eval_inner(const ast::Expr& e);
  Value lookup(const ast::Name& n);
  Value eval_call(const ast::Call& c);
  void eval_args(const std::vector<ast::Arg>& args, CallArgs& out);
  Value eval_fstring(const ast::FString& f);
  Value eval_compare(const ast::Compare& c);
  Value eval_list_comp(const ast::ListComp& c);
  Value eval_dict_comp(const ast::DictComp& c);
  Value eval_set_comp(const ast::SetComp& c);
  Value eval_set_display(const ast::Set& d);
  Value eval_index(const ast::Expr& e);
  Value make_function(const std::string& name, const std::vector<ast::Param>& params, const ast::FunctionDef* def,
                      const ast::Lambda* lambda);
  std::vector<Value> eval_sequence(const std::vector<ast::ExprPtr>& elts);
  void run_comprehension(const std::vector<ast::Comprehension>& gens, size_t level, Evaluator& inner,
                         const std::function<void()>& emit);

  // statements
  void assign(const ast::Expr& target, const Value& value);
  void store_name(Symbol name, const Value& value);
  void delete_target(const ast::Expr& target);
  Flow exec_for(const ast::For& s);
  Flow exec_while(const ast::While& s);
  Flow exec_try(const ast::Try& s);
  Flow exec_with(const ast::With& s);
  void exec_def(const ast::FunctionDef& s);
  void exec_class(const ast::ClassDef& s);
  void init_subclass(const TypeRef& cls, CallArgs kwargs, SourceLoc loc);
  void exec_import(const ast::Import& s);
  void exec_import_from(const ast::ImportFrom& s);
  void exec_raise(const ast::Raise& s);
  std::string importer_dir() const;
};

// The exceptions being handled by enclosing `except` blocks, for bare `raise`.
std::vector<std::shared_ptr<ScriptError>>& handled_exceptions();

}  // namespace tsch::script
