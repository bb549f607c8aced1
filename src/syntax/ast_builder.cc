// Builds the AST from the ANTLR parse tree: the entry points and statements (expressions
// are in ast_builder_expr.cc). Each grammar rule has one method; the walk reads children in
// order because the grammar is factored (operators interleave operands).
#include "syntax/ast_builder.h"

#include "support/diagnostics.h"
#include "syntax/ast_common.h"

namespace tsch {

using namespace ast;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;
using tsgen::TschParser;

SourceLoc AstBuilder::loc(antlr4::Token* token) const {
  SourceLoc l;
  l.file = source_;
  l.line = static_cast<int>(token->getLine()) + source_->first_line() - 1;
  l.col = static_cast<int>(token->getCharPositionInLine()) + 1;
  l.len = code_points(token->getText());
  return l;
}

void AstBuilder::fail(SourceLoc at, const std::string& message) const { throw SyntaxError(at, message); }

// ------------------------------------------------------------------------- statements

std::shared_ptr<Module> AstBuilder::build_file(TschParser::File_inputContext* ctx) {
  module_ = std::make_shared<Module>();
  module_->source = source_;
  for (auto* child : ctx->children) {
    if (token_type(child) == 0) add_stmt(static_cast<TschParser::StmtContext*>(child), module_->body);
  }
  return module_;
}

ExprPtr AstBuilder::build_eval(TschParser::Eval_inputContext* ctx) { return testlist(ctx->testlist()); }

// Statement rules dispatch on their child's rule index: the generated accessors
// (`ctx->if_stmt()` ...) each dynamic_cast every child, and a chain of them per statement
// showed in parse profiles.
void AstBuilder::add_stmt(TschParser::StmtContext* ctx, Body& out) {
  auto* child = static_cast<antlr4::ParserRuleContext*>(ctx->children[0]);
  if (child->getRuleIndex() == TschParser::RuleSimple_stmts) {
    add_simple_stmts(static_cast<TschParser::Simple_stmtsContext*>(child), out);
  } else {
    out.push_back(compound_stmt(static_cast<TschParser::Compound_stmtContext*>(child)));
  }
}

void AstBuilder::add_simple_stmts(TschParser::Simple_stmtsContext* ctx, Body& out) {
  for (auto* child : ctx->children) {
    if (token_type(child) == 0) out.push_back(simple_stmt(static_cast<TschParser::Simple_stmtContext*>(child)));
  }
}

Body AstBuilder::suite(TschParser::SuiteContext* ctx) {
  Body body;
  for (auto* child : ctx->children) {
    if (token_type(child) != 0) continue;  // NEWLINE INDENT ... DEDENT
    auto* rule = static_cast<antlr4::ParserRuleContext*>(child);
    if (rule->getRuleIndex() == TschParser::RuleSimple_stmts) {
      add_simple_stmts(static_cast<TschParser::Simple_stmtsContext*>(rule), body);
    } else {
      add_stmt(static_cast<TschParser::StmtContext*>(rule), body);
    }
  }
  return body;
}

StmtPtr AstBuilder::simple_stmt(TschParser::Simple_stmtContext* ctx) {
  SourceLoc at = loc(ctx);
  switch (token_type(ctx->children[0])) {
    case TschParser::PASS:
      return std::make_unique<Simple>(StmtKind::Pass, at);
    case TschParser::BREAK:
      return std::make_unique<Simple>(StmtKind::Break, at);
    case TschParser::CONTINUE:
      return std::make_unique<Simple>(StmtKind::Continue, at);
    default:
      break;
  }
  auto* child = static_cast<antlr4::ParserRuleContext*>(ctx->children[0]);
  if (child->getRuleIndex() == TschParser::RuleExpr_stmt)
    return expr_stmt(static_cast<TschParser::Expr_stmtContext*>(child));
  if (auto* r = ctx->return_stmt()) {
    auto node = std::make_unique<Return>(at);
    if (r->testlist_star_expr()) node->value = testlist_star_expr(r->testlist_star_expr());
    return node;
  }
  if (auto* r = ctx->raise_stmt()) {
    auto node = std::make_unique<Raise>(at);
    auto tests = r->test();
    if (!tests.empty()) node->exc = test(tests[0]);
    if (tests.size() > 1) node->cause = test(tests[1]);
    return node;
  }
  if (auto* g = ctx->global_stmt()) {
    auto node = std::make_unique<NameList>(StmtKind::Global, at);
    for (auto* n : g->NAME()) node->names.push_back(intern(n->getText()));
    if (!function_stack_.empty()) {
      auto& names = function_stack_.back()->global_names;
      names.insert(names.end(), node->names.begin(), node->names.end());
    }
    return node;
  }
  if (auto* g = ctx->nonlocal_stmt()) {
    auto node = std::make_unique<NameList>(StmtKind::Nonlocal, at);
    for (auto* n : g->NAME()) node->names.push_back(intern(n->getText()));
    if (function_stack_.empty()) fail(at, "nonlocal declaration not allowed at module level");
    auto& names = function_stack_.back()->nonlocal_names;
    names.insert(names.end(), node->names.begin(), node->names.end());
    return node;
  }
  if (auto* d = ctx->del_stmt()) return make_delete(at, exprlist(d->exprlist()));
  if (ctx->import_name()) return import_name(ctx->import_name());
  if (ctx->import_from()) return import_from(ctx->import_from());
  if (auto* a = ctx->assert_stmt()) {
    auto node = std::make_unique<Assert>(at);
    node->test = test(a->test(0));
    if (a->test().size() > 1) node->msg = test(a->test(1));
    return node;
  }
  fail(at, "invalid syntax");
}

// Children: a target list, then an annassign, an augassign and its value, or `= list` pairs.
StmtPtr AstBuilder::expr_stmt(TschParser::Expr_stmtContext* ctx) {
  SourceLoc at = loc(ctx);
  const auto& kids = ctx->children;
  ExprPtr first = testlist_star_expr(static_cast<TschParser::Testlist_star_exprContext*>(kids[0]));
  if (kids.size() == 1) {
    if (first->kind == ExprKind::Starred) fail(first->loc, "can't use starred expression here");
    return std::make_unique<ExprStmt>(at, std::move(first));
  }
  bool single_target =
      first->kind == ExprKind::Name || first->kind == ExprKind::Attribute || first->kind == ExprKind::Subscript;
  if (token_type(kids[1]) == 0) {
    auto* rule = static_cast<antlr4::ParserRuleContext*>(kids[1]);
    if (rule->getRuleIndex() == TschParser::RuleAnnassign) {
      auto* ann = static_cast<TschParser::AnnassignContext*>(rule);
      if (!single_target) fail(first->loc, "only single target (not tuple) can be annotated");
      auto node = std::make_unique<AnnAssign>(at);
      node->target = std::move(first);
      node->annotation = test(ann->test());
      if (ann->testlist_star_expr()) node->value = testlist_star_expr(ann->testlist_star_expr());
      return node;
    }
    if (!single_target) fail(first->loc, "illegal expression for augmented assignment");
    auto* op_token = static_cast<TerminalNode*>(rule->children[0]);
    auto node = std::make_unique<AugAssign>(at, *binop_of(op_token->getSymbol()->getType()));
    node->op_loc = loc(op_token);
    node->target = std::move(first);
    node->value = testlist(static_cast<TschParser::TestlistContext*>(kids[2]));
    return node;
  }
  // first = t1 = ... = value: the lists sit at the even child indices.
  auto node = std::make_unique<Assign>(at);
  node->targets.push_back(std::move(first));
  for (size_t i = 2; i + 1 < kids.size(); i += 2) {
    node->targets.push_back(testlist_star_expr(static_cast<TschParser::Testlist_star_exprContext*>(kids[i])));
  }
  for (auto& t : node->targets) check_target(t.get(), true, "assign to");
  node->value = testlist_star_expr(static_cast<TschParser::Testlist_star_exprContext*>(kids.back()));
  return node;
}

StmtPtr AstBuilder::import_name(TschParser::Import_nameContext* ctx) {
  auto node = std::make_unique<Import>(loc(ctx));
  for (auto* item : ctx->dotted_as_name()) {
    Alias alias;
    alias.name = item->dotted_name()->getText();
    alias.loc = loc(item);
    alias.loc.len = code_points(alias.name);
    if (item->NAME()) {
      alias.has_asname = true;
      alias.asname = intern(item->NAME()->getText());
    }
    node->names.push_back(std::move(alias));
  }
  return node;
}

StmtPtr AstBuilder::import_from(TschParser::Import_fromContext* ctx) {
  auto node = std::make_unique<ImportFrom>(loc(ctx));
  node->level = static_cast<int>(ctx->DOT().size() + 3 * ctx->ELLIPSIS().size());
  if (ctx->dotted_name()) node->module = ctx->dotted_name()->getText();
  auto* targets = ctx->import_targets();
  if (targets->STAR()) {
    node->star = true;
  } else {
    for (auto* item : targets->import_as_name()) {
      Alias alias;
      alias.name = item->NAME(0)->getText();
      alias.loc = loc(item);
      if (item->NAME().size() > 1) {
        alias.has_asname = true;
        alias.asname = intern(item->NAME(1)->getText());
      }
      node->names.push_back(std::move(alias));
    }
  }
  return node;
}

StmtPtr AstBuilder::compound_stmt(TschParser::Compound_stmtContext* ctx) {
  auto* child = ctx->children[0];
  switch (static_cast<antlr4::ParserRuleContext*>(child)->getRuleIndex()) {
    case TschParser::RuleIf_stmt:
      return if_stmt(static_cast<TschParser::If_stmtContext*>(child));
    case TschParser::RuleWhile_stmt:
      return while_stmt(static_cast<TschParser::While_stmtContext*>(child));
    case TschParser::RuleFor_stmt:
      return for_stmt(static_cast<TschParser::For_stmtContext*>(child));
    case TschParser::RuleTry_stmt:
      return try_stmt(static_cast<TschParser::Try_stmtContext*>(child));
    case TschParser::RuleWith_stmt:
      return with_stmt(static_cast<TschParser::With_stmtContext*>(child));
    case TschParser::RuleFuncdef:
      return funcdef(static_cast<TschParser::FuncdefContext*>(child));
    case TschParser::RuleClassdef:
      return classdef(static_cast<TschParser::ClassdefContext*>(child));
    default:
      return decorated(static_cast<TschParser::DecoratedContext*>(child));
  }
}

StmtPtr AstBuilder::if_stmt(TschParser::If_stmtContext* ctx) {
  // if/elif chains become nested Ifs in orelse. Children alternate keyword, test, ':', suite.
  auto tests = ctx->test();
  auto suites = ctx->suite();
  std::unique_ptr<If> root;
  If* current = nullptr;
  for (size_t i = 0; i < tests.size(); ++i) {
    auto node = std::make_unique<If>(loc(i == 0 ? ctx->IF()->getSymbol() : ctx->ELIF(i - 1)->getSymbol()));
    node->test = test(tests[i]);
    node->body = suite(suites[i]);
    If* raw = node.get();
    if (!root)
      root = std::move(node);
    else
      current->orelse.push_back(std::move(node));
    current = raw;
  }
  if (suites.size() > tests.size()) current->orelse = suite(suites.back());
  return root;
}

StmtPtr AstBuilder::while_stmt(TschParser::While_stmtContext* ctx) {
  auto node = std::make_unique<While>(loc(ctx));
  node->test = test(ctx->test());
  node->body = suite(ctx->suite(0));
  if (ctx->suite().size() > 1) node->orelse = suite(ctx->suite(1));
  return node;
}

StmtPtr AstBuilder::for_stmt(TschParser::For_stmtContext* ctx) {
  auto node = std::make_unique<For>(loc(ctx));
  node->target = exprlist(ctx->exprlist());
  check_target(node->target.get(), true, "assign to");
  node->iter = testlist(ctx->testlist());
  node->body = suite(ctx->suite(0));
  if (ctx->suite().size() > 1) node->orelse = suite(ctx->suite(1));
  return node;
}

StmtPtr AstBuilder::try_stmt(TschParser::Try_stmtContext* ctx) {
  auto node = std::make_unique<Try>(loc(ctx));
  // Walk children: TRY ':' suite, then (except_clause ':' suite)*, [ELSE ':' suite], [FINALLY ':' suite].
  enum { kBody, kHandler, kElse, kFinally } next = kBody;
  ExceptHandler* handler = nullptr;
  for (auto* child : ctx->children) {
    if (auto* clause = dynamic_cast<TschParser::Except_clauseContext*>(child)) {
      ExceptHandler h;
      h.loc = loc(clause);
      if (clause->test()) h.type = test(clause->test());
      if (clause->NAME()) {
        h.has_name = true;
        h.name = intern(clause->NAME()->getText());
      }
      node->handlers.push_back(std::move(h));
      handler = &node->handlers.back();
      next = kHandler;
    } else if (token_type(child) == TschParser::ELSE) {
      next = kElse;
    } else if (token_type(child) == TschParser::FINALLY) {
      next = kFinally;
    } else if (auto* s = dynamic_cast<TschParser::SuiteContext*>(child)) {
      switch (next) {
        case kBody:
          node->body = suite(s);
          break;
        case kHandler:
          handler->body = suite(s);
          break;
        case kElse:
          node->orelse = suite(s);
          break;
        case kFinally:
          node->finalbody = suite(s);
          break;
      }
    }
  }
  for (size_t i = 0; i + 1 < node->handlers.size(); ++i) {
    if (!node->handlers[i].type) fail(node->handlers[i].loc, "default 'except:' must be last");
  }
  return node;
}

StmtPtr AstBuilder::with_stmt(TschParser::With_stmtContext* ctx) {
  auto node = std::make_unique<With>(loc(ctx));
  for (auto* item : ctx->with_item()) {
    WithItem w;
    w.context = test(item->test());
    if (item->expr()) {
      w.target = expr(item->expr());
      check_target(w.target.get(), true, "assign to");
    }
    node->items.push_back(std::move(w));
  }
  node->body = suite(ctx->suite());
  return node;
}

void AstBuilder::params(TschParser::Param_listContext* ctx, std::vector<Param>& out) {
  bool seen_default = false, seen_star = false, seen_kw = false;
  for (auto* p : ctx->param()) {
    Param param;
    param.loc = loc(p);
    if (seen_kw) fail(param.loc, "arguments cannot follow var-keyword argument");
    if (p->DIV()) {
      param.kind = Param::Kind::PosOnlyMarker;
    } else if (p->STAR()) {
      if (seen_star) fail(param.loc, "* argument may appear only once");
      seen_star = true;
      param.kind = p->NAME() ? Param::Kind::VarArgs : Param::Kind::KwOnlyMarker;
      if (p->NAME()) param.name = intern(p->NAME()->getText());
    } else if (p->POWER()) {
      seen_kw = true;
      param.kind = Param::Kind::VarKw;
      param.name = intern(p->NAME()->getText());
    } else {
      param.name = intern(p->NAME()->getText());
      if (p->ASSIGN()) {
        seen_default = true;
      } else if (seen_default && !seen_star) {
        fail(param.loc, "non-default argument follows default argument");
      }
    }
    if (p->ASSIGN()) param.default_value = test(p->test().back());
    if (p->COLON()) param.annotation = test(p->test(0));
    for (const auto& other : out) {
      if (other.name == param.name && param.name != 0 && other.kind != Param::Kind::KwOnlyMarker &&
          other.kind != Param::Kind::PosOnlyMarker) {
        fail(param.loc, "duplicate argument '" + symbol_name(param.name) + "' in function definition");
      }
    }
    out.push_back(std::move(param));
  }
}

StmtPtr AstBuilder::funcdef(TschParser::FuncdefContext* ctx) {
  auto node = std::make_unique<FunctionDef>(loc(ctx));
  node->name = intern(ctx->NAME()->getText());
  node->name_loc = loc(ctx->NAME());
  if (auto* list = ctx->parameters()->param_list()) params(list, node->params);
  if (ctx->test()) node->returns = test(ctx->test());
  function_stack_.push_back(node.get());
  node->body = suite(ctx->suite());
  function_stack_.pop_back();
  return node;
}

StmtPtr AstBuilder::classdef(TschParser::ClassdefContext* ctx) {
  auto node = std::make_unique<ClassDef>(loc(ctx));
  node->name = intern(ctx->NAME()->getText());
  if (ctx->arglist()) arglist(ctx->arglist(), node->bases);
  node->body = suite(ctx->suite());
  return node;
}

StmtPtr AstBuilder::decorated(TschParser::DecoratedContext* ctx) {
  std::vector<ExprPtr> decorators;
  for (auto* d : ctx->decorator()) decorators.push_back(test(d->test()));
  if (ctx->funcdef()) {
    auto node = funcdef(ctx->funcdef());
    static_cast<FunctionDef*>(node.get())->decorators = std::move(decorators);
    return node;
  }
  auto node = classdef(ctx->classdef());
  static_cast<ClassDef*>(node.get())->decorators = std::move(decorators);
  return node;
}

}  // namespace tsch
