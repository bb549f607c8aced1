// The code generators tsch has, by target kind: one line each.
#include "codegen/llvm/codegen_nvptx.h"
#include "codegen/source/codegen_cuda.h"
#include "driver/backend.h"
#include "driver/cpu_build.h"
#include "driver/gpu_build.h"

namespace tsch::driver {

namespace {

Backend gpu_backend(DeviceCodegen device_codegen) {
  return {true, lower_for_gpu,
          [device_codegen](const LoweredModule& m, const target::Target& t, const BuildOptions& o) {
            return generate_gpu(m, t, o, device_codegen);
          }};
}

}  // namespace

void register_builtin_backends() {
  register_backend("llvm", {true, lower_for_llvm, generate_llvm});
  register_backend("c", {/*vectorizes=*/false, lower_for_cpu, generate_c});
  register_backend("cuda", gpu_backend(codegen::build_cuda_device));
  register_backend("nvptx", gpu_backend(codegen::build_nvptx_device));
}

}  // namespace tsch::driver
