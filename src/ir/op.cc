#include "ir/op.h"

#include <cmath>
#include <optional>

#include "ir/expr_equal.h"
#include "ir/module.h"
#include "ir/printer.h"
#include "ir/stmt.h"
#include "support/error.h"
#include "support/float8.h"

namespace tsch::ir {

PrimExpr make_int(int64_t value, DataType dtype) {
  if (dtype.is_float()) return make_float(static_cast<double>(value), dtype);
  return std::make_shared<IntImmNode>(dtype, value);
}

PrimExpr make_float(double value, DataType dtype) { return std::make_shared<FloatImmNode>(dtype, value); }

PrimExpr make_bool(bool value) { return std::make_shared<IntImmNode>(DataType::bool_(), value ? 1 : 0); }

PrimExpr make_const(DataType dtype, double value) {
  if (dtype.is_float()) return make_float(value, dtype);
  if (dtype.is_bool()) return make_bool(value != 0);
  return make_int(static_cast<int64_t>(value), dtype);
}

namespace {
// Round to a binary format of `precision` significand bits whose smallest normal exponent is
// `min_exponent` (as frexp counts it), nearest-even: the default rounding mode of nearbyint.
double round_binary(double value, int precision, int min_exponent, double max_finite) {
  if (!std::isfinite(value) || value == 0) return value;
  int exponent;
  std::frexp(value, &exponent);
  double quantum = std::ldexp(1.0, std::max(exponent, min_exponent) - precision);
  double r = std::nearbyint(value / quantum) * quantum;
  return std::fabs(r) > max_finite ? std::copysign(INFINITY, value) : r;
}
}  // namespace

double represented_value(double value, DataType dtype) {
  switch (dtype.code) {
    case DataType::Code::Float8E4M3FN:
      return support::float8_to_double(support::float8_from_double(value, support::Float8Format::E4M3FN),
                                       support::Float8Format::E4M3FN);
    case DataType::Code::Float8E5M2:
      return support::float8_to_double(support::float8_from_double(value, support::Float8Format::E5M2),
                                       support::Float8Format::E5M2);
    default:
      break;
  }
  if (!dtype.is_float()) return value;
  if (dtype.is_bfloat16()) return round_binary(value, 8, -125, 3.3895313892515355e38);
  if (dtype.bits == 16) return round_binary(value, 11, -13, 65504.0);
  if (dtype.bits == 32) return static_cast<float>(value);
  return value;
}

namespace {
PrimExpr limit_value(DataType t, bool max) {
  if (t.is_float()) {
    // The largest finite value of each format (TVM's max_value).
    double v = t.code == DataType::Code::Float8E4M3FN ? 448.0
               : t.code == DataType::Code::Float8E5M2 ? 57344.0
               : t.code == DataType::Code::BFloat     ? 3.3895313892515355e38
               : t.bits == 16                         ? 65504.0
               : t.bits == 32                         ? 3.4028234663852886e38
                                                      : 1.7976931348623157e308;
    return make_float(max ? v : -v, t);
  }
  if (t.is_bool()) return make_bool(max);
  if (t.is_uint()) return make_int(max ? static_cast<int64_t>((1ull << (t.bits == 64 ? 63 : t.bits)) - 1) : 0, t);
  return make_int(max ? static_cast<int64_t>((1ull << (t.bits - 1)) - 1) : -static_cast<int64_t>(1ull << (t.bits - 1)),
                  t);
}
}  // namespace

PrimExpr min_value(DataType dtype) { return limit_value(dtype, false); }
PrimExpr max_value(DataType dtype) { return limit_value(dtype, true); }

Var make_var(std::string name, DataType dtype) { return std::make_shared<VarNode>(std::move(name), dtype); }

Var make_pointer_var(std::string name, DataType element, std::string scope) {
  if (scope.empty()) scope = "global";
  return std::make_shared<VarNode>(std::move(name), DataType::handle(), false, PointerType{element, std::move(scope)});
}

Var buffer_data_var(std::string name, DataType dtype, std::string scope) {
  // TVM's decl_buffer: booleans are stored as int8.
  return make_pointer_var(std::move(name), dtype.is_bool() ? DataType::int_(8, dtype.lanes) : dtype, std::move(scope));
}

Var copy_var(const VarNode& v, std::string name) {
  return std::make_shared<VarNode>(std::move(name), v.dtype, v.is_size_var, v.type_annotation);
}

Buffer make_buffer(std::string name, DataType dtype, std::vector<PrimExpr> shape, std::string scope) {
  if (scope.empty()) scope = "global";  // TVM's: an empty storage scope is the global one
  auto b = std::make_shared<BufferNode>(std::move(name), dtype, std::move(shape), std::move(scope));
  b->data = buffer_data_var(b->name, b->dtype, b->scope);
  return b;
}

Buffer buffer_with(const Buffer& src, std::string name, std::vector<PrimExpr> shape, std::string scope) {
  auto b = std::make_shared<BufferNode>(*src);
  b->name = std::move(name);
  b->shape = std::move(shape);
  b->scope = scope.empty() ? "global" : std::move(scope);
  b->data = buffer_data_var(b->name, b->dtype, b->scope);
  return b;
}

const AttrValue* find_attr(const AttrMap& attrs, const std::string& key) {
  for (const auto& [k, v] : attrs) {
    if (k == key) return &v;
  }
  return nullptr;
}

void set_attr(AttrMap& attrs, const std::string& key, AttrValue value) {
  for (auto& [k, v] : attrs) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  attrs.emplace_back(key, std::move(value));
}

bool erase_attr(AttrMap& attrs, const std::string& key) {
  for (auto it = attrs.begin(); it != attrs.end(); ++it) {
    if (it->first == key) {
      attrs.erase(it);
      return true;
    }
  }
  return false;
}

Stmt make_seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (auto* seq = as<SeqStmtNode>(s)) {
      flat.insert(flat.end(), seq->seq.begin(), seq->seq.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return std::make_shared<SeqStmtNode>(std::move(flat));
}

PrimExpr stack_array_of(const Buffer& b) {
  PrimExpr zero = b->dtype.is_float() ? make_float(0, b->dtype) : make_int(0, b->dtype);
  PrimExpr offset = b->elem_offset ? b->elem_offset : make_int(0);
  return call(DataType::handle(), "tvm_stack_make_array",
              {b->data, call(DataType::handle(), "tvm_stack_make_shape", b->shape), make_int(0),
               make_int(static_cast<int64_t>(b->shape.size())), zero, offset});
}

const BufferNode* buffer_of_stack_array(const PrimExpr& e,
                                        const std::function<const BufferNode*(const VarNode*)>& owner) {
  auto* c = as<CallNode>(e);
  if (!c || c->op != "tvm_stack_make_array" || c->args.size() != 6) return nullptr;
  auto* data = as<VarNode>(c->args[0]);
  auto* shape = as<CallNode>(c->args[1]);
  const BufferNode* b = data ? owner(data) : nullptr;
  if (!b || !shape || shape->op != "tvm_stack_make_shape" || shape->args.size() != b->shape.size()) return nullptr;
  for (size_t i = 0; i < b->shape.size(); ++i) {
    if (!expr_deep_equal(shape->args[i], b->shape[i])) return nullptr;
  }
  auto* fzero = as<FloatImmNode>(c->args[4]);
  bool zero_of_dtype = c->args[4]->dtype == b->dtype && (is_zero(c->args[4]) || (fzero && fzero->value == 0));
  bool zero_offset = !b->elem_offset || is_zero(b->elem_offset);
  if (!is_zero(c->args[2]) || !is_const_int(c->args[3], static_cast<int64_t>(b->shape.size())) || !zero_of_dtype ||
      !zero_offset || !is_zero(c->args[5]))
    return nullptr;
  return b;
}

bool as_const_int(const PrimExpr& e, int64_t* out) {
  if (auto* imm = as<IntImmNode>(e)) {
    *out = imm->value;
    return true;
  }
  return false;
}

bool is_const_int(const PrimExpr& e, int64_t value) {
  int64_t v;
  return as_const_int(e, &v) && v == value;
}
bool is_one(const PrimExpr& e) { return is_const_int(e, 1); }
bool is_zero(const PrimExpr& e) { return is_const_int(e, 0); }

namespace {

bool is_comparison(ExprKind k) { return k >= ExprKind::EQ && k <= ExprKind::GE; }

const char* op_name(ExprKind k) {
  switch (k) {
    case ExprKind::Add:
      return "+";
    case ExprKind::Sub:
      return "-";
    case ExprKind::Mul:
      return "*";
    case ExprKind::Div:
      return "/";
    case ExprKind::Mod:
      return "truncmod";
    case ExprKind::FloorDiv:
      return "//";
    case ExprKind::FloorMod:
      return "%";
    case ExprKind::Min:
      return "min";
    case ExprKind::Max:
      return "max";
    case ExprKind::And:
      return "and";
    case ExprKind::Or:
      return "or";
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
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
  return "comparison";
}

// A literal takes the other operand's type (Python ints and floats in IR expressions).
PrimExpr adapt_literal(const PrimExpr& lit, DataType target) {
  if (auto* i = as<IntImmNode>(lit)) return make_const(target, static_cast<double>(i->value));
  if (auto* f = as<FloatImmNode>(lit)) {
    if (target.is_float()) return make_float(f->value, target);
  }
  return cast(target, lit);
}

bool is_literal(const PrimExpr& e) { return e->kind == ExprKind::IntImm || e->kind == ExprKind::FloatImm; }

// TVM's BinaryOpMatchTypes: make both operands the same dtype.
void match_types(ExprKind kind, PrimExpr& a, PrimExpr& b) {
  DataType ta = a->dtype, tb = b->dtype;
  if (ta == tb) return;
  if (ta.lanes != tb.lanes) {
    if (ta.lanes == 1)
      a = std::make_shared<BroadcastNode>(a, tb.lanes);
    else if (tb.lanes == 1)
      b = std::make_shared<BroadcastNode>(b, ta.lanes);
    else
      throw IRError(IRError::Kind::Type, "cannot combine vectors of " + std::to_string(ta.lanes) + " and " +
                                             std::to_string(tb.lanes) + " lanes");
    ta = a->dtype;
    tb = b->dtype;
    if (ta == tb) return;
  }
  if (kind == ExprKind::And || kind == ExprKind::Or) {
    if (!ta.is_bool()) a = cast(DataType::bool_(ta.lanes), a);
    if (!tb.is_bool()) b = cast(DataType::bool_(tb.lanes), b);
    return;
  }
  // A literal adapts to the other side, unless that would lose a float.
  if (is_literal(b) && !(tb.is_float() && !ta.is_float())) {
    b = adapt_literal(b, ta);
    return;
  }
  if (is_literal(a) && !(ta.is_float() && !tb.is_float())) {
    a = adapt_literal(a, tb);
    return;
  }
  if (ta.is_float() && !tb.is_float()) {
    b = cast(ta, b);
  } else if (tb.is_float() && !ta.is_float()) {
    a = cast(tb, a);
  } else if (ta.is_bool() != tb.is_bool()) {
    if (ta.is_bool())
      a = cast(tb, a);
    else
      b = cast(ta, b);
  } else if (ta.code == tb.code || (ta.is_integer() && tb.is_integer())) {
    // Widen the narrower operand; int and uint of equal width combine as int.
    if (ta.bits < tb.bits)
      a = cast(tb, a);
    else if (tb.bits < ta.bits)
      b = cast(ta, b);
    else if (ta.is_uint())
      a = cast(tb, a);
    else
      b = cast(ta, b);
  } else {
    throw IRError(IRError::Kind::Type, std::string("cannot match types ") + ta.to_string() + " and " + tb.to_string() +
                                           " in " + op_name(kind));
  }
}

template <typename T>
T fold_int(ExprKind kind, T x, T y, bool& ok) {
  ok = true;
  switch (kind) {
    // Wrapping, as the generated code's arithmetic does (overflow of a signed type is
    // undefined in C++, so the operations go through the unsigned type).
    case ExprKind::Add:
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) + static_cast<std::make_unsigned_t<T>>(y));
    case ExprKind::Sub:
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) - static_cast<std::make_unsigned_t<T>>(y));
    case ExprKind::Mul:
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) * static_cast<std::make_unsigned_t<T>>(y));
    case ExprKind::Min:
      return std::min(x, y);
    case ExprKind::Max:
      return std::max(x, y);
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::And:
    case ExprKind::Or:
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
  ok = false;
  return 0;
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// A comparison of two constants; nullopt for other kinds.
template <typename T>
std::optional<bool> fold_comparison(ExprKind kind, T x, T y) {
  switch (kind) {
    case ExprKind::EQ:
      return x == y;
    case ExprKind::NE:
      return x != y;
    case ExprKind::LT:
      return x < y;
    case ExprKind::LE:
      return x <= y;
    case ExprKind::GT:
      return x > y;
    case ExprKind::GE:
      return x >= y;
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::And:
    case ExprKind::Or:
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
  return std::nullopt;
}

// Two integer constants folded; null when `kind` does not fold them.
PrimExpr fold_int_constants(ExprKind kind, int64_t x, int64_t y, DataType t) {
  bool ok = false;
  int64_t r = fold_int(kind, x, y, ok);
  if (ok) return make_int(r, t);
  if (auto c = fold_comparison(kind, x, y)) return make_bool(*c);
  switch (kind) {
    case ExprKind::Div:
      return make_int(x / y, t);
    case ExprKind::Mod:
      return make_int(x % y, t);
    case ExprKind::FloorDiv:
      return make_int(floor_div(x, y), t);
    case ExprKind::FloorMod:
      return make_int(x - floor_div(x, y) * y, t);
    case ExprKind::And:
      return make_bool(x && y);
    case ExprKind::Or:
      return make_bool(x || y);
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
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
  return nullptr;
}

// Two float constants folded; null when `kind` does not fold them.
PrimExpr fold_float_constants(ExprKind kind, const PrimExpr& a, const PrimExpr& b, double fa, double fb) {
  DataType t = a->dtype;
  // Comparisons of float constants fold too, as TVM's TryConstFold does, on the values the
  // literals hold in their type.
  double x = represented_value(fa, t), y = represented_value(fb, t);
  if (auto c = fold_comparison(kind, x, y)) return make_bool(*c);
  if (kind == ExprKind::Min) return std::min(x, y) == x ? a : b;
  if (kind == ExprKind::Max) return std::max(x, y) == x ? a : b;
  // Arithmetic folds in float32 or float64 only, computed in that type (TVM's rule): a
  // narrower type's result is rounded after each operation where the code runs.
  if (t.bits == 32 || t.bits == 64) {
    auto in_type = [&](double r) { return t.bits == 32 ? static_cast<double>(static_cast<float>(r)) : r; };
    switch (kind) {
      case ExprKind::Add:
        return make_float(in_type(x + y), t);
      case ExprKind::Sub:
        return make_float(in_type(x - y), t);
      case ExprKind::Mul:
        return make_float(in_type(x * y), t);
      case ExprKind::Div:
        if (y != 0) return make_float(in_type(x / y), t);
        break;
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::StringImm:
      case ExprKind::Var:
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
  }
  return nullptr;
}

// The identities (integers only where floats would change NaN/sign semantics): `x + 0`,
// `x * 1`, `x // 1`, `true and x`, ...; null when none applies.
PrimExpr fold_identity(ExprKind kind, const PrimExpr& a, const PrimExpr& b) {
  DataType t = a->dtype;
  auto* ia = as<IntImmNode>(a);
  auto* ib = as<IntImmNode>(b);
  auto* fa = as<FloatImmNode>(a);
  auto* fb = as<FloatImmNode>(b);
  switch (kind) {
    case ExprKind::Add:
      if ((ia && ia->value == 0) || (fa && fa->value == 0)) return b;
      if ((ib && ib->value == 0) || (fb && fb->value == 0)) return a;
      break;
    case ExprKind::Sub:
      if ((ib && ib->value == 0) || (fb && fb->value == 0)) return a;
      break;
    case ExprKind::Mul:
      if ((ia && ia->value == 1) || (fa && fa->value == 1)) return b;
      if ((ib && ib->value == 1) || (fb && fb->value == 1)) return a;
      if (ia && ia->value == 0) return a;
      if (ib && ib->value == 0) return b;
      break;
    case ExprKind::FloorDiv:
    case ExprKind::Div:
      if (ib && ib->value == 1) return a;
      break;
    case ExprKind::FloorMod:
    case ExprKind::Mod:
      if (ib && ib->value == 1) return make_int(0, t);
      break;
    case ExprKind::And:
      if (ia) return ia->value ? b : a;
      if (ib) return ib->value ? a : b;
      break;
    case ExprKind::Or:
      if (ia) return ia->value ? a : b;
      if (ib) return ib->value ? b : a;
      break;
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
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
  return nullptr;
}

// TVM's TryConstFold: fold constants and the identities that keep printed IR tidy.
PrimExpr try_fold(ExprKind kind, const PrimExpr& a, const PrimExpr& b) {
  DataType t = a->dtype;
  auto* ia = as<IntImmNode>(a);
  auto* ib = as<IntImmNode>(b);
  auto* fa = as<FloatImmNode>(a);
  auto* fb = as<FloatImmNode>(b);
  bool divide =
      kind == ExprKind::Div || kind == ExprKind::Mod || kind == ExprKind::FloorDiv || kind == ExprKind::FloorMod;
  if (divide && ((ib && ib->value == 0) || (fb && fb->value == 0 && kind != ExprKind::Div))) {
    throw IRError(IRError::Kind::Value, "Divide by zero");
  }
  if (ia && ib && t.is_scalar()) {
    if (PrimExpr r = fold_int_constants(kind, ia->value, ib->value, t)) return r;
  }
  if (fa && fb && t.is_scalar()) {
    if (PrimExpr r = fold_float_constants(kind, a, b, fa->value, fb->value)) return r;
  }
  return fold_identity(kind, a, b);
}

}  // namespace

PrimExpr make_binary(ExprKind kind, PrimExpr a, PrimExpr b) {
  if (a->dtype.is_handle() || b->dtype.is_handle()) {
    throw IRError(IRError::Kind::Type, std::string("unsupported operand type handle for ") + op_name(kind));
  }
  match_types(kind, a, b);
  if (PrimExpr folded = try_fold(kind, a, b)) return folded;
  DataType result =
      is_comparison(kind) || kind == ExprKind::And || kind == ExprKind::Or ? DataType::bool_(a->dtype.lanes) : a->dtype;
  switch (kind) {
#define TSCH_CASE(K) \
  case ExprKind::K:  \
    return std::make_shared<BinaryNode<ExprKind::K>>(result, std::move(a), std::move(b));
    TSCH_IR_BINARY_KINDS(TSCH_CASE)
#undef TSCH_CASE
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
  throw IRError(IRError::Kind::Type, "not a binary operator");
}

PrimExpr div(PrimExpr a, PrimExpr b) {
  // Python `/` on integer IR is TVM's truncating Div; a float on either side makes it float.
  return make_binary(ExprKind::Div, std::move(a), std::move(b));
}

namespace {

// How TVM's operand checks name a bit operator.
std::string bit_operator_name(const std::string& op) {
  if (op == "bitwise_and") return "& operator (bitwise AND)";
  if (op == "bitwise_or") return "| operator (bitwise OR)";
  if (op == "bitwise_xor") return "^ operator (bitwise XOR)";
  if (op == "shift_left") return "<< operator (left shift)";
  if (op == "shift_right") return ">> operator (right shift)";
  return "~ operator (bitwise NOT)";
}

}  // namespace

PrimExpr bitwise(const std::string& op, PrimExpr a, PrimExpr b) {
  auto integral = [](const DataType& t) { return (t.is_int() || t.is_uint()) && !t.is_bool(); };
  for (const auto& [side, e] : {std::pair{"LHS", &a}, std::pair{"RHS", &b}}) {
    if (!integral((*e)->dtype))
      throw IRError(IRError::Kind::Type, std::string("Expected integer argument as ") + side + " of " +
                                             bit_operator_name(op) + ", but received " + script(*e) + " of type " +
                                             (*e)->dtype.to_string());
  }
  match_types(ExprKind::Add, a, b);  // the arithmetic operators' common type
  auto* x = as<IntImmNode>(a);
  auto* y = as<IntImmNode>(b);
  if (y && (op == "shift_left" || op == "shift_right") && (y->value < 0 || y->value >= a->dtype.bits)) {
    throw IRError(IRError::Kind::Value, "Shift amount must be non-negative and less than " +
                                            std::to_string(a->dtype.bits) + " for type " + a->dtype.to_string());
  }
  if (x && y && y->value >= 0 && y->value < 64) {
    int64_t u = x->value, v = y->value, r = 0;
    if (op == "bitwise_and")
      r = u & v;
    else if (op == "bitwise_or")
      r = u | v;
    else if (op == "bitwise_xor")
      r = u ^ v;
    else if (op == "shift_left")
      r = static_cast<int64_t>(static_cast<uint64_t>(u) << v);
    else if (op == "shift_right")
      r = u >> v;
    return make_int(r, a->dtype);
  }
  DataType t = a->dtype;
  return std::make_shared<CallNode>(t, op, std::vector<PrimExpr>{std::move(a), std::move(b)});
}

PrimExpr bitwise_not(PrimExpr a) {
  if (!(a->dtype.is_int() || a->dtype.is_uint()) || a->dtype.is_bool())
    throw IRError(IRError::Kind::Type, "Expected integer argument for " + bit_operator_name("bitwise_not") +
                                           ", but received " + script(a) + " of type " + a->dtype.to_string());
  if (auto* x = as<IntImmNode>(a)) return make_int(~x->value, a->dtype);
  DataType t = a->dtype;
  return std::make_shared<CallNode>(t, "bitwise_not", std::vector<PrimExpr>{std::move(a)});
}

PrimExpr logical_not(PrimExpr a) {
  if (auto* i = as<IntImmNode>(a)) return make_bool(i->value == 0);
  if (!a->dtype.is_bool()) a = cast(DataType::bool_(a->dtype.lanes), a);
  return std::make_shared<NotNode>(std::move(a));
}

PrimExpr neg(PrimExpr a) {
  if (auto* i = as<IntImmNode>(a)) return make_int(-i->value, a->dtype);
  if (auto* f = as<FloatImmNode>(a)) return make_float(-f->value, a->dtype);
  return sub(make_const(a->dtype, 0), a);
}

PrimExpr cast(DataType dtype, PrimExpr value) {
  if (value->dtype == dtype) return value;
  if (value->dtype.is_handle() && !dtype.is_handle())
    throw IRError(IRError::Kind::Value, "Can't cast a handle to other types.");
  // A scalar cast to a vector type is broadcast, as TVM's cast does.
  if (value->dtype.lanes == 1 && dtype.lanes > 1) {
    return std::make_shared<BroadcastNode>(cast(dtype.element_of(), std::move(value)), dtype.lanes);
  }
  if (auto* i = as<IntImmNode>(value)) {
    if (dtype.is_scalar()) return make_const(dtype, static_cast<double>(i->value));
  }
  if (auto* f = as<FloatImmNode>(value)) {
    if (dtype.is_float() && dtype.is_scalar()) return make_float(represented_value(f->value, f->dtype), dtype);
  }
  return std::make_shared<CastNode>(dtype, std::move(value));
}

PrimExpr select(PrimExpr cond, PrimExpr t, PrimExpr f) {
  match_types(ExprKind::Add, t, f);
  return std::make_shared<SelectNode>(std::move(cond), std::move(t), std::move(f));
}

PrimExpr call(DataType dtype, std::string op, std::vector<PrimExpr> args) {
  return std::make_shared<CallNode>(dtype, std::move(op), std::move(args));
}

PrimExpr buffer_load(const Buffer& buffer, std::vector<PrimExpr> indices) {
  // A vector index (T.Ramp) loads a vector.
  int lanes = 1;
  for (const auto& i : indices) lanes = std::max(lanes, static_cast<int>(i->dtype.lanes));
  return std::make_shared<BufferLoadNode>(buffer->dtype.with_lanes(lanes * buffer->dtype.lanes), buffer,
                                          std::move(indices));
}

namespace {

// TVM's QMultiplyShift: (x << left if shifting left) * y, rounded, >> (right + q), in int64.
PrimExpr fixed_point_multiply(const CallNode& call, const PrimExpr& x32, const PrimExpr& y32, const PrimExpr& q,
                              const PrimExpr& left, const PrimExpr& right, const PrimExpr& shift_left) {
  DataType wide = DataType::int64().with_lanes(x32->dtype.lanes);
  PrimExpr x = cast(wide, x32), y = cast(wide, y32);
  x = select(shift_left, bitwise("shift_left", x, cast(wide, left)), x);
  x = mul(x, y);
  PrimExpr total = cast(wide, add(right, q));
  x = add(x, bitwise("shift_left", make_int(1, wide), sub(total, make_int(1, wide))));
  return cast(call.dtype, bitwise("shift_right", x, total));
}

}  // namespace

PrimExpr expand_q_multiply_shift(const CallNode& call) {
  TSCH_USER_ASSERT(call.args.size() == 4, TypeError)
      << "T.q_multiply_shift takes 4 arguments (x, y, q, s), got " << call.args.size();
  for (const auto& a : call.args) {
    TSCH_USER_ASSERT(a->dtype.is_int() && a->dtype.bits == 32, TypeError)
        << "T.q_multiply_shift works on int32 values, got " << a->dtype.to_string();
  }
  const PrimExpr& s = call.args[3];
  PrimExpr zero = make_int(0, s->dtype);
  PrimExpr left = select(make_binary(ExprKind::GT, s, zero), s, zero);
  PrimExpr right = select(make_binary(ExprKind::GT, s, zero), zero, sub(zero, s));
  return fixed_point_multiply(call, call.args[0], call.args[1], call.args[2], left, right,
                              make_binary(ExprKind::NE, left, zero));
}

PrimExpr expand_q_multiply_shift_per_axis(const CallNode& call) {
  TSCH_USER_ASSERT(call.args.size() == 7, TypeError)
      << "T.q_multiply_shift_per_axis takes 7 arguments (x, y, ls, rs, q, is_lshift_required, is_rshift_required), got "
      << call.args.size();
  for (size_t i = 0; i < 5; ++i) {
    TSCH_USER_ASSERT(call.args[i]->dtype.is_int() && call.args[i]->dtype.bits == 32, TypeError)
        << "T.q_multiply_shift_per_axis works on int32 values, got " << call.args[i]->dtype.to_string();
  }
  // is_rshift_required is not needed: a right shift by 0 changes nothing (as in TVM's lowering).
  PrimExpr shift_left = call.args[5];
  if (!shift_left->dtype.is_bool()) shift_left = make_binary(ExprKind::NE, shift_left, make_int(0, shift_left->dtype));
  return fixed_point_multiply(call, call.args[0], call.args[1], call.args[4], call.args[2], call.args[3], shift_left);
}

}  // namespace tsch::ir
