// TVM's IndexDataTypeNormalizer, for te.create_prim_func(..., index_dtype_override=).
#pragma once

#include "ir/module.h"

namespace tsch::te {

// `f` with its indices (shapes, loops, iterators, buffer indices) in `index` (int32 or
// int64); narrower integer indices are widened, values keep their types. UserError for an
// index type other than int32/int64 and for symbolic sizes (not supported yet).
ir::PrimFunc override_index_dtype(const ir::PrimFunc& f, ir::DataType index);

}  // namespace tsch::te
