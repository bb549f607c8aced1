// CUDA C to PTX with NVRTC, loaded with dlopen when first needed: the CUDA toolkit is
// optional — tsch builds and runs without it, and then PTX is a clear error naming where
// tsch looked (CUDA_HOME, /usr/local/cuda, the loader's path).
#pragma once

#include <string>

namespace tsch::codegen {

// Whether NVRTC can be loaded here ("" if so, else why not).
std::string nvrtc_unavailable();
// PTX for `source` compiled for `arch` ("sm_80" → compute_80). BuildError with NVRTC's log
// when compilation fails, or when NVRTC is not there.
std::string compile_cuda_to_ptx(const std::string& source, const std::string& arch);

}  // namespace tsch::codegen
