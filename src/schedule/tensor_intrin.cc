#include "schedule/tensor_intrin.h"

#include <algorithm>
#include <map>

#include "support/error.h"

namespace tsch::schedule {

namespace {

std::map<std::string, TensorIntrin>& registry() {
  static std::map<std::string, TensorIntrin> r;
  return r;
}

bool is_root_block(const ir::PrimFunc& f) {
  auto* realize = ir::as<ir::BlockRealizeNode>(f->body);
  return realize && realize->block->iter_vars.empty();
}

}  // namespace

TensorIntrin make_tensor_intrin(ir::PrimFunc desc, ir::PrimFunc impl) {
  TSCH_USER_ASSERT(desc->params.size() == impl->params.size(), ValueError)
      << "The number of parameters of the description and the implementation of the tensor intrinsic doesn't match.";
  for (size_t i = 0; i < desc->params.size(); ++i) {
    TSCH_USER_ASSERT(desc->params[i]->dtype.is_handle(), ValueError)
        << "Parameters of the description of the tensor intrinsic should be handle only.";
    TSCH_USER_ASSERT(impl->params[i]->dtype.is_handle(), ValueError)
        << "Parameters of the implementation of the tensor intrinsic should be handle only.";
    TSCH_USER_ASSERT(desc->buffer_of(desc->params[i]) && impl->buffer_of(impl->params[i]), ValueError)
        << "parameter " << i << " of the tensor intrinsic is not bound to a buffer (T.match_buffer) in both functions";
  }
  TSCH_USER_ASSERT(is_root_block(desc), ValueError)
      << "the description of a tensor intrinsic must be one root block (`with T.block(\"root\"):` around its loops)";
  TSCH_USER_ASSERT(is_root_block(impl), ValueError)
      << "the implementation of a tensor intrinsic must be one root block (`with T.block(\"root\"):` around its body)";
  return TensorIntrin{std::move(desc), std::move(impl)};
}

void register_tensor_intrin(const std::string& name, TensorIntrin intrin, bool override) {
  TSCH_USER_ASSERT(override || !registry().count(name), ValueError)
      << "TensorIntrin '" << name << "' has already been registered";
  registry()[name] = std::move(intrin);
}

const TensorIntrin* find_tensor_intrin(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

namespace {

// TVM ships these in tvm.tir.tensor_intrin.cuda; tsch names them (scripts import the names)
// but cannot register them: their operands are 4-bit integers, which tsch's buffers do not hold.
bool is_int4_wmma(const std::string& name) {
  static const char* const names[] = {"wmma_sync_8x8x32_s4s4s32_trans",
                                      "wmma_load_8x8x32_s4_a_shared",
                                      "wmma_load_8x8x32_s4_a_shared_dyn",
                                      "wmma_load_8x8x32_s4_b_trans_shared",
                                      "wmma_load_8x8x32_s4_b_trans_shared_dyn",
                                      "wmma_fill_8x8x32_s32",
                                      "wmma_store_8x8x32_s32_shared",
                                      "wmma_store_8x8x32_s32_shared_dyn",
                                      "wmma_store_8x8x32_s32_global"};
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

}  // namespace

const TensorIntrin& get_tensor_intrin(const std::string& name) {
  const TensorIntrin* intrin = find_tensor_intrin(name);
  TSCH_USER_ASSERT(intrin != nullptr || !is_int4_wmma(name), NotImplementedError)
      << "not supported yet: TensorIntrin '" << name
      << "' (TVM's int4 WMMA: tsch's buffers do not hold 4-bit integers)";
  TSCH_USER_ASSERT(intrin != nullptr, ValueError) << "TensorIntrin '" << name << "' is not registered";
  return *intrin;
}

std::vector<std::string> tensor_intrin_names() {
  std::vector<std::string> out;
  for (const auto& [name, intrin] : registry()) out.push_back(name);
  return out;
}

}  // namespace tsch::schedule
