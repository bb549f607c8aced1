// The T.* functions of vector code and LLVM intrinsics (tvmscript_tir_vector.cc); T.Ramp and
// T.Broadcast must be defined first (T.ramp / T.broadcast alias them).
#pragma once

#include "script/interpreter.h"

namespace tsch::bindings {

void def_vector_functions(script::Namespace& ns);

// TVMScript's dtype forwarding for T.* calls written `T.f(dtype, *args)` or `T.f(*args,
// dtype=...)`: the keyword's value when given, else the first positional argument, taken
// from `args` (a TypeError naming `function` when there is none).
script::Value take_dtype(std::vector<script::Value>& args, const script::Value& dtype_keyword,
                         const std::string& function);

}  // namespace tsch::bindings
