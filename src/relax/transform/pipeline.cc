// relax.build's pipeline (TVM's relax.pipeline default_build_pipeline, for the passes tsch
// has) and the passes by name for relax.transform in scripts.
#include "relax/transform/passes.h"

namespace tsch::relax::transform {

std::vector<Pass> default_build_pipeline() {
  return {legalize_ops(),
          to_non_dataflow(),
          remove_purity_checking(),
          call_tir_rewrite(),
          static_plan_block_memory(),
          lower_alloc_tensor(),
          vm_builtin_lower(),
          vm_shape_lower()};
}

const std::vector<std::pair<std::string, std::function<Pass()>>>& named_relax_passes() {
  static const std::vector<std::pair<std::string, std::function<Pass()>>> passes = {
      {"LegalizeOps", legalize_ops},
      {"ToNonDataflow", to_non_dataflow},
      {"RemovePurityChecking", remove_purity_checking},
      {"CallTIRRewrite", call_tir_rewrite},
      {"StaticPlanBlockMemory", static_plan_block_memory},
      {"LowerAllocTensor", lower_alloc_tensor},
      {"VMBuiltinLower", vm_builtin_lower},
      {"LowerRuntimeBuiltin", vm_builtin_lower},
      {"VMShapeLower", vm_shape_lower},
  };
  return passes;
}

}  // namespace tsch::relax::transform
