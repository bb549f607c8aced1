#include "bindings/builtin_modules.h"

#include <mutex>

#include "bindings/python/python_modules.h"
#include "bindings/tvm/arith/arith_module.h"
#include "numpy/numpy_modules.h"

namespace tsch::bindings {
void register_tvm_modules();
}  // namespace tsch::bindings

namespace tsch::script {

void register_builtin_modules() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_sys_module();
    register_math_module();
    register_time_module();
    register_inspect_module();
    register_gc_module();
    bindings::register_tvm_modules();
    bindings::register_numpy_module();
    bindings::register_ml_dtypes_module();
    bindings::register_arith_module();
    register_not_supported_names();
  });
}

}  // namespace tsch::script
