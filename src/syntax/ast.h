// The language's abstract syntax tree. Built from the ANTLR parse tree in ast_builder.cc;
// every node carries the location of its first (or operator) token for diagnostics.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/source.h"
#include "support/symbol.h"

namespace tsch::ast {

// ---------------------------------------------------------------- expressions

enum class ExprKind {
  Name,
  Constant,
  FString,
  List,
  Tuple,
  Dict,
  ListComp,
  DictComp,
  Attribute,
  Subscript,
  Slice,
  Call,
  BinOp,
  UnaryOp,
  BoolOp,
  Compare,
  IfExp,
  Lambda,
  Starred,
  // Added last so the numbers the AST dump prints for the others stay the same.
  Set,
  SetComp,
};

struct Expr {
  explicit Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Expr() = default;
  const ExprKind kind;
  SourceLoc loc;
};
using ExprPtr = std::unique_ptr<Expr>;

struct Name : Expr {
  Name(SourceLoc l, Symbol s) : Expr(ExprKind::Name, l), id(s) {}
  Symbol id;
};

struct Constant : Expr {
  enum class Type { None, Bool, Int, Float, Str, Bytes, Ellipsis };
  explicit Constant(SourceLoc l) : Expr(ExprKind::Constant, l) {}
  Type type = Type::None;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;
  std::string str_value;
};

// f"...{value!conv:spec}...": literal pieces and replacement fields in order.
struct FString : Expr {
  struct Part {
    std::string literal;  // used when value is null
    ExprPtr value;
    char conversion = 0;            // 'r', 's', 'a' or 0
    std::unique_ptr<FString> spec;  // the format spec may itself contain fields
    std::string debug_text;         // "x=" for f"{x=}"
  };
  explicit FString(SourceLoc l) : Expr(ExprKind::FString, l) {}
  std::vector<Part> parts;
};

struct List : Expr {
  explicit List(SourceLoc l) : Expr(ExprKind::List, l) {}
  std::vector<ExprPtr> elts;
};

struct Tuple : Expr {
  explicit Tuple(SourceLoc l) : Expr(ExprKind::Tuple, l) {}
  std::vector<ExprPtr> elts;
  bool parenthesized = false;
};

struct Dict : Expr {
  explicit Dict(SourceLoc l) : Expr(ExprKind::Dict, l) {}
  std::vector<ExprPtr> keys;  // null key: `**value` unpacking
  std::vector<ExprPtr> values;
};

// `{a, *b}`: never empty (`{}` is a Dict).
struct Set : Expr {
  explicit Set(SourceLoc l) : Expr(ExprKind::Set, l) {}
  std::vector<ExprPtr> elts;
};

struct Comprehension {
  ExprPtr target;
  ExprPtr iter;
  std::vector<ExprPtr> ifs;
};

struct ListComp : Expr {
  explicit ListComp(SourceLoc l) : Expr(ExprKind::ListComp, l) {}
  ExprPtr elt;
  std::vector<Comprehension> generators;
};

struct SetComp : Expr {
  explicit SetComp(SourceLoc l) : Expr(ExprKind::SetComp, l) {}
  ExprPtr elt;
  std::vector<Comprehension> generators;
};

struct DictComp : Expr {
  explicit DictComp(SourceLoc l) : Expr(ExprKind::DictComp, l) {}
  ExprPtr key;
  ExprPtr value;
  std::vector<Comprehension> generators;
};

struct Attribute : Expr {
  Attribute(SourceLoc l, ExprPtr v, Symbol a) : Expr(ExprKind::Attribute, l), value(std::move(v)), attr(a) {}
  ExprPtr value;
  Symbol attr;
};

struct Subscript : Expr {
  explicit Subscript(SourceLoc l) : Expr(ExprKind::Subscript, l) {}
  ExprPtr value;
  ExprPtr index;  // a Tuple for `a[i, j]`, a Slice for `a[1:2]`
};

struct Slice : Expr {
  explicit Slice(SourceLoc l) : Expr(ExprKind::Slice, l) {}
  ExprPtr lower, upper, step;  // each may be null
};

struct Arg {
  enum class Kind { Positional, Keyword, Star, DoubleStar };
  Kind kind = Kind::Positional;
  Symbol name = 0;  // for Keyword
  ExprPtr value;
  SourceLoc loc;
};

struct Call : Expr {
  explicit Call(SourceLoc l) : Expr(ExprKind::Call, l) {}
  ExprPtr func;
  std::vector<Arg> args;
};

enum class BinOpKind { Add, Sub, Mul, MatMul, Div, FloorDiv, Mod, Pow, LShift, RShift, BitOr, BitXor, BitAnd };
const char* binop_symbol(BinOpKind op);

struct BinOp : Expr {
  BinOp(SourceLoc op_loc, BinOpKind o, ExprPtr l, ExprPtr r)
      : Expr(ExprKind::BinOp, op_loc), op(o), left(std::move(l)), right(std::move(r)) {}
  BinOpKind op;
  ExprPtr left, right;
};

enum class UnaryOpKind { Neg, Pos, Invert, Not };

struct UnaryOp : Expr {
  UnaryOp(SourceLoc l, UnaryOpKind o, ExprPtr v) : Expr(ExprKind::UnaryOp, l), op(o), operand(std::move(v)) {}
  UnaryOpKind op;
  ExprPtr operand;
};

struct BoolOp : Expr {
  BoolOp(SourceLoc l, bool is_and) : Expr(ExprKind::BoolOp, l), is_and(is_and) {}
  bool is_and;
  std::vector<ExprPtr> values;
};

enum class CmpOpKind { Lt, Gt, Eq, GtE, LtE, NotEq, In, NotIn, Is, IsNot };
const char* cmpop_symbol(CmpOpKind op);

struct Compare : Expr {
  explicit Compare(SourceLoc l) : Expr(ExprKind::Compare, l) {}
  ExprPtr left;
  std::vector<CmpOpKind> ops;
  std::vector<SourceLoc> op_locs;
  std::vector<ExprPtr> comparators;
};

struct IfExp : Expr {
  explicit IfExp(SourceLoc l) : Expr(ExprKind::IfExp, l) {}
  ExprPtr test, body, orelse;
};

struct Param {
  enum class Kind { Normal, VarArgs, KwOnlyMarker, VarKw, PosOnlyMarker };
  Kind kind = Kind::Normal;
  Symbol name = 0;
  ExprPtr annotation;     // may be null
  ExprPtr default_value;  // may be null
  SourceLoc loc;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Lambda : Expr {
  explicit Lambda(SourceLoc l) : Expr(ExprKind::Lambda, l) {}
  std::vector<Param> params;
  ExprPtr body;
};

struct Starred : Expr {
  Starred(SourceLoc l, ExprPtr v) : Expr(ExprKind::Starred, l), value(std::move(v)) {}
  ExprPtr value;
};

// ---------------------------------------------------------------- statements

enum class StmtKind {
  Expr,
  Assign,
  AugAssign,
  AnnAssign,
  Return,
  If,
  For,
  While,
  Break,
  Continue,
  Pass,
  FunctionDef,
  ClassDef,
  Import,
  ImportFrom,
  Try,
  Raise,
  With,
  Assert,
  Global,
  Nonlocal,
  Delete,
};

struct Stmt {
  Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Stmt() = default;
  const StmtKind kind;
  SourceLoc loc;
};
using Body = std::vector<StmtPtr>;

struct ExprStmt : Stmt {
  ExprStmt(SourceLoc l, ExprPtr v) : Stmt(StmtKind::Expr, l), value(std::move(v)) {}
  ExprPtr value;
};

// a = b = value
struct Assign : Stmt {
  explicit Assign(SourceLoc l) : Stmt(StmtKind::Assign, l) {}
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

struct AugAssign : Stmt {
  AugAssign(SourceLoc l, BinOpKind o) : Stmt(StmtKind::AugAssign, l), op(o) {}
  BinOpKind op;
  SourceLoc op_loc;
  ExprPtr target, value;
};

struct AnnAssign : Stmt {
  explicit AnnAssign(SourceLoc l) : Stmt(StmtKind::AnnAssign, l) {}
  ExprPtr target, annotation, value;  // value may be null
};

struct Return : Stmt {
  explicit Return(SourceLoc l) : Stmt(StmtKind::Return, l) {}
  ExprPtr value;  // may be null
};

struct If : Stmt {
  explicit If(SourceLoc l) : Stmt(StmtKind::If, l) {}
  ExprPtr test;
  Body body, orelse;  // elif chains nest as an If inside orelse
};

struct For : Stmt {
  explicit For(SourceLoc l) : Stmt(StmtKind::For, l) {}
  ExprPtr target, iter;
  Body body, orelse;
};

struct While : Stmt {
  explicit While(SourceLoc l) : Stmt(StmtKind::While, l) {}
  ExprPtr test;
  Body body, orelse;
};

struct Simple : Stmt {  // break, continue, pass
  Simple(StmtKind k, SourceLoc l) : Stmt(k, l) {}
};

struct FunctionDef : Stmt {
  explicit FunctionDef(SourceLoc l) : Stmt(StmtKind::FunctionDef, l) {}
  Symbol name = 0;
  SourceLoc name_loc;
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  ExprPtr returns;  // may be null
  Body body;
  // Names the body declares `global` / `nonlocal` (nested definitions excluded).
  std::vector<Symbol> global_names, nonlocal_names;
};

struct ClassDef : Stmt {
  explicit ClassDef(SourceLoc l) : Stmt(StmtKind::ClassDef, l) {}
  Symbol name = 0;
  std::vector<ExprPtr> decorators;
  std::vector<Arg> bases;
  Body body;
};

struct Alias {
  std::string name;   // dotted for `import a.b`
  Symbol asname = 0;  // 0 when absent
  bool has_asname = false;
  SourceLoc loc;
};

struct Import : Stmt {
  explicit Import(SourceLoc l) : Stmt(StmtKind::Import, l) {}
  std::vector<Alias> names;
};

struct ImportFrom : Stmt {
  explicit ImportFrom(SourceLoc l) : Stmt(StmtKind::ImportFrom, l) {}
  std::string module;  // dotted
  int level = 0;       // leading dots
  bool star = false;
  std::vector<Alias> names;
};

struct ExceptHandler {
  ExprPtr type;  // may be null (bare except)
  Symbol name = 0;
  bool has_name = false;
  Body body;
  SourceLoc loc;
};

struct Try : Stmt {
  explicit Try(SourceLoc l) : Stmt(StmtKind::Try, l) {}
  Body body;
  std::vector<ExceptHandler> handlers;
  Body orelse, finalbody;
};

struct Raise : Stmt {
  explicit Raise(SourceLoc l) : Stmt(StmtKind::Raise, l) {}
  ExprPtr exc, cause;  // both may be null
};

struct WithItem {
  ExprPtr context;
  ExprPtr target;  // may be null
};

struct With : Stmt {
  explicit With(SourceLoc l) : Stmt(StmtKind::With, l) {}
  std::vector<WithItem> items;
  Body body;
};

struct Assert : Stmt {
  explicit Assert(SourceLoc l) : Stmt(StmtKind::Assert, l) {}
  ExprPtr test, msg;
};

struct NameList : Stmt {  // global / nonlocal
  NameList(StmtKind k, SourceLoc l) : Stmt(k, l) {}
  std::vector<Symbol> names;
};

struct Delete : Stmt {
  explicit Delete(SourceLoc l) : Stmt(StmtKind::Delete, l) {}
  std::vector<ExprPtr> targets;
};

// A parsed file or REPL input.
struct Module {
  const SourceFile* source = nullptr;
  Body body;
};

}  // namespace tsch::ast
