// tvm.tir.TensorIntrin (tensor_intrin_values.cc).
#pragma once

#include "script/object.h"
#include "script/value.h"

namespace tsch::bindings {

script::TypeRef tensor_intrin_type();

}  // namespace tsch::bindings
