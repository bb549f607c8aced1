// Parse tree -> AST. Internal to src/syntax: the only place that reads ANTLR contexts.
// Statements are built in ast_builder.cc, expressions in ast_builder_expr.cc.
#pragma once

#include <memory>

#include "TschParser.h"
#include "syntax/ast.h"

namespace tsch {

class AstBuilder {
 public:
  explicit AstBuilder(const SourceFile* source) : source_(source) {}

  std::shared_ptr<ast::Module> build_file(tsgen::TschParser::File_inputContext* ctx);
  ast::ExprPtr build_eval(tsgen::TschParser::Eval_inputContext* ctx);

 private:
  using P = tsgen::TschParser;

  SourceLoc loc(antlr4::Token* token) const;
  SourceLoc loc(antlr4::tree::TerminalNode* node) const { return loc(node->getSymbol()); }
  SourceLoc loc(antlr4::ParserRuleContext* ctx) const { return loc(ctx->getStart()); }
  [[noreturn]] void fail(SourceLoc at, const std::string& message) const;
  // How deep fast_expr is: an expression nested deeper is a SyntaxError (CPython refuses
  // such input while compiling it).
  static constexpr int kMaxExprDepth = 100000;
  int expr_depth_ = 0;
  // The token type of a terminal child, 0 for rule contexts. typeid is much cheaper than
  // dynamic_cast here (the parse tree's only terminal class is TerminalNodeImpl).
  static size_t token_type(antlr4::tree::ParseTree* tree) {
    if (typeid(*tree) != typeid(antlr4::tree::TerminalNodeImpl)) return 0;
    return static_cast<antlr4::tree::TerminalNode*>(tree)->getSymbol()->getType();
  }

  // statements
  void add_stmt(P::StmtContext* ctx, ast::Body& out);
  void add_simple_stmts(P::Simple_stmtsContext* ctx, ast::Body& out);
  ast::StmtPtr simple_stmt(P::Simple_stmtContext* ctx);
  ast::StmtPtr expr_stmt(P::Expr_stmtContext* ctx);
  ast::StmtPtr compound_stmt(P::Compound_stmtContext* ctx);
  ast::StmtPtr if_stmt(P::If_stmtContext* ctx);
  ast::StmtPtr while_stmt(P::While_stmtContext* ctx);
  ast::StmtPtr for_stmt(P::For_stmtContext* ctx);
  ast::StmtPtr try_stmt(P::Try_stmtContext* ctx);
  ast::StmtPtr with_stmt(P::With_stmtContext* ctx);
  ast::StmtPtr funcdef(P::FuncdefContext* ctx);
  ast::StmtPtr classdef(P::ClassdefContext* ctx);
  ast::StmtPtr decorated(P::DecoratedContext* ctx);
  ast::StmtPtr import_name(P::Import_nameContext* ctx);
  ast::StmtPtr import_from(P::Import_fromContext* ctx);
  ast::Body suite(P::SuiteContext* ctx);

  // expressions
  ast::ExprPtr test(P::TestContext* ctx);
  ast::ExprPtr test_full(P::TestContext* ctx);
  ast::ExprPtr fast_expr(antlr4::ParserRuleContext* ctx);
  ast::ExprPtr test_nocond(P::Test_nocondContext* ctx);
  ast::ExprPtr logical(P::LogicalContext* ctx);
  ast::ExprPtr expr(P::ExprContext* ctx);
  ast::ExprPtr operator_expr(P::ExprContext* ctx);
  ast::ExprPtr atom_expr(P::Atom_exprContext* ctx);
  ast::ExprPtr atom(P::AtomContext* ctx);
  ast::ExprPtr star_expr(P::Star_exprContext* ctx);
  ast::ExprPtr lambda(antlr4::ParserRuleContext* ctx, P::Lambda_paramsContext* params, ast::ExprPtr body);
  ast::ExprPtr testlist(P::TestlistContext* ctx);
  ast::ExprPtr testlist_star_expr(P::Testlist_star_exprContext* ctx);
  ast::ExprPtr exprlist(P::ExprlistContext* ctx);
  ast::ExprPtr sequence(antlr4::ParserRuleContext* ctx, SourceLoc at, bool force_tuple);
  ast::ExprPtr element(antlr4::tree::ParseTree* child);
  ast::ExprPtr subscriptlist(P::SubscriptlistContext* ctx);
  ast::ExprPtr subscript(P::SubscriptContext* ctx);
  ast::ExprPtr strings(P::AtomContext* ctx);
  ast::ExprPtr number(antlr4::tree::TerminalNode* node);
  void arglist(P::ArglistContext* ctx, std::vector<ast::Arg>& out);
  void comprehension(P::Comp_forContext* ctx, std::vector<ast::Comprehension>& out);
  void params(P::Param_listContext* ctx, std::vector<ast::Param>& out);

  const SourceFile* source_;
  std::shared_ptr<ast::Module> module_;
  std::vector<ast::FunctionDef*> function_stack_;  // for global/nonlocal declarations
};

}  // namespace tsch
