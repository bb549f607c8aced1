// The parser's guard against deep recursion: the grammar's recursive expression rules call
// guard_parse_depth before each level, and run_parser turns the NestingTooDeep it throws into
// a SyntaxError at that token. Kept out of ANTLR's error handling (not a RecognitionException),
// so neither prediction stage retries the input.
#pragma once

#include <antlr4-runtime.h>

#include <cstddef>

#include "support/stack_guard.h"

namespace tsch {

struct NestingTooDeep {
  size_t line;
  size_t column;
};

// Stack left for the rest of parsing and for reporting: the parser's frames are small, so a
// few MiB is many levels, and the guard fires long before the stack runs out.
inline void guard_parse_depth(antlr4::Token* at) {
  if (stack_nearly_exhausted(4u << 20))
    throw NestingTooDeep{at ? at->getLine() : 0, at ? at->getCharPositionInLine() : 0};
}

}  // namespace tsch
