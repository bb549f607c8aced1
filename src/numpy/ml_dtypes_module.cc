// The built-in `ml_dtypes` module: the float8 scalar types TVM's tests name
// (`ml_dtypes.float8_e4m3fn`, `ml_dtypes.float8_e5m2`), usable wherever numpy takes a dtype,
// and `ml_dtypes.finfo` for them (ml_dtypes/_finfo.py's values, as float8 scalars).
#include <cmath>
#include <cstdio>

#include "numpy/array_format.h"
#include "numpy/ndarray_value.h"
#include "numpy/numpy_modules.h"
#include "script/modules.h"
#include "script/types.h"
#include "support/float8.h"

namespace tsch::bindings {

using ir::DataType;
using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

// np.finfo of a float8 dtype, as ml_dtypes builds it (_float8_e4m3fn_finfo, _float8_e5m2_finfo).
class FinfoValue : public script::Object {
 public:
  explicit FinfoValue(DataType t) : dtype(t) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    // np.finfo.__repr__ with ml_dtypes' fields: the resolution as its scalar prints, min and
    // max through `"%6.2e" % float(f)` (its float_to_str).
    char min[32], max_text[32];
    std::snprintf(min, sizeof min, "%6.2e", -max());
    std::snprintf(max_text, sizeof max_text, "%6.2e", max());
    return "finfo(resolution=" + float8_scalar_text(scalar(0.1)) + ", min=" + min + ", max=" + max_text +
           ", dtype=" + dtype_name(dtype) + ")";
  }

  DataType dtype;

  const support::Float8Layout& layout() const { return support::float8_layout(format()); }
  support::Float8Format format() const {
    return dtype.code == DataType::Code::Float8E5M2 ? support::Float8Format::E5M2 : support::Float8Format::E4M3FN;
  }
  double max() const { return support::float8_to_double(layout().max_finite, format()); }
  // `v` as a float8 scalar of this dtype, rounded as ml_dtypes' constructor rounds a float.
  double scalar(double v) const {
    return support::float8_to_double(support::float8_from_double(v, format()), format());
  }
  Value scalar_value(double v) const {
    auto a = runtime::make_array(dtype, {});
    a->set_f(0, v);
    return array_or_scalar(a);
  }
};

TypeObject* FinfoValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("finfo");
    t->set_module("numpy");
    auto self = [](const Value& v) -> const FinfoValue& { return *v.as<FinfoValue>(); };
    t->def_property("dtype", [self](Interpreter&, const Value& v) {
      return Value(std::make_shared<DTypeValue>(self(v).dtype, false));
    });
    t->def_property("bits", [](Interpreter&, const Value&) { return Value::integer(8); });
    t->def_property("nmant",
                    [self](Interpreter&, const Value& v) { return Value::integer(self(v).layout().mantissa_bits); });
    t->def_property(
        "nexp", [self](Interpreter&, const Value& v) { return Value::integer(7 - self(v).layout().mantissa_bits); });
    t->def_property(
        "minexp", [self](Interpreter&, const Value& v) { return Value::integer(1 - self(v).layout().exponent_bias); });
    t->def_property("maxexp",
                    [self](Interpreter&, const Value& v) { return Value::integer(std::ilogb(self(v).max()) + 1); });
    t->def_property("precision", [](Interpreter&, const Value&) { return Value::integer(1); });
    t->def_property("eps", [self](Interpreter&, const Value& v) {
      return self(v).scalar_value(std::ldexp(1.0, -self(v).layout().mantissa_bits));
    });
    t->def_property("epsneg", [self](Interpreter&, const Value& v) {
      return self(v).scalar_value(std::ldexp(1.0, -self(v).layout().mantissa_bits - 1));
    });
    t->def_property("max", [self](Interpreter&, const Value& v) { return self(v).scalar_value(self(v).max()); });
    t->def_property("min", [self](Interpreter&, const Value& v) { return self(v).scalar_value(-self(v).max()); });
    auto tiny = [self](Interpreter&, const Value& v) {
      return self(v).scalar_value(std::ldexp(1.0, 1 - self(v).layout().exponent_bias));
    };
    t->def_property("tiny", tiny);
    t->def_property("smallest_normal", tiny);
    t->def_property("smallest_subnormal", [self](Interpreter&, const Value& v) {
      const FinfoValue& f = self(v);
      return f.scalar_value(std::ldexp(1.0, 1 - f.layout().exponent_bias - f.layout().mantissa_bits));
    });
    t->def_property("resolution", [self](Interpreter&, const Value& v) { return self(v).scalar_value(0.1); });
    return t;
  }();
  return t.get();
}

void build_ml_dtypes(Interpreter&, script::Module& m) {
  script::Namespace& ns = *m.globals;
  for (DataType t : {DataType::float8_e4m3fn(), DataType::float8_e5m2()})
    ns.set(intern(dtype_name(t)), Value(std::make_shared<DTypeValue>(t, true)));
  ns.set(intern("__version__"), script::make_str("0.5.0-tsch"));
  script::def_function(ns, "finfo", "dtype", [](Interpreter& interp, Args& a) {
    DataType t = dtype_arg(interp, a[0]);
    if (!t.is_float8())
      raise(ExcKind::NotImplementedError,
            "not supported yet: ml_dtypes.finfo of " + dtype_name(t) + " (only of the float8 dtypes)");
    return Value(std::make_shared<FinfoValue>(t));
  });
}

}  // namespace

void register_ml_dtypes_module() { script::ModuleLoader::register_builtin("ml_dtypes", build_ml_dtypes); }

}  // namespace tsch::bindings
