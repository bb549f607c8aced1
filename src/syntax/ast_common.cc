// Shared AST construction; see ast_common.h.
#include "syntax/ast_common.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "TschParser.h"
#include "support/diagnostics.h"
#include "syntax/parser.h"
#include "syntax/string_literal.h"

namespace tsch::ast {

using tsgen::TschParser;

namespace {

[[noreturn]] void fail(SourceLoc at, const std::string& message) { throw SyntaxError(at, message); }

void fstring_parts(const std::string& body, SourceLoc body_loc, bool raw, FString& out);

}  // namespace

int code_points(std::string_view text) {
  int n = 0;
  for (char c : text) {
    if (c == '\n') break;
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return std::max(n, 1);
}

std::optional<BinOpKind> binop_of(size_t type) {
  switch (type) {
    case TschParser::ADD:
      return BinOpKind::Add;
    case TschParser::MINUS:
      return BinOpKind::Sub;
    case TschParser::STAR:
      return BinOpKind::Mul;
    case TschParser::AT:
      return BinOpKind::MatMul;
    case TschParser::DIV:
      return BinOpKind::Div;
    case TschParser::IDIV:
      return BinOpKind::FloorDiv;
    case TschParser::MOD:
      return BinOpKind::Mod;
    case TschParser::POWER:
      return BinOpKind::Pow;
    case TschParser::LEFT_SHIFT:
      return BinOpKind::LShift;
    case TschParser::RIGHT_SHIFT:
      return BinOpKind::RShift;
    case TschParser::OR_OP:
      return BinOpKind::BitOr;
    case TschParser::XOR:
      return BinOpKind::BitXor;
    case TschParser::AND_OP:
      return BinOpKind::BitAnd;
    case TschParser::ADD_ASSIGN:
      return BinOpKind::Add;
    case TschParser::SUB_ASSIGN:
      return BinOpKind::Sub;
    case TschParser::MULT_ASSIGN:
      return BinOpKind::Mul;
    case TschParser::AT_ASSIGN:
      return BinOpKind::MatMul;
    case TschParser::DIV_ASSIGN:
      return BinOpKind::Div;
    case TschParser::MOD_ASSIGN:
      return BinOpKind::Mod;
    case TschParser::AND_ASSIGN:
      return BinOpKind::BitAnd;
    case TschParser::OR_ASSIGN:
      return BinOpKind::BitOr;
    case TschParser::XOR_ASSIGN:
      return BinOpKind::BitXor;
    case TschParser::LEFT_SHIFT_ASSIGN:
      return BinOpKind::LShift;
    case TschParser::RIGHT_SHIFT_ASSIGN:
      return BinOpKind::RShift;
    case TschParser::POWER_ASSIGN:
      return BinOpKind::Pow;
    case TschParser::IDIV_ASSIGN:
      return BinOpKind::FloorDiv;
    default:
      return std::nullopt;
  }
}

void check_target(const Expr* target, bool allow_star, const char* what) {
  switch (target->kind) {
    case ExprKind::Name:
    case ExprKind::Attribute:
    case ExprKind::Subscript:
      return;
    case ExprKind::Tuple:
    case ExprKind::List: {
      const auto& elts = target->kind == ExprKind::Tuple ? static_cast<const Tuple*>(target)->elts
                                                         : static_cast<const List*>(target)->elts;
      int stars = 0;
      for (const auto& e : elts) {
        if (e->kind == ExprKind::Starred) {
          if (!allow_star || ++stars > 1) {
            fail(e->loc,
                 stars > 1 ? "multiple starred expressions in assignment" : std::string("cannot ") + what + " starred");
          }
          check_target(static_cast<const Starred*>(e.get())->value.get(), false, what);
        } else {
          check_target(e.get(), allow_star, what);
        }
      }
      return;
    }
    case ExprKind::Starred:
      fail(target->loc, "starred assignment target must be in a list or tuple");
    case ExprKind::Call:
      fail(target->loc, std::string("cannot ") + what + " function call");
    case ExprKind::Constant:
      fail(target->loc, std::string("cannot ") + what + " literal");
    default:
      fail(target->loc, std::string("cannot ") + what + " expression");
  }
}

StmtPtr make_delete(SourceLoc at, ExprPtr targets) {
  auto node = std::make_unique<Delete>(at);
  if (targets->kind == ExprKind::Tuple && !static_cast<Tuple*>(targets.get())->parenthesized) {
    for (auto& e : static_cast<Tuple*>(targets.get())->elts) node->targets.push_back(std::move(e));
  } else {
    node->targets.push_back(std::move(targets));
  }
  for (auto& t : node->targets) check_target(t.get(), false, "delete");
  return node;
}

ExprPtr make_unary(size_t token_type, SourceLoc op_loc, ExprPtr operand) {
  if (token_type == TschParser::MINUS && operand->kind == ExprKind::Constant) {
    auto* c = static_cast<Constant*>(operand.get());
    bool folded = true;
    if (c->type == Constant::Type::Float) {
      c->float_value = -c->float_value;
    } else if (c->type == Constant::Type::Int && c->str_value.empty() && c->int_value != INT64_MIN) {
      c->int_value = -c->int_value;
    } else if (c->type == Constant::Type::Int && c->str_value == "9223372036854775808") {
      c->int_value = INT64_MIN;
      c->str_value.clear();
    } else {
      folded = false;
    }
    if (folded) {
      c->loc = op_loc;
      return operand;
    }
  }
  UnaryOpKind kind = token_type == TschParser::MINUS ? UnaryOpKind::Neg
                     : token_type == TschParser::ADD ? UnaryOpKind::Pos
                                                     : UnaryOpKind::Invert;
  return std::make_unique<UnaryOp>(op_loc, kind, std::move(operand));
}

ExprPtr make_bool_op(bool is_and, SourceLoc op_loc, ExprPtr left, ExprPtr right) {
  if (left->kind == ExprKind::BoolOp && static_cast<BoolOp*>(left.get())->is_and == is_and) {
    static_cast<BoolOp*>(left.get())->values.push_back(std::move(right));
    return left;
  }
  auto node = std::make_unique<BoolOp>(op_loc, is_and);
  node->values.push_back(std::move(left));
  node->values.push_back(std::move(right));
  return node;
}

CmpOpKind cmp_op_of(size_t first_token_type, bool two_tokens) {
  switch (first_token_type) {
    case TschParser::LESS_THAN:
      return CmpOpKind::Lt;
    case TschParser::GREATER_THAN:
      return CmpOpKind::Gt;
    case TschParser::EQUALS:
      return CmpOpKind::Eq;
    case TschParser::GT_EQ:
      return CmpOpKind::GtE;
    case TschParser::LT_EQ:
      return CmpOpKind::LtE;
    case TschParser::IN:
      return CmpOpKind::In;
    case TschParser::NOT:
      return CmpOpKind::NotIn;
    case TschParser::IS:
      return two_tokens ? CmpOpKind::IsNot : CmpOpKind::Is;
    default:
      return CmpOpKind::NotEq;
  }
}

ExprPtr number_literal(const std::string& token_text, SourceLoc at) {
  auto c = std::make_unique<Constant>(at);
  std::string text;
  for (char ch : token_text) {
    if (ch != '_') text += ch;
  }
  bool is_float =
      text.find_first_of(".eE") != std::string::npos && !(text.size() > 1 && (text[1] == 'x' || text[1] == 'X'));
  if (is_float) {
    c->type = Constant::Type::Float;
    c->float_value = std::strtod(text.c_str(), nullptr);
    return c;
  }
  c->type = Constant::Type::Int;
  int base = 10;
  std::string digits = text;
  if (text.size() > 1 && text[0] == '0' && std::isalpha(static_cast<unsigned char>(text[1]))) {
    char b = static_cast<char>(std::tolower(text[1]));
    base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
    digits = text.substr(2);
  }
  errno = 0;
  unsigned long long value = std::strtoull(digits.c_str(), nullptr, base);
  if (errno == ERANGE || value > static_cast<unsigned long long>(INT64_MAX)) {
    if (base == 10 && digits == "9223372036854775808") {
      c->str_value = digits;  // only valid under unary minus; see operator_expr()
      return c;
    }
    fail(c->loc, "integer literal too large: tsch integers are 64-bit");
  }
  c->int_value = static_cast<int64_t>(value);
  return c;
}

ExprPtr string_literal(const std::vector<StringPiece>& tokens, SourceLoc at) {
  bool any_f = false;
  bool any_bytes = false, any_text = false;
  std::vector<StringToken> pieces;
  for (const auto& token : tokens) {
    pieces.push_back(split_string_token(token.text));
    any_f |= pieces.back().fstring;
    (pieces.back().bytes ? any_bytes : any_text) = true;
  }
  if (any_bytes && any_text) fail(at, "cannot mix bytes and nonbytes literals");
  auto decode = [&](size_t i, std::string& out) {
    if (pieces[i].raw) {
      out = pieces[i].body;
      return;
    }
    std::string error;
    size_t offset = 0;
    if (!decode_escapes(pieces[i].body, out, error, offset)) {
      SourceLoc where = tokens[i].loc;
      where.col += static_cast<int>(pieces[i].body_offset + offset);
      where.len = 2;
      fail(where, "(unicode error) " + error);
    }
  };
  if (!any_f) {
    auto c = std::make_unique<Constant>(at);
    c->type = any_bytes ? Constant::Type::Bytes : Constant::Type::Str;
    std::string part;
    for (size_t i = 0; i < pieces.size(); ++i) {
      decode(i, part);
      c->str_value += part;
    }
    return c;
  }
  auto f = std::make_unique<FString>(at);
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!pieces[i].fstring) {
      FString::Part part;
      decode(i, part.literal);
      f->parts.push_back(std::move(part));
      continue;
    }
    SourceLoc body_loc = tokens[i].loc;
    body_loc.col += static_cast<int>(pieces[i].body_offset);
    fstring_parts(pieces[i].body, body_loc, pieces[i].raw, *f);
  }
  return f;
}

namespace {

// Splits an f-string body into literal text and {field} parts. Fields are parsed as
// expressions from a fragment source padded so that columns match the original line.
void fstring_parts(const std::string& body, SourceLoc body_loc, bool raw, FString& out) {
  const SourceFile* source = body_loc.file;
  std::string literal;
  int line = body_loc.line;
  int col = body_loc.col;  // column of body[i]
  auto flush_literal = [&]() {
    if (literal.empty()) return;
    FString::Part part;
    if (raw) {
      part.literal = literal;
    } else {
      std::string error;
      size_t offset = 0;
      if (!decode_escapes(literal, part.literal, error, offset)) {
        fail(SourceLoc{source, line, col, 1}, "(unicode error) " + error);
      }
    }
    out.parts.push_back(std::move(part));
    literal.clear();
  };
  auto advance = [&](char c) {
    if (c == '\n') {
      ++line;
      col = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++col;
    }
  };
  size_t i = 0;
  while (i < body.size()) {
    char c = body[i];
    if (c == '}') {
      if (i + 1 < body.size() && body[i + 1] == '}') {
        literal += '}';
        advance(c);
        advance(c);
        i += 2;
        continue;
      }
      fail(SourceLoc{source, line, col, 1}, "f-string: single '}' is not allowed");
    }
    if (c != '{') {
      literal += c;
      advance(c);
      ++i;
      continue;
    }
    if (i + 1 < body.size() && body[i + 1] == '{') {
      literal += '{';
      advance(c);
      advance(c);
      i += 2;
      continue;
    }
    flush_literal();
    SourceLoc open{source, line, col, 1};
    advance(c);
    ++i;
    // Find the end of the expression: a top-level '!', ':', '=' (debug) or '}'.
    size_t start = i;
    int field_line = line, field_col = col;
    int depth = 0;
    char quote = 0;
    size_t end = std::string::npos;
    for (; i < body.size(); advance(body[i]), ++i) {
      char d = body[i];
      if (quote) {
        if (d == quote) quote = 0;
        continue;
      }
      if (d == '\'' || d == '"')
        quote = d;
      else if (d == '(' || d == '[' || d == '{')
        ++depth;
      else if (d == ')' || d == ']' || (d == '}' && depth > 0))
        --depth;
      else if (depth == 0 && (d == '}' || d == ':' || (d == '!' && i + 1 < body.size() && body[i + 1] != '=') ||
                              (d == '=' && i + 1 < body.size() && body[i + 1] != '=' && i > start &&
                               std::string("=!<>").find(body[i - 1]) == std::string::npos))) {
        end = i;
        break;
      }
    }
    if (end == std::string::npos) fail(open, "f-string: expecting '}'");
    std::string expr_text = body.substr(start, end - start);
    if (expr_text.find_first_not_of(" \t\n") == std::string::npos) {
      fail(open, "f-string: empty expression not allowed");
    }
    FString::Part part;
    // Pad so that the fragment's columns equal the original line's.
    std::string padded = std::string(static_cast<size_t>(field_col - 1), ' ') + expr_text;
    const SourceFile* fragment = SourceFile::make(source->name(), padded, field_line, source);
    part.value = parse_expression(fragment);
    if (body[i] == '=') {
      part.debug_text = expr_text + "=";
      part.conversion = 'r';
      advance(body[i]);
      ++i;
    }
    if (i < body.size() && body[i] == '!') {
      if (i + 1 >= body.size() || std::string("rsa").find(body[i + 1]) == std::string::npos) {
        fail(SourceLoc{source, line, col, 1}, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
      }
      part.conversion = body[i + 1];
      advance(body[i]);
      advance(body[i + 1]);
      i += 2;
    }
    if (i < body.size() && body[i] == ':') {
      part.conversion = part.debug_text.empty() ? part.conversion : 0;
      advance(body[i]);
      ++i;
      size_t spec_start = i;
      int spec_line = line, spec_col = col;
      int nest = 0;
      for (; i < body.size(); advance(body[i]), ++i) {
        if (body[i] == '{')
          ++nest;
        else if (body[i] == '}') {
          if (nest == 0) break;
          --nest;
        }
      }
      auto spec = std::make_unique<FString>(open);
      fstring_parts(body.substr(spec_start, i - spec_start), SourceLoc{source, spec_line, spec_col, 1}, raw, *spec);
      part.spec = std::move(spec);
    }
    if (i >= body.size() || body[i] != '}') fail(open, "f-string: expecting '}'");
    advance(body[i]);
    ++i;
    out.parts.push_back(std::move(part));
  }
  flush_literal();
}

}  // namespace

}  // namespace tsch::ast
