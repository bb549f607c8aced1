// Builds the AST from the ANTLR parse tree. Each grammar rule has one method; the walk reads
// children in order because the grammar is factored (operators interleave operands).
#include "syntax/ast_builder.h"

#include "support/diagnostics.h"
#include "syntax/ast_common.h"

namespace tsch {

using namespace ast;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;
using tsgen::TschParser;

namespace {

// The token type of a terminal child, 0 for rule contexts. typeid is much cheaper than
// dynamic_cast here (the parse tree's only terminal class is TerminalNodeImpl).
size_t token_type(ParseTree* tree) {
  if (typeid(*tree) != typeid(antlr4::tree::TerminalNodeImpl)) return 0;
  return static_cast<TerminalNode*>(tree)->getSymbol()->getType();
}

}  // namespace

SourceLoc AstBuilder::loc(antlr4::Token* token) const {
  SourceLoc l;
  l.file = source_;
  l.line = static_cast<int>(token->getLine()) + source_->first_line() - 1;
  l.col = static_cast<int>(token->getCharPositionInLine()) + 1;
  l.len = code_points(token->getText());
  return l;
}

void AstBuilder::fail(SourceLoc at, const std::string& message) const {
  throw SyntaxError(at, message);
}

// ------------------------------------------------------------------------- statements

std::shared_ptr<Module> AstBuilder::build_file(TschParser::File_inputContext* ctx) {
  module_ = std::make_shared<Module>();
  module_->source = source_;
  for (auto* stmt : ctx->stmt()) add_stmt(stmt, module_->body);
  return module_;
}

ExprPtr AstBuilder::build_eval(TschParser::Eval_inputContext* ctx) {
  return testlist(ctx->testlist());
}

void AstBuilder::add_stmt(TschParser::StmtContext* ctx, Body& out) {
  if (ctx->simple_stmts()) {
    add_simple_stmts(ctx->simple_stmts(), out);
  } else {
    out.push_back(compound_stmt(ctx->compound_stmt()));
  }
}

void AstBuilder::add_simple_stmts(TschParser::Simple_stmtsContext* ctx, Body& out) {
  for (auto* s : ctx->simple_stmt()) out.push_back(simple_stmt(s));
}

Body AstBuilder::suite(TschParser::SuiteContext* ctx) {
  Body body;
  if (ctx->simple_stmts()) {
    add_simple_stmts(ctx->simple_stmts(), body);
  } else {
    for (auto* s : ctx->stmt()) add_stmt(s, body);
  }
  return body;
}

StmtPtr AstBuilder::simple_stmt(TschParser::Simple_stmtContext* ctx) {
  SourceLoc at = loc(ctx);
  if (ctx->expr_stmt()) return expr_stmt(ctx->expr_stmt());
  if (ctx->PASS()) return std::make_unique<Simple>(StmtKind::Pass, at);
  if (ctx->BREAK()) return std::make_unique<Simple>(StmtKind::Break, at);
  if (ctx->CONTINUE()) return std::make_unique<Simple>(StmtKind::Continue, at);
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


StmtPtr AstBuilder::expr_stmt(TschParser::Expr_stmtContext* ctx) {
  SourceLoc at = loc(ctx);
  auto lists = ctx->testlist_star_expr();
  ExprPtr first = testlist_star_expr(lists[0]);
  if (auto* ann = ctx->annassign()) {
    if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute &&
        first->kind != ExprKind::Subscript) {
      fail(first->loc, "only single target (not tuple) can be annotated");
    }
    auto node = std::make_unique<AnnAssign>(at);
    node->target = std::move(first);
    node->annotation = test(ann->test());
    if (ann->testlist_star_expr()) node->value = testlist_star_expr(ann->testlist_star_expr());
    return node;
  }
  if (auto* aug = ctx->augassign()) {
    if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute &&
        first->kind != ExprKind::Subscript) {
      fail(first->loc, "illegal expression for augmented assignment");
    }
    auto* op_token = dynamic_cast<TerminalNode*>(aug->children[0]);
    auto node = std::make_unique<AugAssign>(at, *binop_of(op_token->getSymbol()->getType()));
    node->op_loc = loc(op_token);
    node->target = std::move(first);
    node->value = testlist(ctx->testlist());
    return node;
  }
  if (lists.size() == 1) {
    if (first->kind == ExprKind::Starred) fail(first->loc, "can't use starred expression here");
    return std::make_unique<ExprStmt>(at, std::move(first));
  }
  auto node = std::make_unique<Assign>(at);
  node->targets.push_back(std::move(first));
  for (size_t i = 1; i + 1 < lists.size(); ++i) node->targets.push_back(testlist_star_expr(lists[i]));
  for (auto& t : node->targets) check_target(t.get(), true, "assign to");
  node->value = testlist_star_expr(lists.back());
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
  if (ctx->if_stmt()) return if_stmt(ctx->if_stmt());
  if (ctx->while_stmt()) return while_stmt(ctx->while_stmt());
  if (ctx->for_stmt()) return for_stmt(ctx->for_stmt());
  if (ctx->try_stmt()) return try_stmt(ctx->try_stmt());
  if (ctx->with_stmt()) return with_stmt(ctx->with_stmt());
  if (ctx->funcdef()) return funcdef(ctx->funcdef());
  if (ctx->classdef()) return classdef(ctx->classdef());
  return decorated(ctx->decorated());
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
    if (!root) root = std::move(node);
    else current->orelse.push_back(std::move(node));
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
        case kBody: node->body = suite(s); break;
        case kHandler: handler->body = suite(s); break;
        case kElse: node->orelse = suite(s); break;
        case kFinally: node->finalbody = suite(s); break;
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

// ------------------------------------------------------------------------- expressions

// Expression rules form a long chain (test -> or_test -> ... -> atom). Most nodes have one
// child, which is always the next rule's context, so descending by rule index avoids the
// dynamic_casts of ANTLR's generated accessors (they dominated parse time).
ExprPtr AstBuilder::fast_expr(antlr4::ParserRuleContext* ctx) {
  while (ctx->children.size() == 1 && ctx->getRuleIndex() != TschParser::RuleAtom) {
    ctx = static_cast<antlr4::ParserRuleContext*>(ctx->children[0]);
  }
  switch (ctx->getRuleIndex()) {
    case TschParser::RuleTest: return test_full(static_cast<TschParser::TestContext*>(ctx));
    case TschParser::RuleTest_nocond: return test_nocond(static_cast<TschParser::Test_nocondContext*>(ctx));
    case TschParser::RuleLambdef: {
      auto* l = static_cast<TschParser::LambdefContext*>(ctx);
      return lambda(l, l->lambda_params(), test(l->test()));
    }
    case TschParser::RuleLambdef_nocond: {
      auto* l = static_cast<TschParser::Lambdef_nocondContext*>(ctx);
      return lambda(l, l->lambda_params(), test_nocond(l->test_nocond()));
    }
    case TschParser::RuleLogical: return logical(static_cast<TschParser::LogicalContext*>(ctx));
    case TschParser::RuleExpr: return operator_expr(static_cast<TschParser::ExprContext*>(ctx));
    case TschParser::RuleAtom_expr: return atom_expr(static_cast<TschParser::Atom_exprContext*>(ctx));
    case TschParser::RuleAtom: return atom(static_cast<TschParser::AtomContext*>(ctx));
    case TschParser::RuleStar_expr: return star_expr(static_cast<TschParser::Star_exprContext*>(ctx));
    default:
      internal_fail(__FILE__, __LINE__, "unexpected rule in expression");
  }
}

ExprPtr AstBuilder::test(TschParser::TestContext* ctx) { return fast_expr(ctx); }

ExprPtr AstBuilder::test_full(TschParser::TestContext* ctx) {
  if (auto* l = ctx->lambdef()) return lambda(l, l->lambda_params(), test(l->test()));
  auto parts = ctx->logical();
  if (parts.size() == 1) return fast_expr(parts[0]);
  auto node = std::make_unique<IfExp>(loc(ctx->IF()));
  node->body = fast_expr(parts[0]);
  node->test = fast_expr(parts[1]);
  node->orelse = test(ctx->test());
  return node;
}

ExprPtr AstBuilder::test_nocond(TschParser::Test_nocondContext* ctx) {
  if (auto* l = ctx->lambdef_nocond()) {
    return lambda(l, l->lambda_params(), test_nocond(l->test_nocond()));
  }
  return fast_expr(ctx->logical());
}

ExprPtr AstBuilder::lambda(antlr4::ParserRuleContext* ctx, TschParser::Lambda_paramsContext* list,
                           ExprPtr body) {
  auto node = std::make_unique<Lambda>(loc(ctx));
  if (list) {
    bool seen_default = false;
    for (auto* p : list->lambda_param()) {
      Param param;
      param.loc = loc(p);
      if (p->STAR()) {
        param.kind = p->NAME() ? Param::Kind::VarArgs : Param::Kind::KwOnlyMarker;
      } else if (p->POWER()) {
        param.kind = Param::Kind::VarKw;
      }
      if (p->NAME()) param.name = intern(p->NAME()->getText());
      if (p->test()) {
        param.default_value = test(p->test());
        seen_default = true;
      } else if (seen_default && param.kind == Param::Kind::Normal) {
        fail(param.loc, "non-default argument follows default argument");
      }
      node->params.push_back(std::move(param));
    }
  }
  node->body = std::move(body);
  return node;
}

// A `logical` node: `not x`, `a and b`, `a or b`, or a comparison. Comparisons and boolean
// operators parse left-nested; chains are flattened as Python's AST has them.
ExprPtr AstBuilder::logical(TschParser::LogicalContext* ctx) {
  if (ctx->children.size() == 2) {
    auto* op = static_cast<TerminalNode*>(ctx->children[0]);
    return std::make_unique<UnaryOp>(loc(op), UnaryOpKind::Not,
                                     fast_expr(static_cast<antlr4::ParserRuleContext*>(ctx->children[1])));
  }
  size_t type = token_type(ctx->children[1]);
  if (type == TschParser::AND || type == TschParser::OR) {
    bool is_and = type == TschParser::AND;
    ExprPtr left = fast_expr(static_cast<antlr4::ParserRuleContext*>(ctx->children[0]));
    ExprPtr right = fast_expr(static_cast<antlr4::ParserRuleContext*>(ctx->children[2]));
    return make_bool_op(is_and, loc(static_cast<TerminalNode*>(ctx->children[1])), std::move(left), std::move(right));
  }
  // A comparison chain: collect operands and operators from the left-nested tree.
  std::vector<TschParser::Comp_opContext*> ops;
  std::vector<antlr4::ParserRuleContext*> operands;
  antlr4::ParserRuleContext* cur = ctx;
  while (cur->getRuleIndex() == TschParser::RuleLogical && cur->children.size() == 3 &&
         token_type(cur->children[1]) == 0) {
    ops.push_back(static_cast<TschParser::Comp_opContext*>(cur->children[1]));
    operands.push_back(static_cast<antlr4::ParserRuleContext*>(cur->children[2]));
    cur = static_cast<antlr4::ParserRuleContext*>(cur->children[0]);
  }
  auto node = std::make_unique<Compare>(loc(ops.back()));
  node->left = fast_expr(cur);
  for (size_t k = ops.size(); k-- > 0;) {
    auto* op = ops[k];
    bool two = op->children.size() > 1;
    node->ops.push_back(cmp_op_of(token_type(op->children[0]), two));
    SourceLoc op_loc = loc(op);
    op_loc.len = code_points(op->getText()) + (two ? 1 : 0);
    node->op_locs.push_back(op_loc);
    node->comparators.push_back(fast_expr(operands[k]));
  }
  return node;
}

ExprPtr AstBuilder::expr(TschParser::ExprContext* ctx) { return fast_expr(ctx); }

// An `expr` node: a unary operator and its operand, or a binary operator between two
// operands (ANTLR's precedence climbing already nested them correctly).
ExprPtr AstBuilder::operator_expr(TschParser::ExprContext* ctx) {
  if (ctx->children.size() == 2) {
    auto* op = static_cast<TerminalNode*>(ctx->children[0]);
    ExprPtr value = fast_expr(static_cast<antlr4::ParserRuleContext*>(ctx->children[1]));
    return make_unary(op->getSymbol()->getType(), loc(op), std::move(value));
  }
  ExprPtr left = fast_expr(static_cast<antlr4::ParserRuleContext*>(ctx->children[0]));
  auto* op = static_cast<TerminalNode*>(ctx->children[1]);
  ExprPtr right = fast_expr(static_cast<antlr4::ParserRuleContext*>(ctx->children[2]));
  return std::make_unique<BinOp>(loc(op), *binop_of(op->getSymbol()->getType()), std::move(left), std::move(right));
}

ExprPtr AstBuilder::atom_expr(TschParser::Atom_exprContext* ctx) {
  // children: atom trailer*; a trailer is `. NAME`, `( arglist? )` or `[ subscriptlist ]`,
  // told apart by its first token (cheaper than the generated accessors' dynamic_casts).
  ExprPtr value = atom(static_cast<TschParser::AtomContext*>(ctx->children[0]));
  for (size_t i = 1; i < ctx->children.size(); ++i) {
    auto* trailer = static_cast<TschParser::TrailerContext*>(ctx->children[i]);
    auto* first = static_cast<TerminalNode*>(trailer->children[0]);
    switch (first->getSymbol()->getType()) {
      case TschParser::DOT: {
        auto* name = static_cast<TerminalNode*>(trailer->children[1]);
        value = std::make_unique<Attribute>(loc(name), std::move(value), intern(name->getText()));
        break;
      }
      case TschParser::OPEN_PAREN: {
        auto call = std::make_unique<Call>(value->loc);
        call->func = std::move(value);
        if (trailer->children.size() == 3) arglist(static_cast<TschParser::ArglistContext*>(trailer->children[1]), call->args);
        value = std::move(call);
        break;
      }
      default: {
        auto sub = std::make_unique<Subscript>(loc(first));
        sub->value = std::move(value);
        sub->index = subscriptlist(static_cast<TschParser::SubscriptlistContext*>(trailer->children[1]));
        value = std::move(sub);
      }
    }
  }
  return value;
}

void AstBuilder::arglist(TschParser::ArglistContext* ctx, std::vector<Arg>& out) {
  bool seen_keyword = false;
  auto arguments = ctx->argument();
  for (auto* a : arguments) {
    Arg arg;
    arg.loc = loc(a);
    if (a->ASSIGN()) {
      arg.kind = Arg::Kind::Keyword;
      arg.name = intern(a->NAME()->getText());
      seen_keyword = true;
      for (const auto& other : out) {
        if (other.kind == Arg::Kind::Keyword && other.name == arg.name) {
          fail(arg.loc, "keyword argument repeated: " + symbol_name(arg.name));
        }
      }
    } else if (a->POWER()) {
      arg.kind = Arg::Kind::DoubleStar;
      seen_keyword = true;
    } else if (a->STAR()) {
      arg.kind = Arg::Kind::Star;
    } else if (seen_keyword) {
      fail(arg.loc, "positional argument follows keyword argument");
    }
    if (a->comp_for()) {
      if (arguments.size() != 1) fail(arg.loc, "generator expression must be parenthesized");
      auto comp = std::make_unique<ListComp>(arg.loc);
      comp->elt = test(a->test());
      comprehension(a->comp_for(), comp->generators);
      arg.value = std::move(comp);
    } else {
      arg.value = test(a->test());
    }
    out.push_back(std::move(arg));
  }
}

void AstBuilder::comprehension(TschParser::Comp_forContext* ctx, std::vector<Comprehension>& out) {
  Comprehension gen;
  gen.target = exprlist(ctx->exprlist());
  check_target(gen.target.get(), true, "assign to");
  gen.iter = fast_expr(ctx->logical());
  out.push_back(std::move(gen));
  for (auto* iter = ctx->comp_iter(); iter != nullptr;) {
    if (auto* f = iter->comp_for()) {
      comprehension(f, out);
      return;
    }
    auto* cond = iter->comp_if();
    out.back().ifs.push_back(test_nocond(cond->test_nocond()));
    iter = cond->comp_iter();
  }
}

ExprPtr AstBuilder::star_expr(TschParser::Star_exprContext* ctx) {
  return std::make_unique<Starred>(loc(ctx->STAR()), expr(ctx->expr()));
}

ExprPtr AstBuilder::element(ParseTree* child) {
  // Elements of test/expr lists are rule contexts (commas are skipped by the callers).
  return fast_expr(static_cast<antlr4::ParserRuleContext*>(child));
}

// `a, b, c` lists: one element without a trailing comma is the element itself.
ExprPtr AstBuilder::sequence(antlr4::ParserRuleContext* ctx, SourceLoc at, bool force_tuple) {
  std::vector<ExprPtr> elts;
  bool trailing_comma = false;
  for (auto* child : ctx->children) {
    if (token_type(child) == TschParser::COMMA) {
      trailing_comma = true;
      continue;
    }
    trailing_comma = false;
    elts.push_back(element(child));
  }
  bool has_comma = ctx->children.size() > 1;
  if (elts.size() == 1 && !has_comma && !force_tuple) return std::move(elts[0]);
  (void)trailing_comma;
  auto tuple = std::make_unique<Tuple>(at);
  tuple->elts = std::move(elts);
  return tuple;
}

ExprPtr AstBuilder::testlist(TschParser::TestlistContext* ctx) { return sequence(ctx, loc(ctx), false); }
ExprPtr AstBuilder::testlist_star_expr(TschParser::Testlist_star_exprContext* ctx) {
  return sequence(ctx, loc(ctx), false);
}
ExprPtr AstBuilder::exprlist(TschParser::ExprlistContext* ctx) { return sequence(ctx, loc(ctx), false); }

ExprPtr AstBuilder::subscriptlist(TschParser::SubscriptlistContext* ctx) {
  auto subs = ctx->subscript();
  if (subs.size() == 1 && ctx->COMMA().empty()) return subscript(subs[0]);
  auto tuple = std::make_unique<Tuple>(loc(ctx));
  for (auto* s : subs) tuple->elts.push_back(subscript(s));
  return tuple;
}

ExprPtr AstBuilder::subscript(TschParser::SubscriptContext* ctx) {
  if (ctx->COLON().empty()) return test(ctx->test(0));
  auto slice = std::make_unique<Slice>(loc(ctx));
  // Children: [lower] ':' [upper] [':' [step]]
  int part = 0;
  for (auto* child : ctx->children) {
    if (token_type(child) == TschParser::COLON) {
      ++part;
      continue;
    }
    ExprPtr value = test(dynamic_cast<TschParser::TestContext*>(child));
    if (part == 0) slice->lower = std::move(value);
    else if (part == 1) slice->upper = std::move(value);
    else slice->step = std::move(value);
  }
  return slice;
}

ExprPtr AstBuilder::number(TerminalNode* node) { return number_literal(node->getText(), loc(node)); }

ExprPtr AstBuilder::strings(TschParser::AtomContext* ctx) {
  std::vector<StringPiece> pieces;
  for (auto* node : ctx->STRING()) pieces.push_back(StringPiece{node->getText(), loc(node)});
  return string_literal(pieces, loc(ctx));
}


ExprPtr AstBuilder::atom(TschParser::AtomContext* ctx) {
  SourceLoc at = loc(ctx);
  // The common single-token atoms, by the first token's type.
  size_t first = ctx->getStart()->getType();
  if (first == TschParser::NAME) return std::make_unique<Name>(at, intern(ctx->getStart()->getText()));
  if (first == TschParser::NUMBER) return number(static_cast<TerminalNode*>(ctx->children[0]));
  if (!ctx->STRING().empty()) return strings(ctx);
  if (ctx->NONE() || ctx->TRUE() || ctx->FALSE() || ctx->ELLIPSIS()) {
    auto c = std::make_unique<Constant>(at);
    if (ctx->NONE()) c->type = Constant::Type::None;
    else if (ctx->ELLIPSIS()) c->type = Constant::Type::Ellipsis;
    else {
      c->type = Constant::Type::Bool;
      c->bool_value = ctx->TRUE() != nullptr;
    }
    return c;
  }
  if (ctx->OPEN_PAREN()) {
    auto* comp = ctx->testlist_comp();
    if (!comp) {
      auto t = std::make_unique<Tuple>(at);
      t->parenthesized = true;
      return t;
    }
    if (comp->comp_for()) {
      // A generator expression evaluates eagerly to a list-like iterable here.
      auto lc = std::make_unique<ListComp>(at);
      lc->elt = element(comp->children[0]);
      comprehension(comp->comp_for(), lc->generators);
      return lc;
    }
    ExprPtr inner = sequence(comp, at, false);
    if (inner->kind == ExprKind::Tuple) static_cast<Tuple*>(inner.get())->parenthesized = true;
    else if (inner->kind == ExprKind::Starred) fail(inner->loc, "can't use starred expression here");
    return inner;
  }
  if (ctx->OPEN_BRACK()) {
    auto* comp = ctx->testlist_comp();
    if (comp && comp->comp_for()) {
      auto lc = std::make_unique<ListComp>(at);
      lc->elt = element(comp->children[0]);
      comprehension(comp->comp_for(), lc->generators);
      return lc;
    }
    auto list = std::make_unique<List>(at);
    if (comp) {
      for (auto* child : comp->children) {
        if (token_type(child) != TschParser::COMMA) list->elts.push_back(element(child));
      }
    }
    return list;
  }
  // Braces: dict display, dict comprehension; sets are not supported yet.
  auto* maker = ctx->dictorsetmaker();
  auto dict = std::make_unique<Dict>(at);
  if (!maker) return dict;
  if (maker->dict_item().empty()) fail(at, "not supported yet: set displays");
  if (maker->comp_for()) {
    auto* item = maker->dict_item(0);
    if (item->POWER()) fail(loc(item), "dict unpacking cannot be used in dict comprehension");
    auto dc = std::make_unique<DictComp>(at);
    dc->key = test(item->test(0));
    dc->value = test(item->test(1));
    comprehension(maker->comp_for(), dc->generators);
    return dc;
  }
  for (auto* item : maker->dict_item()) {
    if (item->POWER()) {
      dict->keys.push_back(nullptr);
      dict->values.push_back(expr(item->expr()));
    } else {
      dict->keys.push_back(test(item->test(0)));
      dict->values.push_back(test(item->test(1)));
    }
  }
  return dict;
}

}  // namespace tsch
