// The `math` module: constants and the common functions of Python's math.
#include <cmath>
#include <numeric>

#include "bindings/python/python_modules.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"

namespace tsch::script {
namespace {

void unary(Namespace& ns, const char* name, double (*fn)(double), bool positive_domain = false) {
  def_function(ns, name, "x", [fn, positive_domain, name](Interpreter&, Args& a) {
    double x = a.get_float(0);
    if (positive_domain && x <= 0 && std::string(name) != "sqrt") raise(ExcKind::ValueError, "math domain error");
    if (positive_domain && x < 0) raise(ExcKind::ValueError, "math domain error");
    return Value::real(fn(x));
  });
}

}  // namespace

void register_math_module() {
  ModuleLoader::register_builtin("math", [](Interpreter&, Module& m) {
    Namespace& ns = *m.globals;
    ns.set(intern("pi"), Value::real(M_PI));
    ns.set(intern("e"), Value::real(M_E));
    ns.set(intern("tau"), Value::real(2 * M_PI));
    ns.set(intern("inf"), Value::real(INFINITY));
    ns.set(intern("nan"), Value::real(NAN));
    unary(ns, "sqrt", [](double x) { return std::sqrt(x); }, true);
    unary(ns, "exp", [](double x) { return std::exp(x); });
    unary(ns, "log2", [](double x) { return std::log2(x); }, true);
    unary(ns, "log10", [](double x) { return std::log10(x); }, true);
    unary(ns, "sin", [](double x) { return std::sin(x); });
    unary(ns, "cos", [](double x) { return std::cos(x); });
    unary(ns, "tan", [](double x) { return std::tan(x); });
    unary(ns, "tanh", [](double x) { return std::tanh(x); });
    unary(ns, "atan", [](double x) { return std::atan(x); });
    unary(ns, "fabs", [](double x) { return std::fabs(x); });
    def_function(ns, "log", "x, base=None", [](Interpreter&, Args& a) {
      double x = a.get_float(0);
      if (x <= 0) raise(ExcKind::ValueError, "math domain error");
      double r = std::log(x);
      if (!a[1].is_none()) r /= std::log(a.get_float(1));
      return Value::real(r);
    });
    def_function(ns, "floor", "x", [](Interpreter&, Args& a) {
      if (a[0].is_integral()) return Value::integer(a[0].as_int());
      return Value::integer(static_cast<int64_t>(std::floor(a.get_float(0))));
    });
    def_function(ns, "ceil", "x", [](Interpreter&, Args& a) {
      if (a[0].is_integral()) return Value::integer(a[0].as_int());
      return Value::integer(static_cast<int64_t>(std::ceil(a.get_float(0))));
    });
    def_function(ns, "pow", "x, y",
                 [](Interpreter&, Args& a) { return Value::real(std::pow(a.get_float(0), a.get_float(1))); });
    def_function(ns, "isnan", "x", [](Interpreter&, Args& a) { return Value::boolean(std::isnan(a.get_float(0))); });
    def_function(ns, "isinf", "x", [](Interpreter&, Args& a) { return Value::boolean(std::isinf(a.get_float(0))); });
    def_function(ns, "isfinite", "x",
                 [](Interpreter&, Args& a) { return Value::boolean(std::isfinite(a.get_float(0))); });
    def_function(ns, "isclose", "a, b, *, rel_tol=1e-09, abs_tol=0.0", [](Interpreter&, Args& a) {
      double x = a.get_float(0), y = a.get_float(1);
      double diff = std::fabs(x - y);
      return Value::boolean(x == y ||
                            diff <= std::max(a.get_float(2) * std::max(std::fabs(x), std::fabs(y)), a.get_float(3)));
    });
    def_function(ns, "gcd", "a, b",
                 [](Interpreter&, Args& a) { return Value::integer(std::gcd(a.get_int(0), a.get_int(1))); });
    def_function(ns, "prod", "iterable", [](Interpreter& interp, Args& a) {
      Value total = Value::integer(1);
      interp.for_each(a[0], [&](const Value& v) {
        total = interp.binary_op(ast::BinOpKind::Mul, total, v);
        return true;
      });
      return total;
    });
  });
}

}  // namespace tsch::script
