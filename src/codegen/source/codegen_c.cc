#include "codegen/source/codegen_c.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "ir/op.h"
#include "ir/printer.h"
#include "ir/printer_base.h"
#include "support/error.h"

namespace tsch::codegen {

using namespace ir;

// ------------------------------------------------------------------------- types and names

std::string CodeGenC::type_of(DataType t) const {
  if (t.lanes != 1) throw BuildError("not supported yet: the vector type " + t.to_string() + " in C code generation");
  if (t.is_bool()) return "bool";
  if (t.is_handle()) return "void*";
  if (t.is_float()) {
    if (t.bits == 32) return "float";
    if (t.bits == 64) return "double";
    // GCC and Clang's IEEE half type (arithmetic in float, rounded on conversion back).
    if (t.bits == 16 && t.code == DataType::Code::Float) return "_Float16";
  } else if ((t.is_int() || t.is_uint()) && (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)) {
    return std::string(t.is_int() ? "int" : "uint") + std::to_string(t.bits) + "_t";
  }
  throw BuildError("not supported yet: the type " + t.to_string() + " in C code generation");
}

std::string CodeGenC::memory_type_of(DataType t) const { return type_of(t.is_bool() ? DataType::uint(8) : t); }

std::string CodeGenC::define(const VarNode* v, const std::string& hint) {
  std::string base = sanitize(hint);
  // C keywords and the helpers' prefix are not the user's to take.
  static const std::unordered_set<std::string> reserved = {
      "auto",     "break",  "case",     "char",   "const",  "continue", "default", "do",      "double",  "else",
      "enum",     "extern", "float",    "for",    "goto",   "if",       "inline",  "int",     "long",    "register",
      "restrict", "return", "short",    "signed", "sizeof", "static",   "struct",  "switch",  "typedef", "union",
      "unsigned", "void",   "volatile", "while",  "bool",   "true",     "false",   "buffers", "scalars", "main"};
  if (reserved.count(base) || base.rfind("tsch_", 0) == 0) base += "_";
  std::string name = base;
  for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  names_[v] = name;
  return name;
}

std::string CodeGenC::name_of(const VarNode* v) const {
  auto it = names_.find(v);
  if (it == names_.end()) throw BuildError("variable " + v->name + " is used outside its definition");
  return it->second;
}

std::string CodeGenC::fresh(const std::string& hint) {
  std::string name = hint;
  for (int k = 1; used_.count(name); ++k) name = hint + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

std::string CodeGenC::data_of(const Buffer& buf) const {
  auto it = names_.find(buf->data.get());
  if (it == names_.end()) throw BuildError("buffer " + buf->name + " is used outside its allocation");
  if (void_pointers_.count(buf->data.get())) return "((" + memory_type_of(buf->dtype) + "*)" + it->second + ")";
  return it->second;
}

std::string CodeGenC::helper(const std::string& name, const std::string& definition) {
  helpers_.emplace(name, definition);
  return name;
}

std::string CodeGenC::headers() const {
  return "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n";
}

std::string CodeGenC::prelude() const {
  std::string out = headers();
  for (const auto& [name, definition] : helpers_) out += definition + "\n";
  return helpers_.empty() ? out : out + "\n";
}

// ------------------------------------------------------------------------- expressions

std::string CodeGenC::literal(const PrimExpr& e) const {
  if (auto* i = as<IntImmNode>(e)) {
    DataType t = e->dtype;
    if (t.is_bool()) return i->value ? "true" : "false";
    if (t.is_int() && t.bits == 64) {
      return i->value == INT64_MIN ? "(-INT64_C(9223372036854775807) - 1)"
                                   : "INT64_C(" + std::to_string(i->value) + ")";
    }
    if (t.is_uint() && t.bits == 64) return "UINT64_C(" + std::to_string(static_cast<uint64_t>(i->value)) + ")";
    // An int32 is C's int: its literal needs no cast.
    if (t.is_int() && t.bits == 32)
      return i->value < 0 ? "(" + std::to_string(i->value) + ")" : std::to_string(i->value);
    return "((" + type_of(t) + ")" + std::to_string(i->value) + ")";
  }
  auto* f = as<FloatImmNode>(e);
  if (e->dtype.bits == 16) {
    PrimExpr as_float = std::make_shared<FloatImmNode>(DataType::float32(), f->value);
    return "((_Float16)" + literal(as_float) + ")";
  }
  bool single = e->dtype.bits == 32;
  if (std::isnan(f->value)) return single ? "((float)NAN)" : "((double)NAN)";
  if (std::isinf(f->value))
    return std::string(f->value < 0 ? "-" : "") + (single ? "((float)INFINITY)" : "((double)INFINITY)");
  // Enough digits to read back the same value, and a decimal point so C reads a float.
  std::string text = single ? fmt::format("{:.9g}", f->value) : fmt::format("{:.17g}", f->value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return single ? text + "f" : text;
}

std::string CodeGenC::vector_expr(const PrimExpr& e) {
  throw BuildError("not supported yet: " + script(e) + " in C code generation");
}

void CodeGenC::vector_store(const BufferStoreNode& n) {
  throw BuildError("not supported yet: the vector store to " + n.buffer->name + " in C code generation");
}

std::string CodeGenC::expr(const PrimExpr& e) {
  if (e->dtype.lanes > 1) return vector_expr(e);
  switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
      return literal(e);
    case ExprKind::Var:
      return name_of(as<VarNode>(e));
    case ExprKind::Not:
      return "(!" + expr(as<NotNode>(e)->a) + ")";
    case ExprKind::Select: {
      auto* s = as<SelectNode>(e);
      return "(" + expr(s->condition) + " ? " + expr(s->true_value) + " : " + expr(s->false_value) + ")";
    }
    case ExprKind::Cast:
      return cast(as<CastNode>(e)->value, e->dtype);
    case ExprKind::BufferLoad:
      return load(*as<BufferLoadNode>(e));
    case ExprKind::Call:
      return call(*as<CallNode>(e));
    case ExprKind::Let: {
      // A GNU statement expression keeps the binding local to the expression.
      auto* l = as<LetNode>(e);
      std::string value = expr(l->value);
      std::string name = define(l->var.get(), l->var->name);
      std::string body = expr(l->body);
      forget(l->var.get());
      return "({ " + type_of(l->var->dtype) + " " + name + " = " + value + "; " + body + "; })";
    }
    case ExprKind::StringImm:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
      throw BuildError("not supported yet: " + script(e) + " in C code generation");
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::And:
    case ExprKind::Or:
      break;
  }
  // Binary operators share one layout.
  auto* b = static_cast<const BinaryNode<ExprKind::Add>*>(e.get());
  return binary(e->kind, b->a, b->b, b->a->dtype);
}

// As the LLVM generator: an integer division by 0 gives 0, and the most negative value by
// -1 wraps (remainder 0), instead of trapping the process (x86's idiv faults on both).
std::string CodeGenC::guarded_division(ExprKind kind, const std::string& a, const std::string& b, DataType t,
                                       const std::string& suffix) {
  static const char* names[] = {"div", "mod", "floordiv", "floormod"};
  int which = kind == ExprKind::Div ? 0 : kind == ExprKind::Mod ? 1 : kind == ExprKind::FloorDiv ? 2 : 3;
  std::string name = std::string("tsch_safe_") + names[which] + "_" + suffix;
  std::string ct = type_of(t);
  std::string body;
  if (t.is_uint()) {
    body = std::string("return b == 0 ? 0 : (") + ct + ")(a " + (which == 0 || which == 2 ? "/" : "%") + " b);";
  } else {
    std::string ut = "uint" + std::to_string(t.bits) + "_t";
    std::string wrap_neg = "(" + ct + ")(" + ut + ")(0u - (" + ut + ")a)";
    std::string core = which == 0   ? "a / b"
                       : which == 1 ? "a % b"
                       : which == 2 ? "(a / b) - (" + ct + ")((a % b != 0) && ((a % b < 0) != (b < 0)))"
                                    : "(a % b != 0 && ((a % b < 0) != (b < 0))) ? a % b + b : a % b";
    std::string on_minus_one = which == 0 || which == 2 ? wrap_neg : "0";
    body = "if (b == 0) return 0; if (b == -1) return " + on_minus_one + "; return (" + ct + ")(" + core + ");";
  }
  helper(name, "static inline " + ct + " " + name + "(" + ct + " a, " + ct + " b) { " + body + " }");
  return name + "(" + a + ", " + b + ")";
}

std::string CodeGenC::binary(ExprKind kind, const PrimExpr& pa, const PrimExpr& pb, DataType t) {
  if (t.is_float8()) {
    // No arithmetic on CUDA's float8 types: in float, converted back (comparisons as they are).
    DataType f32 = DataType::float32().with_lanes(t.lanes);
    // (Casts built as nodes: folding a float8 literal into a float one would skip its rounding.)
    std::string r = binary(kind, std::make_shared<CastNode>(f32, pa), std::make_shared<CastNode>(f32, pb), f32);
    bool logical = (kind >= ExprKind::EQ && kind <= ExprKind::GE) || kind == ExprKind::And || kind == ExprKind::Or;
    return logical ? r : "((" + type_of(t) + ")" + r + ")";
  }
  std::string a = expr(pa), b = expr(pb);
  auto infix = [&](const char* op) { return "(" + a + " " + op + " " + b + ")"; };
  std::string ct = type_of(t);
  std::string suffix = (t.code == DataType::Code::BFloat ? "bf"
                        : t.is_float()                   ? "f"
                        : t.is_int()                     ? "i"
                                                         : "u") +
                       std::to_string(t.bits);
  if (t.is_bool()) suffix = "b";
  // C computes integers narrower than int in int: the result is cut back to the type, as
  // TensorIR's arithmetic wraps there.
  auto narrow = [&](std::string text) {
    return (t.is_int() || t.is_uint()) && t.bits < 32 ? "((" + ct + ")" + text + ")" : text;
  };
  int64_t divisor;
  bool division =
      kind == ExprKind::Div || kind == ExprKind::Mod || kind == ExprKind::FloorDiv || kind == ExprKind::FloorMod;
  if (division && (t.is_int() || t.is_uint()) && t.lanes == 1 && guards_integer_division() &&
      !(as_const_int(pb, &divisor) && divisor != 0 && !(t.is_int() && divisor == -1)))
    return guarded_division(kind, a, b, t, suffix);
  switch (kind) {
    case ExprKind::Add:
      return narrow(infix("+"));
    case ExprKind::Sub:
      return narrow(infix("-"));
    case ExprKind::Mul:
      return narrow(infix("*"));
    case ExprKind::Div:
      return narrow(infix("/"));  // truncating for integers, as TVM's Div
    case ExprKind::Mod:
      return t.is_float() ? (t.bits == 32 ? "fmodf(" : "fmod(") + a + ", " + b + ")" : narrow(infix("%"));
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod: {
      bool is_div = kind == ExprKind::FloorDiv;
      if (t.is_uint() || t.is_bool()) return infix(is_div ? "/" : "%");
      std::string name = std::string(is_div ? "tsch_floordiv_" : "tsch_floormod_") + suffix;
      std::string body;
      if (t.is_float()) {
        std::string fl = t.bits == 32 ? "floorf" : "floor";
        body = is_div ? "return " + fl + "(a / b);" : "return a - " + fl + "(a / b) * b;";
      } else if (is_div) {
        // The quotient rounded toward zero, minus one when the remainder's sign differs from b's.
        body = ct + " q = a / b, r = a % b; return q - (" + ct + ")((r != 0) && ((r < 0) != (b < 0)));";
      } else {
        body = ct + " r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;";
      }
      helper(name, "static inline " + ct + " " + name + "(" + ct + " a, " + ct + " b) { " + body + " }");
      return name + "(" + a + ", " + b + ")";
    }
    case ExprKind::Min:
    case ExprKind::Max: {
      bool is_min = kind == ExprKind::Min;
      std::string name = std::string(is_min ? "tsch_min_" : "tsch_max_") + suffix;
      helper(name, "static inline " + ct + " " + name + "(" + ct + " a, " + ct + " b) { return " +
                       (is_min ? "b < a" : "a < b") + " ? b : a; }");
      return name + "(" + a + ", " + b + ")";
    }
    case ExprKind::EQ:
      return infix("==");
    case ExprKind::NE:
      return infix("!=");
    case ExprKind::LT:
      return infix("<");
    case ExprKind::LE:
      return infix("<=");
    case ExprKind::GT:
      return infix(">");
    case ExprKind::GE:
      return infix(">=");
    case ExprKind::And:
      return infix("&&");
    case ExprKind::Or:
      return infix("||");
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Not:
    case ExprKind::Select:
    case ExprKind::Cast:
    case ExprKind::BufferLoad:
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  throw BuildError(std::string("not supported yet: the operator of ") + script(pa) + " in C code generation");
}

std::string CodeGenC::cast(const PrimExpr& value, DataType to) {
  std::string v = expr(value);
  if (value->dtype == to) return v;
  if (to.is_bool()) return "(" + v + " != 0)";
  return "((" + type_of(to) + ")" + v + ")";
}

std::string CodeGenC::load(const BufferLoadNode& n) {
  if (n.indices.size() != 1) throw BuildError("buffer " + n.buffer->name + " is not flattened");
  std::string access = data_of(n.buffer) + "[" + expr(n.indices[0]) + "]";
  return n.dtype.is_bool() ? "(" + access + " != 0)" : access;
}

std::string CodeGenC::call(const CallNode& n) {
  const std::string& op = n.op;
  if (op == "if_then_else") return "(" + expr(n.args[0]) + " ? " + expr(n.args[1]) + " : " + expr(n.args[2]) + ")";
  if (op == "tvm_access_ptr")
    return "((void*)((" + type_of(n.args[0]->dtype) + "*)" + expr(n.args[1]) + " + " + expr(n.args[2]) + "))";
  // T.address_of(A[i]): &A[i] of a flattened buffer (a vector access's first lane).
  if (op == "address_of") {
    auto* load = as<BufferLoadNode>(n.args[0]);
    if (!load || load->indices.size() != 1) throw BuildError("T.address_of takes an element of a flattened buffer");
    auto* ramp = as<RampNode>(load->indices[0]);
    return "(&" + data_of(load->buffer) + "[" + expr(ramp ? ramp->base : load->indices[0]) + "])";
  }
  if (op == "likely") return expr(n.args[0]);
  // TVM's bitwise intrinsics, as C writes them.
  static const std::unordered_map<std::string, std::string> bitwise = {{"bitwise_and", " & "},
                                                                       {"bitwise_or", " | "},
                                                                       {"bitwise_xor", " ^ "},
                                                                       {"shift_left", " << "},
                                                                       {"shift_right", " >> "}};
  if (auto it = bitwise.find(op); it != bitwise.end())
    return "(" + expr(n.args[0]) + it->second + expr(n.args[1]) + ")";
  if (op == "bitwise_not") return "(~" + expr(n.args[0]) + ")";
  if (op == "q_multiply_shift") return expr(ir::expand_q_multiply_shift(n));
  if (op == "q_multiply_shift_per_axis") return expr(ir::expand_q_multiply_shift_per_axis(n));
  static const std::unordered_set<std::string> math = {
      "exp",   "exp2", "log",  "log2",  "log10",   "sqrt",  "fabs",  "floor", "ceil",  "trunc",   "nearbyint",
      "sin",   "cos",  "tanh", "tan",   "asin",    "acos",  "atan",  "sinh",  "cosh",  "erf",     "log1p",
      "atan2", "fmod", "pow",  "round", "sigmoid", "rsqrt", "exp10", "isnan", "isinf", "isfinite"};
  if (op == "popcount") return "((" + type_of(n.dtype) + ")__builtin_popcountll((uint64_t)" + expr(n.args[0]) + "))";
  if (!math.count(op)) return target_call(n);
  DataType t = n.args.at(0)->dtype;
  // float16 / bfloat16 math is computed in float and rounded back (C and CUDA have the float
  // functions for every op; the result is float's, correctly rounded to the narrow type).
  bool narrow = ((t.is_float() && t.bits == 16) || t.is_float8()) && t.lanes == 1;
  if (!narrow && (!t.is_float() || (t.bits != 32 && t.bits != 64)))
    throw BuildError("not supported yet: T." + op + " on " + t.to_string());
  if (narrow) {
    auto widened = std::make_shared<CallNode>(n);
    widened->dtype = n.dtype.is_bool() ? n.dtype : DataType::float32();
    // Cast nodes, not ir::cast: a narrow literal must be rounded to its type before the
    // math, and ir::cast would fold it to a float32 literal of the unrounded value.
    for (auto& a : widened->args) a = std::make_shared<CastNode>(DataType::float32(), a);
    std::string inner = call(*widened);
    return n.dtype.is_bool() ? inner : "((" + type_of(n.dtype) + ")" + inner + ")";
  }
  std::string f = t.bits == 32 ? "f" : "";
  std::vector<std::string> args;
  for (const auto& a : n.args) args.push_back(expr(a));
  if (op == "isnan" || op == "isinf" || op == "isfinite") return "((bool)" + op + "(" + args[0] + "))";
  if (op == "sigmoid")
    return "(" + std::string(f.empty() ? "1.0" : "1.0f") + " / (" + (f.empty() ? "1.0" : "1.0f") + " + exp" + f + "(-" +
           args[0] + ")))";
  if (op == "rsqrt") return "(" + std::string(f.empty() ? "1.0" : "1.0f") + " / sqrt" + f + "(" + args[0] + "))";
  if (op == "exp10") return "pow" + f + "(" + (f.empty() ? "10.0" : "10.0f") + ", " + args[0] + ")";
  // TVM's round rounds half to even, as nearbyint in the default rounding mode.
  std::string name = op == "round" ? "nearbyint" : op;
  std::string text = name + f + "(";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i];
  return text + ")";
}

std::string CodeGenC::target_call(const CallNode& n) {
  throw BuildError("not supported yet: the intrinsic T." + n.op + " in C code generation");
}

// ------------------------------------------------------------------------- statements

void CodeGenC::emit_thread_binding(const ForNode& n) {
  throw BuildError("not supported yet: loop " + n.loop_var->name + " bound to " + n.thread_tag +
                   " in C code for the CPU");
}

void CodeGenC::serial_loop(const ForNode& n, const std::string& pragma) {
  std::string t = type_of(n.loop_var->dtype);
  std::string begin = expr(n.min);
  // A constant range is written in the loop head; another one's end is computed once.
  int64_t lo, extent;
  bool constant = as_const_int(n.min, &lo) && as_const_int(n.extent, &extent);
  std::string end;
  if (constant) {
    end = literal(make_int(lo + extent, n.loop_var->dtype));
  } else {
    end = fresh(sanitize(n.loop_var->name) + "_end");
    line("{");
    ++indent_;
    line(t + " " + end + " = " + begin + " + " + expr(n.extent) + ";");
  }
  if (!pragma.empty()) line(pragma);
  std::string var = define(n.loop_var.get(), n.loop_var->name);
  open_scope("for (" + t + " " + var + " = " + begin + "; " + var + " < " + end + "; ++" + var + ")");
  at_loop_head(n.body);
  stmt(n.body);
  close_scope();
  forget(n.loop_var.get());
  if (!constant) {
    --indent_;
    line("}");
  }
}

void CodeGenC::stmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::BufferStore: {
      auto* n = as<BufferStoreNode>(s);
      if (n->indices.size() != 1) throw BuildError("buffer " + n->buffer->name + " is not flattened");
      if (n->value->dtype.lanes > 1 || n->indices[0]->dtype.lanes > 1) {
        vector_store(*n);
        return;
      }
      std::string value = expr(n->value);
      if (n->value->dtype.is_bool()) value = "(uint8_t)" + value;
      line(data_of(n->buffer) + "[" + expr(n->indices[0]) + "] = " + value + ";");
      return;
    }
    case StmtKind::SeqStmt:
      for (const auto& x : as<SeqStmtNode>(s)->seq) stmt(x);
      return;
    case StmtKind::Evaluate: {
      const PrimExpr& v = as<EvaluateNode>(s)->value;
      if (v->kind == ExprKind::IntImm) return;                        // a no-op left by lowering
      if (auto* c = as<CallNode>(v); c && c->op == "assume") return;  // T.assume: no code
      if (auto* c = as<CallNode>(v); c && emit_call_stmt(*c)) return;
      if (auto* c = as<CallNode>(v); c && c->op == "tvm_storage_sync") {
        line(expr(v) + ";");  // a barrier: a statement, not a value
        return;
      }
      line("(void)" + expr(v) + ";");
      return;
    }
    case StmtKind::LetStmt: {
      auto* n = as<LetStmtNode>(s);
      std::string value = expr(n->value);
      line("{");
      ++indent_;
      line(type_of(n->var->dtype) + " " + define(n->var.get(), n->var->name) + " = " + value + ";");
      if (n->var->dtype.is_handle()) void_pointers_.insert(n->var.get());
      stmt(n->body);
      void_pointers_.erase(n->var.get());
      forget(n->var.get());
      --indent_;
      line("}");
      return;
    }
    case StmtKind::IfThenElse: {
      auto* n = as<IfThenElseNode>(s);
      open_scope("if (" + expr(n->condition) + ")");
      stmt(n->then_case);
      if (n->else_case) {
        --indent_;
        line("} else {");
        ++indent_;
        stmt(n->else_case);
      }
      close_scope();
      return;
    }
    case StmtKind::Allocate:
      emit_allocate(*as<AllocateNode>(s));
      return;
    case StmtKind::DeclBuffer:
      stmt(as<DeclBufferNode>(s)->body);
      return;  // the same data pointer
    case StmtKind::AttrStmt:
      stmt(as<AttrStmtNode>(s)->body);
      return;  // a hint
    case StmtKind::AllocateConst: {
      // A static constant array, as TVM's CodeGenC emits one (it puts it at file scope).
      auto* n = as<AllocateConstNode>(s);
      line("{");
      ++indent_;
      std::string name = define(n->buffer_var.get(), n->buffer_var->name);
      std::string values;
      for (size_t i = 0; i < n->size(); ++i) {
        PrimExpr v = n->dtype.is_float() ? PrimExpr(std::make_shared<FloatImmNode>(n->dtype, n->float_data[i]))
                                         : make_int(n->int_data[i], n->dtype);
        values += (i ? ", " : "") + literal(v);
      }
      line("static const " + memory_type_of(n->dtype) + " " + name + "[" +
           std::to_string(std::max<size_t>(n->size(), 1)) + "] __attribute__((aligned(64))) = {" + values + "};");
      stmt(n->body);
      forget(n->buffer_var.get());
      --indent_;
      line("}");
      return;
    }
    case StmtKind::For: {
      auto* n = as<ForNode>(s);
      TSCH_INTERNAL_ASSERT(n->has_trivial_step())
          << "a loop step reached code generation (tir.CanonicalizeLoop removes them)";
      switch (n->for_kind) {
        case ForKind::Parallel:
          emit_parallel(*n);
          return;
        case ForKind::ThreadBinding:
          emit_thread_binding(*n);
          return;
        default:
          serial_loop(*n);
          return;  // vectorized/unrolled loops: the C compiler decides
      }
    }
    case StmtKind::Block:
    case StmtKind::BlockRealize:
      throw BuildError("internal: a block reached code generation unlowered");
  }
}

}  // namespace tsch::codegen
