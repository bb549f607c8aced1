// The modules `numpy` (numpy_module.cc) and `ml_dtypes` (ml_dtypes_module.cc): each registers
// itself with script::ModuleLoader.
#pragma once

namespace tsch::bindings {

void register_numpy_module();
void register_ml_dtypes_module();

}  // namespace tsch::bindings
