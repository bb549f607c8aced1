// The T.* functions that open scopes in a prim_func's body: loops, T.LetStmt, thread
// launches, blocks, T.axis (tvmscript_tir_frames.cc).
#pragma once

#include "script/interpreter.h"

namespace tsch::bindings {

void def_frame_functions(script::Namespace& ns);

}  // namespace tsch::bindings
