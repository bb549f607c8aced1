#include "syntax/ast.h"

namespace tsch::ast {

const char* binop_symbol(BinOpKind op) {
  switch (op) {
    case BinOpKind::Add:
      return "+";
    case BinOpKind::Sub:
      return "-";
    case BinOpKind::Mul:
      return "*";
    case BinOpKind::MatMul:
      return "@";
    case BinOpKind::Div:
      return "/";
    case BinOpKind::FloorDiv:
      return "//";
    case BinOpKind::Mod:
      return "%";
    case BinOpKind::Pow:
      return "**";
    case BinOpKind::LShift:
      return "<<";
    case BinOpKind::RShift:
      return ">>";
    case BinOpKind::BitOr:
      return "|";
    case BinOpKind::BitXor:
      return "^";
    case BinOpKind::BitAnd:
      return "&";
  }
  return "?";
}

const char* cmpop_symbol(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::Lt:
      return "<";
    case CmpOpKind::Gt:
      return ">";
    case CmpOpKind::Eq:
      return "==";
    case CmpOpKind::GtE:
      return ">=";
    case CmpOpKind::LtE:
      return "<=";
    case CmpOpKind::NotEq:
      return "!=";
    case CmpOpKind::In:
      return "in";
    case CmpOpKind::NotIn:
      return "not in";
    case CmpOpKind::Is:
      return "is";
    case CmpOpKind::IsNot:
      return "is not";
  }
  return "?";
}

}  // namespace tsch::ast
