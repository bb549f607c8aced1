// Tensor intrinsics (TVM's tir.TensorIntrin): a description — a PrimFunc whose root block
// computes what the hardware instruction computes, in plain TensorIR — and an implementation
// that does it with the instruction, over the same parameters. tensorize finds the
// description's pattern in a block and puts the implementation in its place. Registered by
// name, once per process as in TVM (TensorIntrin.register(..., override=True) replaces one).
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"

namespace tsch::schedule {

struct TensorIntrin {
  ir::PrimFunc desc, impl;
};

// Checks the pair as TVM's TensorIntrin constructor does (handle parameters, one each), and
// that both bodies are one root block (what tensorize reads); UserError otherwise.
TensorIntrin make_tensor_intrin(ir::PrimFunc desc, ir::PrimFunc impl);
void register_tensor_intrin(const std::string& name, TensorIntrin intrin, bool override);
// The intrinsic registered as `name`; null when there is none.
const TensorIntrin* find_tensor_intrin(const std::string& name);
// The same, a ValueError naming it when it is not registered.
const TensorIntrin& get_tensor_intrin(const std::string& name);
// Registered names, sorted.
std::vector<std::string> tensor_intrin_names();

}  // namespace tsch::schedule
