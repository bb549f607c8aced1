// The lowering pipeline: TensorIR with blocks → flat loops over 1-D buffers, ready for code
// generation. The order of passes lives in pipeline.cc and nowhere else. It runs as one
// Sequential under the current PassContext: its instruments see each pass, its config
// switches vectorization and memory reuse off, and its disabled_pass may name the passes
// code generation does not need (tir.Simplify, tir.StorageRewrite, tir.UnrollLoop,
// tir.RemoveNoOp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "transform/pass.h"

namespace tsch::transform {

const std::vector<Pass>& lowering_passes();
// Before code generation: T.attr hints leave their bodies; the attributes tsch does not
// implement are refused (NotImplementedError).
ir::IRModule strip_attr_hints(const ir::IRModule& mod);

// Notes passes leave for the user (e.g. a vectorized loop that runs scalar); the caller
// prints and clears them.
std::vector<std::string>& lowering_notes();

struct LowerOptions {
  // Called after each pass with the pass name and the function's new state.
  std::function<void(const std::string& pass, const std::string& func, const ir::PrimFunc&)> after_pass;
};

ir::PrimFunc lower(const ir::PrimFunc& f, const std::string& name, const LowerOptions& options = {});
// Throws UserError when the current PassContext disables a pass code generation needs.
ir::IRModule lower(const ir::IRModule& m, const LowerOptions& options = {});

}  // namespace tsch::transform
