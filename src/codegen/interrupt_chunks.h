// Ctrl-C in long innermost loops: generated code polls the interrupt flag at the head of the
// loops that hold loops (codegen/loop_facts.h); an innermost loop never polls (a volatile load
// inside it would stop its vectorization), so one of 2**40 iterations ran on after Ctrl-C.
// Before code generation, every innermost serial or parallel loop that may run more than
// kChunk iterations becomes a loop over chunks of kChunk around it: the outer loop (parallel
// for a parallel loop, its tasks taking whole chunks) polls once per chunk (microseconds
// apart), the inner one stays as it was. Loops of at most kChunk
// constant iterations — every loop of the matmul benchmark — are left alone.
#pragma once

#include "ir/stmt.h"

namespace tsch::codegen {

constexpr int64_t kInterruptChunk = 1 << 16;

ir::Stmt chunk_for_interrupts(const ir::Stmt& body);

}  // namespace tsch::codegen
