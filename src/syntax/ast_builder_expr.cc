// Builds the AST from the ANTLR parse tree: expressions, argument lists, comprehensions,
// subscripts and displays.
#include "support/diagnostics.h"
#include "support/stack_guard.h"
#include "syntax/ast_builder.h"
#include "syntax/ast_common.h"

namespace tsch {

using namespace ast;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;
using tsgen::TschParser;

// Expression rules form a long chain (test -> or_test -> ... -> atom). Most nodes have one
// child, which is always the next rule's context, so descending by rule index avoids the
// dynamic_casts of ANTLR's generated accessors (they dominated parse time).
ExprPtr AstBuilder::fast_expr(antlr4::ParserRuleContext* ctx) {
  // A left-nested chain (a sum of millions of terms) parses without recursion but nests its
  // contexts; the AST it would make is as deep, and every pass over it recurses.
  struct Depth {
    int& d;
    explicit Depth(int& d) : d(d) { ++d; }
    ~Depth() { --d; }
  } depth(expr_depth_);
  if (expr_depth_ > kMaxExprDepth || stack_nearly_exhausted(1u << 20))
    throw SyntaxError(loc(ctx),
                      "too deeply nested expression (more than " + std::to_string(kMaxExprDepth) + " levels)");
  while (ctx->children.size() == 1 && ctx->getRuleIndex() != TschParser::RuleAtom) {
    ctx = static_cast<antlr4::ParserRuleContext*>(ctx->children[0]);
  }
  switch (ctx->getRuleIndex()) {
    case TschParser::RuleTest:
      return test_full(static_cast<TschParser::TestContext*>(ctx));
    case TschParser::RuleTest_nocond:
      return test_nocond(static_cast<TschParser::Test_nocondContext*>(ctx));
    case TschParser::RuleLambdef: {
      auto* l = static_cast<TschParser::LambdefContext*>(ctx);
      return lambda(l, l->lambda_params(), test(l->test()));
    }
    case TschParser::RuleLambdef_nocond: {
      auto* l = static_cast<TschParser::Lambdef_nocondContext*>(ctx);
      return lambda(l, l->lambda_params(), test_nocond(l->test_nocond()));
    }
    case TschParser::RuleLogical:
      return logical(static_cast<TschParser::LogicalContext*>(ctx));
    case TschParser::RuleExpr:
      return operator_expr(static_cast<TschParser::ExprContext*>(ctx));
    case TschParser::RuleAtom_expr:
      return atom_expr(static_cast<TschParser::Atom_exprContext*>(ctx));
    case TschParser::RuleAtom:
      return atom(static_cast<TschParser::AtomContext*>(ctx));
    case TschParser::RuleStar_expr:
      return star_expr(static_cast<TschParser::Star_exprContext*>(ctx));
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

ExprPtr AstBuilder::lambda(antlr4::ParserRuleContext* ctx, TschParser::Lambda_paramsContext* list, ExprPtr body) {
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
        if (trailer->children.size() == 3)
          arglist(static_cast<TschParser::ArglistContext*>(trailer->children[1]), call->args);
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

// An argument's children: `test comp_for?`, `NAME = test`, `** test` or `* test`.
void AstBuilder::arglist(TschParser::ArglistContext* ctx, std::vector<Arg>& out) {
  bool seen_keyword = false;
  size_t count = 0;
  for (auto* child : ctx->children) count += token_type(child) == 0;
  for (auto* child : ctx->children) {
    if (token_type(child) == TschParser::COMMA) continue;
    auto* a = static_cast<TschParser::ArgumentContext*>(child);
    const auto& kids = a->children;
    Arg arg;
    arg.loc = loc(a);
    size_t lead = token_type(kids[0]);
    if (kids.size() == 3) {
      arg.kind = Arg::Kind::Keyword;
      arg.name = intern(kids[0]->getText());
      seen_keyword = true;
      for (const auto& other : out) {
        if (other.kind == Arg::Kind::Keyword && other.name == arg.name) {
          fail(arg.loc, "keyword argument repeated: " + symbol_name(arg.name));
        }
      }
    } else if (lead == TschParser::POWER) {
      arg.kind = Arg::Kind::DoubleStar;
      seen_keyword = true;
    } else if (lead == TschParser::STAR) {
      arg.kind = Arg::Kind::Star;
    } else if (seen_keyword) {
      fail(arg.loc, "positional argument follows keyword argument");
    }
    auto* value = static_cast<TschParser::TestContext*>(kids[kids.size() == 3 ? 2 : lead != 0 ? 1 : 0]);
    if (lead == 0 && kids.size() == 2) {
      // `f(x for x in y)`: a generator argument must be the only one.
      if (count != 1) fail(arg.loc, "generator expression must be parenthesized");
      auto comp = std::make_unique<ListComp>(arg.loc);
      comp->elt = test(value);
      comprehension(static_cast<TschParser::Comp_forContext*>(kids[1]), comp->generators);
      arg.value = std::move(comp);
    } else {
      arg.value = test(value);
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
  const auto& kids = ctx->children;
  if (kids.size() == 1) return subscript(static_cast<TschParser::SubscriptContext*>(kids[0]));
  auto tuple = std::make_unique<Tuple>(loc(ctx));
  for (auto* child : kids) {
    if (token_type(child) == 0) tuple->elts.push_back(subscript(static_cast<TschParser::SubscriptContext*>(child)));
  }
  return tuple;
}

// Children: a test, or a slice `[lower] ':' [upper] [':' [step]]`.
ExprPtr AstBuilder::subscript(TschParser::SubscriptContext* ctx) {
  const auto& kids = ctx->children;
  if (kids.size() == 1 && token_type(kids[0]) == 0) return test(static_cast<TschParser::TestContext*>(kids[0]));
  auto slice = std::make_unique<Slice>(loc(ctx));
  int part = 0;
  for (auto* child : kids) {
    if (token_type(child) == TschParser::COLON) {
      ++part;
      continue;
    }
    ExprPtr value = test(static_cast<TschParser::TestContext*>(child));
    if (part == 0)
      slice->lower = std::move(value);
    else if (part == 1)
      slice->upper = std::move(value);
    else
      slice->step = std::move(value);
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
    if (ctx->NONE())
      c->type = Constant::Type::None;
    else if (ctx->ELLIPSIS())
      c->type = Constant::Type::Ellipsis;
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
    if (inner->kind == ExprKind::Tuple)
      static_cast<Tuple*>(inner.get())->parenthesized = true;
    else if (inner->kind == ExprKind::Starred)
      fail(inner->loc, "can't use starred expression here");
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
  // Braces: dict or set display, dict or set comprehension; `{}` is an empty dict.
  auto* maker = ctx->dictorsetmaker();
  auto dict = std::make_unique<Dict>(at);
  if (!maker) return dict;
  if (maker->dict_item().empty()) {
    if (maker->comp_for()) {
      auto sc = std::make_unique<SetComp>(at);
      sc->elt = element(maker->children[0]);
      if (sc->elt->kind == ExprKind::Starred) fail(sc->elt->loc, "iterable unpacking cannot be used in comprehension");
      comprehension(maker->comp_for(), sc->generators);
      return sc;
    }
    auto set = std::make_unique<Set>(at);
    for (auto* child : maker->children) {
      if (token_type(child) != TschParser::COMMA) set->elts.push_back(element(child));
    }
    return set;
  }
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
