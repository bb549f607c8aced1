// The keyword options every buffer declaration shares (TVM's BufferDecl / tvm.tir.decl_buffer):
// strides (expressions, or names of fresh variables), elem_offset (an expression; a fresh
// variable when offset_factor is non-zero and none is given, named `<buffer>_elem_offset` by
// the script's assignment), align (<= 0: 64), offset_factor (0: 1), axis_separators.
#pragma once

#include <string>

#include "ir/buffer.h"
#include "script/interpreter.h"

namespace tsch::bindings {

struct BufferOptions {
  script::Value strides, elem_offset, align, offset_factor, axis_separators;
};

ir::Buffer with_buffer_options(script::Interpreter& interp, ir::Buffer buf, const BufferOptions& o,
                               const std::string& what);

}  // namespace tsch::bindings
