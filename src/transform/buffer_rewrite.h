// Shared by passes that move a buffer's accesses to another buffer: every load and store of
// `from` is redirected to `to`, with its indices mapped by `indices` (identity when empty;
// then uses of `from`'s data pointer become `to`'s too).
#pragma once

#include <functional>

#include "ir/functor.h"

namespace tsch::transform {

using IndexMap = std::function<std::vector<ir::PrimExpr>(const std::vector<ir::PrimExpr>&)>;

// `s` with each allocation inside it given a buffer of its own (a copy of a statement that
// allocates defines its buffers once: unrolled and software-pipelined copies).
ir::Stmt fresh_allocations(const ir::Stmt& s);

ir::Stmt redirect_buffer(const ir::Stmt& body, const ir::BufferNode* from, const ir::Buffer& to, IndexMap indices = {});

}  // namespace tsch::transform
