// tvm.build / tvm.compile / tvm.lower (tvm_build.cc) and tvm.driver.
#pragma once

#include "script/object.h"

namespace tsch::bindings {

void install_build_functions(script::Namespace& ns);
void register_tvm_build_modules();

}  // namespace tsch::bindings
