// Recursive descent over grammar/TschParser.g4, one method per rule (same names), building
// the AST exactly as ast_builder.cc does. Every deviation from the grammar, and every check
// the builder makes, ends in GiveUp: the caller then runs the ANTLR parser, which reports
// the error in its own words. Lists decide whether to continue after a comma by one token
// of lookahead; the grammar's follow sets never overlap the start sets, so that matches
// ANTLR's prediction.
#include "syntax/fast_parser.h"

#include "TschLexer.h"
#include "support/diagnostics.h"
#include "syntax/ast_common.h"

namespace tsch {
namespace {

using namespace ast;
using L = tsgen::TschLexer;

constexpr size_t kEof = antlr4::Token::EOF;

struct GiveUp {};

struct Tok {
  size_t type;
  int line;  // in file coordinates
  int col;   // 1-based
  std::string text;
};

bool starts_expr(size_t t) {
  switch (t) {
    case L::NAME: case L::NUMBER: case L::STRING: case L::OPEN_PAREN: case L::OPEN_BRACK:
    case L::OPEN_BRACE: case L::ELLIPSIS: case L::NONE: case L::TRUE: case L::FALSE:
    case L::ADD: case L::MINUS: case L::NOT_OP:
      return true;
    default:
      return false;
  }
}
bool starts_test(size_t t) { return starts_expr(t) || t == L::NOT || t == L::LAMBDA; }
bool starts_test_or_star(size_t t) { return starts_test(t) || t == L::STAR; }
bool starts_expr_or_star(size_t t) { return starts_expr(t) || t == L::STAR; }

bool is_augassign(size_t t) {
  switch (t) {
    case L::ADD_ASSIGN: case L::SUB_ASSIGN: case L::MULT_ASSIGN: case L::AT_ASSIGN: case L::DIV_ASSIGN:
    case L::MOD_ASSIGN: case L::AND_ASSIGN: case L::OR_ASSIGN: case L::XOR_ASSIGN: case L::LEFT_SHIFT_ASSIGN:
    case L::RIGHT_SHIFT_ASSIGN: case L::POWER_ASSIGN: case L::IDIV_ASSIGN:
      return true;
    default:
      return false;
  }
}

// Binding strength of binary operators in `expr`; 0 for anything else. kUnary is where
// prefix + - ~ sit: tighter than *, looser than ** on their right.
constexpr int kUnary = 7;
constexpr int kPower = 8;
int binary_level(size_t t) {
  switch (t) {
    case L::OR_OP: return 1;
    case L::XOR: return 2;
    case L::AND_OP: return 3;
    case L::LEFT_SHIFT: case L::RIGHT_SHIFT: return 4;
    case L::ADD: case L::MINUS: return 5;
    case L::STAR: case L::AT: case L::DIV: case L::MOD: case L::IDIV: return 6;
    case L::POWER: return kPower;
    default: return 0;
  }
}

bool is_single_target(const Expr& e) {
  return e.kind == ExprKind::Name || e.kind == ExprKind::Attribute || e.kind == ExprKind::Subscript;
}

class Parser {
 public:
  Parser(const SourceFile* source, const std::vector<std::unique_ptr<antlr4::Token>>& tokens) : source_(source) {
    int shift = source->first_line() - 1;
    toks_.reserve(tokens.size());
    for (const auto& t : tokens) {
      toks_.push_back(Tok{t->getType(), static_cast<int>(t->getLine()) + shift,
                          static_cast<int>(t->getCharPositionInLine()) + 1, t->getText()});
    }
    if (toks_.empty() || toks_.back().type != kEof) throw GiveUp{};
  }

  std::shared_ptr<Module> file_input() {
    auto module = std::make_shared<Module>();
    module->source = source_;
    while (type() != kEof) {
      if (accept(L::NEWLINE)) continue;
      stmt(module->body);
    }
    return module;
  }

  ExprPtr eval_input() {
    ExprPtr e = testlist();
    while (accept(L::NEWLINE)) {
    }
    expect(kEof);
    return e;
  }

 private:
  // ---------------------------------------------------------------- tokens
  size_t type(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)].type; }
  const Tok& cur() const { return toks_[pos_]; }
  const Tok& take() {
    if (toks_[pos_].type == kEof) throw GiveUp{};
    return toks_[pos_++];
  }
  bool accept(size_t t) {
    if (type() != t) return false;
    if (t != kEof) ++pos_;
    return true;
  }
  const Tok& expect(size_t t) {
    if (type() != t) throw GiveUp{};
    const Tok& tok = toks_[pos_];
    if (t != kEof) ++pos_;
    return tok;
  }
  SourceLoc loc(const Tok& t) const { return SourceLoc{source_, t.line, t.col, code_points(t.text)}; }

  // ---------------------------------------------------------------- statements
  void stmt(Body& out) {
    switch (type()) {
      case L::IF: out.push_back(if_stmt()); return;
      case L::WHILE: out.push_back(while_stmt()); return;
      case L::FOR: out.push_back(for_stmt()); return;
      case L::TRY: out.push_back(try_stmt()); return;
      case L::WITH: out.push_back(with_stmt()); return;
      case L::DEF: out.push_back(funcdef()); return;
      case L::CLASS: out.push_back(classdef()); return;
      case L::AT: out.push_back(decorated()); return;
      default: simple_stmts(out);
    }
  }

  void simple_stmts(Body& out) {
    out.push_back(simple_stmt());
    while (accept(L::SEMI_COLON)) {
      if (type() == L::NEWLINE) break;
      out.push_back(simple_stmt());
    }
    expect(L::NEWLINE);
  }

  Body suite() {
    Body body;
    if (!accept(L::NEWLINE)) {
      simple_stmts(body);
      return body;
    }
    expect(L::INDENT);
    do {
      stmt(body);
    } while (type() != L::DEDENT);
    expect(L::DEDENT);
    return body;
  }

  StmtPtr simple_stmt() {
    const Tok& first = cur();
    SourceLoc at = loc(first);
    switch (first.type) {
      case L::PASS: ++pos_; return std::make_unique<Simple>(StmtKind::Pass, at);
      case L::BREAK: ++pos_; return std::make_unique<Simple>(StmtKind::Break, at);
      case L::CONTINUE: ++pos_; return std::make_unique<Simple>(StmtKind::Continue, at);
      case L::RETURN: {
        ++pos_;
        auto node = std::make_unique<Return>(at);
        if (starts_test_or_star(type())) node->value = testlist_star_expr();
        return node;
      }
      case L::RAISE: {
        ++pos_;
        auto node = std::make_unique<Raise>(at);
        if (starts_test(type())) {
          node->exc = test();
          if (accept(L::FROM)) node->cause = test();
        }
        return node;
      }
      case L::GLOBAL:
      case L::NONLOCAL: {
        bool global = first.type == L::GLOBAL;
        ++pos_;
        auto node = std::make_unique<NameList>(global ? StmtKind::Global : StmtKind::Nonlocal, at);
        do {
          node->names.push_back(intern(expect(L::NAME).text));
        } while (accept(L::COMMA));
        if (function_stack_.empty()) {
          if (!global) throw GiveUp{};
        } else {
          auto& names = global ? function_stack_.back()->global_names : function_stack_.back()->nonlocal_names;
          names.insert(names.end(), node->names.begin(), node->names.end());
        }
        return node;
      }
      case L::DEL:
        ++pos_;
        return make_delete(at, exprlist());
      case L::IMPORT: return import_name();
      case L::FROM: return import_from();
      case L::ASSERT: {
        ++pos_;
        auto node = std::make_unique<Assert>(at);
        node->test = test();
        if (accept(L::COMMA)) node->msg = test();
        return node;
      }
      default: return expr_stmt();
    }
  }

  StmtPtr expr_stmt() {
    SourceLoc at = loc(cur());
    ExprPtr first = testlist_star_expr();
    size_t t = type();
    if (t == L::COLON) {
      ++pos_;
      if (!is_single_target(*first)) throw GiveUp{};
      auto node = std::make_unique<AnnAssign>(at);
      node->target = std::move(first);
      node->annotation = test();
      if (accept(L::ASSIGN)) node->value = testlist_star_expr();
      return node;
    }
    if (is_augassign(t)) {
      const Tok& op = take();
      if (!is_single_target(*first)) throw GiveUp{};
      auto node = std::make_unique<AugAssign>(at, *binop_of(t));
      node->op_loc = loc(op);
      node->target = std::move(first);
      node->value = testlist();
      return node;
    }
    if (t != L::ASSIGN) {
      if (first->kind == ExprKind::Starred) throw GiveUp{};
      return std::make_unique<ExprStmt>(at, std::move(first));
    }
    std::vector<ExprPtr> parts;
    parts.push_back(std::move(first));
    while (accept(L::ASSIGN)) parts.push_back(testlist_star_expr());
    auto node = std::make_unique<Assign>(at);
    node->value = std::move(parts.back());
    parts.pop_back();
    node->targets = std::move(parts);
    for (auto& target : node->targets) check_target(target.get(), true, "assign to");
    return node;
  }

  std::string dotted_name() {
    std::string name = expect(L::NAME).text;
    while (accept(L::DOT)) name += "." + expect(L::NAME).text;
    return name;
  }

  StmtPtr import_name() {
    auto node = std::make_unique<Import>(loc(take()));
    do {
      Alias alias;
      alias.loc = loc(cur());
      alias.name = dotted_name();
      alias.loc.len = code_points(alias.name);
      if (accept(L::AS)) {
        alias.has_asname = true;
        alias.asname = intern(expect(L::NAME).text);
      }
      node->names.push_back(std::move(alias));
    } while (accept(L::COMMA));
    return node;
  }

  StmtPtr import_from() {
    auto node = std::make_unique<ImportFrom>(loc(take()));
    for (; type() == L::DOT || type() == L::ELLIPSIS; ++pos_) node->level += type() == L::DOT ? 1 : 3;
    if (type() == L::NAME) {
      node->module = dotted_name();
    } else if (node->level == 0) {
      throw GiveUp{};
    }
    expect(L::IMPORT);
    if (accept(L::STAR)) {
      node->star = true;
      return node;
    }
    bool parenthesized = accept(L::OPEN_PAREN);
    auto import_as_name = [&] {
      Alias alias;
      const Tok& name = expect(L::NAME);
      alias.name = name.text;
      alias.loc = loc(name);
      if (accept(L::AS)) {
        alias.has_asname = true;
        alias.asname = intern(expect(L::NAME).text);
      }
      node->names.push_back(std::move(alias));
    };
    import_as_name();
    while (accept(L::COMMA)) {
      if (parenthesized && type() == L::CLOSE_PAREN) break;
      import_as_name();
    }
    if (parenthesized) expect(L::CLOSE_PAREN);
    return node;
  }

  StmtPtr if_stmt() {
    std::unique_ptr<If> root;
    If* current = nullptr;
    do {
      auto node = std::make_unique<If>(loc(take()));  // IF or ELIF
      node->test = test();
      expect(L::COLON);
      node->body = suite();
      If* raw = node.get();
      if (!root) root = std::move(node);
      else current->orelse.push_back(std::move(node));
      current = raw;
    } while (type() == L::ELIF);
    if (accept(L::ELSE)) {
      expect(L::COLON);
      current->orelse = suite();
    }
    return root;
  }

  // `ELSE COLON suite` of while/for/try.
  bool else_suite(Body& out) {
    if (!accept(L::ELSE)) return false;
    expect(L::COLON);
    out = suite();
    return true;
  }

  StmtPtr while_stmt() {
    auto node = std::make_unique<While>(loc(take()));
    node->test = test();
    expect(L::COLON);
    node->body = suite();
    else_suite(node->orelse);
    return node;
  }

  StmtPtr for_stmt() {
    auto node = std::make_unique<For>(loc(take()));
    node->target = exprlist();
    check_target(node->target.get(), true, "assign to");
    expect(L::IN);
    node->iter = testlist();
    expect(L::COLON);
    node->body = suite();
    else_suite(node->orelse);
    return node;
  }

  StmtPtr try_stmt() {
    auto node = std::make_unique<Try>(loc(take()));
    expect(L::COLON);
    node->body = suite();
    if (type() != L::FINALLY) {
      if (type() != L::EXCEPT) throw GiveUp{};
      while (type() == L::EXCEPT) {
        ExceptHandler h;
        h.loc = loc(take());
        if (starts_test(type())) {
          h.type = test();
          if (accept(L::AS)) {
            h.has_name = true;
            h.name = intern(expect(L::NAME).text);
          }
        }
        expect(L::COLON);
        h.body = suite();
        node->handlers.push_back(std::move(h));
      }
      else_suite(node->orelse);
    }
    if (accept(L::FINALLY)) {
      expect(L::COLON);
      node->finalbody = suite();
    }
    for (size_t i = 0; i + 1 < node->handlers.size(); ++i) {
      if (!node->handlers[i].type) throw GiveUp{};  // default 'except:' must be last
    }
    return node;
  }

  StmtPtr with_stmt() {
    auto node = std::make_unique<With>(loc(take()));
    do {
      WithItem w;
      w.context = test();
      if (accept(L::AS)) {
        w.target = expr();
        check_target(w.target.get(), true, "assign to");
      }
      node->items.push_back(std::move(w));
    } while (accept(L::COMMA));
    expect(L::COLON);
    node->body = suite();
    return node;
  }

  void param_list(std::vector<Param>& out) {
    bool seen_default = false, seen_star = false, seen_kw = false;
    do {
      if (type() == L::CLOSE_PAREN) break;  // trailing comma
      if (seen_kw) throw GiveUp{};
      Param param;
      param.loc = loc(cur());
      if (accept(L::DIV)) {
        param.kind = Param::Kind::PosOnlyMarker;
      } else if (accept(L::STAR)) {
        if (seen_star) throw GiveUp{};
        seen_star = true;
        param.kind = Param::Kind::KwOnlyMarker;
        if (type() == L::NAME) {
          param.kind = Param::Kind::VarArgs;
          param.name = intern(take().text);
          if (accept(L::COLON)) param.annotation = test();
        }
      } else if (accept(L::POWER)) {
        seen_kw = true;
        param.kind = Param::Kind::VarKw;
        param.name = intern(expect(L::NAME).text);
        if (accept(L::COLON)) param.annotation = test();
      } else {
        param.name = intern(expect(L::NAME).text);
        if (accept(L::COLON)) param.annotation = test();
        if (accept(L::ASSIGN)) {
          param.default_value = test();
          seen_default = true;
        } else if (seen_default && !seen_star) {
          throw GiveUp{};
        }
      }
      for (const auto& other : out) {
        if (other.name == param.name && param.name != 0 && other.kind != Param::Kind::KwOnlyMarker &&
            other.kind != Param::Kind::PosOnlyMarker) {
          throw GiveUp{};
        }
      }
      out.push_back(std::move(param));
    } while (accept(L::COMMA));
  }

  StmtPtr funcdef() {
    auto node = std::make_unique<FunctionDef>(loc(take()));
    const Tok& name = expect(L::NAME);
    node->name = intern(name.text);
    node->name_loc = loc(name);
    expect(L::OPEN_PAREN);
    if (type() != L::CLOSE_PAREN) param_list(node->params);
    expect(L::CLOSE_PAREN);
    if (accept(L::ARROW)) node->returns = test();
    expect(L::COLON);
    function_stack_.push_back(node.get());
    node->body = suite();
    function_stack_.pop_back();
    return node;
  }

  StmtPtr classdef() {
    auto node = std::make_unique<ClassDef>(loc(take()));
    node->name = intern(expect(L::NAME).text);
    if (accept(L::OPEN_PAREN)) {
      if (type() != L::CLOSE_PAREN) arglist(node->bases);
      expect(L::CLOSE_PAREN);
    }
    expect(L::COLON);
    node->body = suite();
    return node;
  }

  StmtPtr decorated() {
    std::vector<ExprPtr> decorators;
    while (accept(L::AT)) {
      decorators.push_back(test());
      expect(L::NEWLINE);
    }
    if (type() == L::DEF) {
      auto node = funcdef();
      static_cast<FunctionDef*>(node.get())->decorators = std::move(decorators);
      return node;
    }
    if (type() != L::CLASS) throw GiveUp{};
    auto node = classdef();
    static_cast<ClassDef*>(node.get())->decorators = std::move(decorators);
    return node;
  }

  // ---------------------------------------------------------------- expressions
  ExprPtr test() {
    if (type() == L::LAMBDA) return lambdef(false);
    ExprPtr body = logical();
    if (type() != L::IF) return body;
    auto node = std::make_unique<IfExp>(loc(take()));
    node->body = std::move(body);
    node->test = logical();
    expect(L::ELSE);
    node->orelse = test();
    return node;
  }

  ExprPtr test_nocond() { return type() == L::LAMBDA ? lambdef(true) : logical(); }

  ExprPtr lambdef(bool nocond) {
    auto node = std::make_unique<Lambda>(loc(take()));
    bool seen_default = false;
    while (type() != L::COLON) {
      Param param;
      param.loc = loc(cur());
      if (accept(L::STAR)) {
        param.kind = Param::Kind::KwOnlyMarker;
        if (type() == L::NAME) {
          param.kind = Param::Kind::VarArgs;
          param.name = intern(take().text);
        }
      } else if (accept(L::POWER)) {
        param.kind = Param::Kind::VarKw;
        param.name = intern(expect(L::NAME).text);
      } else {
        param.name = intern(expect(L::NAME).text);
        if (accept(L::ASSIGN)) {
          param.default_value = test();
          seen_default = true;
        } else if (seen_default) {
          throw GiveUp{};
        }
      }
      node->params.push_back(std::move(param));
      if (!accept(L::COMMA)) break;
    }
    expect(L::COLON);
    node->body = nocond ? test_nocond() : test();
    return node;
  }

  // `logical`: or > and > not > comparison, loosest first. Chains of the same boolean
  // operator flatten into one BoolOp, as the builder does with ANTLR's left-nested tree.
  ExprPtr logical() {
    ExprPtr left = and_test();
    while (type() == L::OR) {
      const Tok& op = take();
      left = make_bool_op(false, loc(op), std::move(left), and_test());
    }
    return left;
  }

  ExprPtr and_test() {
    ExprPtr left = not_test();
    while (type() == L::AND) {
      const Tok& op = take();
      left = make_bool_op(true, loc(op), std::move(left), not_test());
    }
    return left;
  }

  ExprPtr not_test() {
    if (type() != L::NOT) return comparison();
    const Tok& op = take();
    return std::make_unique<UnaryOp>(loc(op), UnaryOpKind::Not, not_test());
  }

  bool at_comp_op() const {
    switch (type()) {
      case L::LESS_THAN: case L::GREATER_THAN: case L::EQUALS: case L::GT_EQ: case L::LT_EQ:
      case L::NOT_EQ_1: case L::NOT_EQ_2: case L::IN: case L::IS:
        return true;
      case L::NOT:
        return type(1) == L::IN;
      default:
        return false;
    }
  }

  ExprPtr comparison() {
    ExprPtr left = expr();
    if (!at_comp_op()) return left;
    auto node = std::make_unique<Compare>(loc(cur()));
    node->left = std::move(left);
    while (at_comp_op()) {
      const Tok& op = take();
      std::string text = op.text;
      // `not in` / `is not`: the second token is part of the operator.
      if (op.type == L::NOT || (op.type == L::IS && type() == L::NOT)) text += take().text;
      bool two = text.size() > op.text.size();
      CmpOpKind kind = cmp_op_of(op.type, two);
      SourceLoc op_loc = loc(op);
      op_loc.len = code_points(text) + (two ? 1 : 0);
      node->ops.push_back(kind);
      node->op_locs.push_back(op_loc);
      node->comparators.push_back(expr());
    }
    return node;
  }

  // `expr` by precedence climbing: operands of an operator at level n bind at n + 1
  // (left-associative), except `**`, whose right operand binds at its own level.
  ExprPtr expr(int min_level = 1) {
    ExprPtr left;
    size_t t = type();
    if (t == L::ADD || t == L::MINUS || t == L::NOT_OP) {
      const Tok& op = take();
      left = make_unary(op.type, loc(op), expr(kUnary));
    } else {
      left = atom_expr();
    }
    for (;;) {
      int level = binary_level(type());
      if (level == 0 || level < min_level) break;
      const Tok& op = take();
      ExprPtr right = expr(level == kPower ? kPower : level + 1);
      left = std::make_unique<BinOp>(loc(op), *binop_of(op.type), std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr star_expr() {
    const Tok& star = take();
    return std::make_unique<Starred>(loc(star), expr());
  }
  ExprPtr test_or_star() { return type() == L::STAR ? star_expr() : test(); }
  ExprPtr expr_or_star() { return type() == L::STAR ? star_expr() : expr(); }

  ExprPtr atom_expr() {
    ExprPtr value = atom();
    for (;;) {
      switch (type()) {
        case L::DOT: {
          ++pos_;
          const Tok& name = expect(L::NAME);
          value = std::make_unique<Attribute>(loc(name), std::move(value), intern(name.text));
          break;
        }
        case L::OPEN_PAREN: {
          ++pos_;
          auto call = std::make_unique<Call>(value->loc);
          call->func = std::move(value);
          if (type() != L::CLOSE_PAREN) arglist(call->args);
          expect(L::CLOSE_PAREN);
          value = std::move(call);
          break;
        }
        case L::OPEN_BRACK: {
          auto sub = std::make_unique<Subscript>(loc(take()));
          sub->value = std::move(value);
          sub->index = subscriptlist();
          expect(L::CLOSE_BRACK);
          value = std::move(sub);
          break;
        }
        default:
          return value;
      }
    }
  }

  ExprPtr atom() {
    const Tok& first = cur();
    SourceLoc at = loc(first);
    switch (first.type) {
      case L::NAME: ++pos_; return std::make_unique<Name>(at, intern(first.text));
      case L::NUMBER: ++pos_; return number_literal(first.text, at);
      case L::STRING: {
        std::vector<StringPiece> pieces;
        while (type() == L::STRING) {
          const Tok& s = take();
          pieces.push_back(StringPiece{s.text, loc(s)});
        }
        return string_literal(pieces, at);
      }
      case L::NONE: case L::TRUE: case L::FALSE: case L::ELLIPSIS: {
        ++pos_;
        auto c = std::make_unique<Constant>(at);
        c->type = first.type == L::NONE ? Constant::Type::None
                  : first.type == L::ELLIPSIS ? Constant::Type::Ellipsis
                                              : Constant::Type::Bool;
        c->bool_value = first.type == L::TRUE;
        return c;
      }
      case L::OPEN_PAREN: return parenthesized(at);
      case L::OPEN_BRACK: return list_display(at);
      case L::OPEN_BRACE: return dict_display(at);
      default: throw GiveUp{};
    }
  }

  // `elt for ...` up to the closing bracket. A generator expression evaluates eagerly to
  // a list-like iterable here, so it is a ListComp too.
  ExprPtr list_comp(SourceLoc at, ExprPtr elt, size_t close) {
    auto lc = std::make_unique<ListComp>(at);
    lc->elt = std::move(elt);
    comp_for(lc->generators);
    expect(close);
    return lc;
  }

  // The `, element` items after the first one (a trailing comma allowed), then `close`.
  void more_elements(std::vector<ExprPtr>& elts, size_t close) {
    while (accept(L::COMMA)) {
      if (!starts_test_or_star(type())) break;
      elts.push_back(test_or_star());
    }
    expect(close);
  }

  ExprPtr parenthesized(SourceLoc at) {
    ++pos_;
    if (accept(L::CLOSE_PAREN)) {
      auto t = std::make_unique<Tuple>(at);
      t->parenthesized = true;
      return t;
    }
    ExprPtr first = test_or_star();
    if (type() == L::FOR) return list_comp(at, std::move(first), L::CLOSE_PAREN);
    if (type() != L::COMMA) {
      expect(L::CLOSE_PAREN);
      if (first->kind == ExprKind::Starred) throw GiveUp{};
      return first;
    }
    auto t = std::make_unique<Tuple>(at);
    t->parenthesized = true;
    t->elts.push_back(std::move(first));
    more_elements(t->elts, L::CLOSE_PAREN);
    return t;
  }

  ExprPtr list_display(SourceLoc at) {
    ++pos_;
    auto list = std::make_unique<List>(at);
    if (accept(L::CLOSE_BRACK)) return list;
    ExprPtr first = test_or_star();
    if (type() == L::FOR) return list_comp(at, std::move(first), L::CLOSE_BRACK);
    list->elts.push_back(std::move(first));
    more_elements(list->elts, L::CLOSE_BRACK);
    return list;
  }

  // Dict displays and comprehensions; a set display (no ':') is left to the ANTLR path,
  // which reports it as not supported yet.
  ExprPtr dict_display(SourceLoc at) {
    ++pos_;
    auto dict = std::make_unique<Dict>(at);
    if (accept(L::CLOSE_BRACE)) return dict;
    bool first = true;
    do {
      if (!first && type() == L::CLOSE_BRACE) break;
      if (accept(L::POWER)) {
        dict->keys.push_back(nullptr);
        dict->values.push_back(expr());
        if (type() == L::FOR) throw GiveUp{};
      } else {
        ExprPtr key = test();
        expect(L::COLON);
        ExprPtr value = test();
        if (first && type() == L::FOR) {
          auto dc = std::make_unique<DictComp>(at);
          dc->key = std::move(key);
          dc->value = std::move(value);
          comp_for(dc->generators);
          expect(L::CLOSE_BRACE);
          return dc;
        }
        dict->keys.push_back(std::move(key));
        dict->values.push_back(std::move(value));
      }
      first = false;
    } while (accept(L::COMMA));
    expect(L::CLOSE_BRACE);
    return dict;
  }

  void comp_for(std::vector<Comprehension>& out) {
    expect(L::FOR);
    Comprehension gen;
    gen.target = exprlist();
    check_target(gen.target.get(), true, "assign to");
    expect(L::IN);
    gen.iter = logical();
    out.push_back(std::move(gen));
    for (;;) {
      if (type() == L::FOR) {
        comp_for(out);
        return;
      }
      if (!accept(L::IF)) return;
      out.back().ifs.push_back(test_nocond());
    }
  }

  void arglist(std::vector<Arg>& out) {
    bool seen_keyword = false, generator = false;
    size_t count = 0;
    do {
      if (count > 0 && type() == L::CLOSE_PAREN) break;  // trailing comma
      Arg arg;
      arg.loc = loc(cur());
      if (type() == L::NAME && type(1) == L::ASSIGN) {
        arg.kind = Arg::Kind::Keyword;
        arg.name = intern(take().text);
        ++pos_;
        seen_keyword = true;
        for (const auto& other : out) {
          if (other.kind == Arg::Kind::Keyword && other.name == arg.name) throw GiveUp{};
        }
        arg.value = test();
      } else if (accept(L::POWER)) {
        arg.kind = Arg::Kind::DoubleStar;
        seen_keyword = true;
        arg.value = test();
      } else if (accept(L::STAR)) {
        arg.kind = Arg::Kind::Star;
        arg.value = test();
      } else {
        if (seen_keyword) throw GiveUp{};
        ExprPtr value = test();
        if (type() == L::FOR) {
          generator = true;
          auto comp = std::make_unique<ListComp>(arg.loc);
          comp->elt = std::move(value);
          comp_for(comp->generators);
          value = std::move(comp);
        }
        arg.value = std::move(value);
      }
      out.push_back(std::move(arg));
      ++count;
    } while (accept(L::COMMA));
    if (generator && count != 1) throw GiveUp{};  // generator expression must be parenthesized
  }

  ExprPtr subscriptlist() {
    SourceLoc at = loc(cur());
    ExprPtr first = subscript();
    if (type() != L::COMMA) return first;
    auto tuple = std::make_unique<Tuple>(at);
    tuple->elts.push_back(std::move(first));
    while (accept(L::COMMA)) {
      if (type() == L::CLOSE_BRACK) break;
      tuple->elts.push_back(subscript());
    }
    return tuple;
  }

  ExprPtr subscript() {
    SourceLoc at = loc(cur());
    ExprPtr lower;
    if (type() != L::COLON) {
      lower = test();
      if (type() != L::COLON) return lower;
    }
    auto slice = std::make_unique<Slice>(at);
    slice->lower = std::move(lower);
    expect(L::COLON);
    if (starts_test(type())) slice->upper = test();
    if (accept(L::COLON) && starts_test(type())) slice->step = test();
    return slice;
  }

  // `a, b, c` lists: one element without a comma is the element itself.
  template <typename Element>
  ExprPtr sequence(Element element, bool (*starts)(size_t)) {
    SourceLoc at = loc(cur());
    ExprPtr first = (this->*element)();
    if (type() != L::COMMA) return first;
    auto tuple = std::make_unique<Tuple>(at);
    tuple->elts.push_back(std::move(first));
    while (accept(L::COMMA)) {
      if (!starts(type())) break;
      tuple->elts.push_back((this->*element)());
    }
    return tuple;
  }
  ExprPtr exprlist() { return sequence(&Parser::expr_or_star, starts_expr_or_star); }
  ExprPtr testlist() { return sequence(&Parser::test, starts_test); }
  ExprPtr testlist_star_expr() { return sequence(&Parser::test_or_star, starts_test_or_star); }

  const SourceFile* source_;
  std::vector<Tok> toks_;
  size_t pos_ = 0;
  std::vector<FunctionDef*> function_stack_;  // for global/nonlocal declarations
};

}  // namespace

std::shared_ptr<ast::Module> fast_parse_module(const SourceFile* source,
                                               const std::vector<std::unique_ptr<antlr4::Token>>& tokens) {
  try {
    Parser parser(source, tokens);
    return parser.file_input();
  } catch (const GiveUp&) {
  } catch (const SyntaxError&) {
  }
  return nullptr;
}

ast::ExprPtr fast_parse_expression(const SourceFile* source,
                                   const std::vector<std::unique_ptr<antlr4::Token>>& tokens) {
  try {
    Parser parser(source, tokens);
    return parser.eval_input();
  } catch (const GiveUp&) {
  } catch (const SyntaxError&) {
  }
  return nullptr;
}

}  // namespace tsch
