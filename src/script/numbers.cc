#include "script/numbers.h"

#include <cmath>

#include "script/exceptions.h"
#include "script/types.h"

namespace tsch::script {
namespace {

[[noreturn]] void overflow() { raise(ExcKind::OverflowError, "integer overflow: the result does not fit in 64 bits"); }

}  // namespace

int64_t int_floordiv(int64_t a, int64_t b) {
  if (a == INT64_MIN && b == -1) overflow();
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t int_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double float_floordiv(double a, double b) { return std::floor(a / b); }

double float_mod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  if (r == 0) r = std::copysign(0.0, b);
  return r;
}

int64_t int_pow(int64_t base, int64_t exp) {
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) {
      if (__builtin_mul_overflow(result, base, &result)) overflow();
    }
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) overflow();
  }
  return result;
}

double round_half_even(double value, int64_t digits) {
  double scale = std::pow(10.0, static_cast<double>(digits));
  double scaled = value * scale;
  if (!std::isfinite(scaled)) return value;
  double rounded = std::nearbyint(scaled);  // default rounding mode: half to even
  return rounded / scale;
}

bool numeric_binary(ast::BinOpKind op, const Value& a, const Value& b, Value& out) {
  using K = ast::BinOpKind;
  if (!a.is_number() || !b.is_number()) return false;
  // NumPy scalars compute in their dtype: their type's operators do it.
  if ((a.numpy_dtype() | b.numpy_dtype()) != 0) return false;
  if (a.is_integral() && b.is_integral()) {
    int64_t x = a.as_int(), y = b.as_int(), r = 0;
    switch (op) {
      case K::Add:
        if (__builtin_add_overflow(x, y, &r)) overflow();
        out = Value::integer(r);
        return true;
      case K::Sub:
        if (__builtin_sub_overflow(x, y, &r)) overflow();
        out = Value::integer(r);
        return true;
      case K::Mul:
        if (__builtin_mul_overflow(x, y, &r)) overflow();
        out = Value::integer(r);
        return true;
      case K::Div:
        if (y == 0) raise(ExcKind::ZeroDivisionError, "division by zero");
        out = Value::real(static_cast<double>(x) / static_cast<double>(y));
        return true;
      case K::FloorDiv:
        if (y == 0) raise(ExcKind::ZeroDivisionError, "integer division or modulo by zero");
        out = Value::integer(int_floordiv(x, y));
        return true;
      case K::Mod:
        if (y == 0) raise(ExcKind::ZeroDivisionError, "integer division or modulo by zero");
        out = Value::integer(int_mod(x, y));
        return true;
      case K::Pow:
        if (y < 0) {
          if (x == 0) raise(ExcKind::ZeroDivisionError, "0.0 cannot be raised to a negative power");
          out = Value::real(std::pow(static_cast<double>(x), static_cast<double>(y)));
        } else {
          out = Value::integer(int_pow(x, y));
        }
        return true;
      case K::LShift:
        if (y < 0) raise(ExcKind::ValueError, "negative shift count");
        if (y >= 63 || (x != 0 && (x > (INT64_MAX >> y) || x < (INT64_MIN >> y)))) {
          if (x != 0) overflow();
        }
        out = Value::integer(y >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) << y));
        return true;
      case K::RShift:
        if (y < 0) raise(ExcKind::ValueError, "negative shift count");
        out = Value::integer(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
        return true;
      case K::BitAnd:
        out = (a.is_bool() && b.is_bool()) ? Value::boolean(a.as_bool() && b.as_bool()) : Value::integer(x & y);
        return true;
      case K::BitOr:
        out = (a.is_bool() && b.is_bool()) ? Value::boolean(a.as_bool() || b.as_bool()) : Value::integer(x | y);
        return true;
      case K::BitXor:
        out = (a.is_bool() && b.is_bool()) ? Value::boolean(a.as_bool() != b.as_bool()) : Value::integer(x ^ y);
        return true;
      case K::MatMul:
        return false;
    }
    return false;
  }
  double x = a.as_float(), y = b.as_float();
  switch (op) {
    case K::Add:
      out = Value::real(x + y);
      return true;
    case K::Sub:
      out = Value::real(x - y);
      return true;
    case K::Mul:
      out = Value::real(x * y);
      return true;
    case K::Div:
      if (y == 0) raise(ExcKind::ZeroDivisionError, "float division by zero");
      out = Value::real(x / y);
      return true;
    case K::FloorDiv:
      if (y == 0) raise(ExcKind::ZeroDivisionError, "float floor division by zero");
      out = Value::real(float_floordiv(x, y));
      return true;
    case K::Mod:
      if (y == 0) raise(ExcKind::ZeroDivisionError, "float modulo");
      out = Value::real(float_mod(x, y));
      return true;
    case K::Pow: {
      if (x == 0 && y < 0) raise(ExcKind::ZeroDivisionError, "0.0 cannot be raised to a negative power");
      if (x < 0 && y != std::floor(y)) {
        raise(ExcKind::ValueError,
              "negative number cannot be raised to a fractional power (complex numbers are not supported)");
      }
      double r = std::pow(x, y);
      if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
        raise(ExcKind::OverflowError, "(34, 'Numerical result out of range')");
      out = Value::real(r);
      return true;
    }
    default:
      return false;
  }
}

void install_number_methods(TypeObject& int_type, TypeObject& float_type) {
  int_type.def("bit_length", "self", [](Interpreter&, Args& a) {
    int64_t v = a[0].as_int();
    uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    int64_t n = 0;
    while (m) {
      ++n;
      m >>= 1;
    }
    return Value::integer(n);
  });
  float_type.def("is_integer", "self", [](Interpreter&, Args& a) {
    double v = a[0].as_float();
    return Value::boolean(std::isfinite(v) && v == std::floor(v));
  });
}

}  // namespace tsch::script
