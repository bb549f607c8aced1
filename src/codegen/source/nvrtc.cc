#include "codegen/source/nvrtc.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "runtime/module.h"

namespace tsch::codegen {
namespace {

// NVRTC's C API, declared here so building tsch needs no CUDA headers.
using nvrtcProgram = struct nvrtcProgramOpaque*;
using nvrtcResult = int;
struct NVRTC {
  const char* (*GetErrorString)(nvrtcResult);
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetPTX)(nvrtcProgram, char*);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*);
  nvrtcResult (*DestroyProgram)(nvrtcProgram*);
};

struct Loaded {
  NVRTC api{};
  std::string error;  // empty when loaded
};

const Loaded& nvrtc() {
  static Loaded loaded = [] {
    Loaded l;
    std::vector<std::string> candidates;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
      candidates.push_back(std::string(home) + "/lib64/libnvrtc.so");
    candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so");
    for (const char* name : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"})
      candidates.push_back(name);
    void* handle = nullptr;
    for (const auto& c : candidates) {
      if ((handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
    }
    if (!handle) {
      l.error =
          "NVRTC (libnvrtc.so) is not found: tsch looked in $CUDA_HOME/lib64, /usr/local/cuda/lib64 and the loader's "
          "path; "
          "install the CUDA toolkit or set CUDA_HOME to it";
      return l;
    }
    auto sym = [&](const char* name) {
      void* p = dlsym(handle, name);
      if (!p && l.error.empty()) l.error = std::string("NVRTC has no ") + name;
      return p;
    };
    l.api.GetErrorString = reinterpret_cast<decltype(l.api.GetErrorString)>(sym("nvrtcGetErrorString"));
    l.api.CreateProgram = reinterpret_cast<decltype(l.api.CreateProgram)>(sym("nvrtcCreateProgram"));
    l.api.CompileProgram = reinterpret_cast<decltype(l.api.CompileProgram)>(sym("nvrtcCompileProgram"));
    l.api.GetPTXSize = reinterpret_cast<decltype(l.api.GetPTXSize)>(sym("nvrtcGetPTXSize"));
    l.api.GetPTX = reinterpret_cast<decltype(l.api.GetPTX)>(sym("nvrtcGetPTX"));
    l.api.GetProgramLogSize = reinterpret_cast<decltype(l.api.GetProgramLogSize)>(sym("nvrtcGetProgramLogSize"));
    l.api.GetProgramLog = reinterpret_cast<decltype(l.api.GetProgramLog)>(sym("nvrtcGetProgramLog"));
    l.api.DestroyProgram = reinterpret_cast<decltype(l.api.DestroyProgram)>(sym("nvrtcDestroyProgram"));
    return l;
  }();
  return loaded;
}

}  // namespace

std::string nvrtc_unavailable() { return nvrtc().error; }

std::string compile_cuda_to_ptx(const std::string& source, const std::string& arch) {
  const Loaded& l = nvrtc();
  if (!l.error.empty()) throw runtime::BuildError("cannot compile CUDA C to PTX: " + l.error);
  const NVRTC& api = l.api;
  std::string compute = arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : arch;
  nvrtcProgram prog = nullptr;
  auto check = [&](nvrtcResult r, const char* what) {
    if (r != 0) throw runtime::BuildError(std::string("NVRTC ") + what + " failed: " + api.GetErrorString(r));
  };
  check(api.CreateProgram(&prog, source.c_str(), "tsch_kernels.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
  std::string option = "--gpu-architecture=" + compute;
  std::vector<const char*> options = {option.c_str(), "-default-device"};
  // The toolkit's headers (cuda_fp16.h for half kernels).
  std::string include;
  for (std::string home :
       {std::string(std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : ""), std::string("/usr/local/cuda")}) {
    if (!home.empty() && access((home + "/include/cuda_fp16.h").c_str(), R_OK) == 0) {
      include = "--include-path=" + home + "/include";
      options.push_back(include.c_str());
      break;
    }
  }
  nvrtcResult compiled = api.CompileProgram(prog, static_cast<int>(options.size()), options.data());
  std::string log;
  size_t log_size = 0;
  if (api.GetProgramLogSize(prog, &log_size) == 0 && log_size > 1) {
    log.resize(log_size);
    api.GetProgramLog(prog, log.data());
    log.resize(log_size - 1);
  }
  if (compiled != 0) {
    api.DestroyProgram(&prog);
    throw runtime::BuildError("NVRTC could not compile the CUDA C (" + std::string(api.GetErrorString(compiled)) +
                              ", " + option + "):\n" + log);
  }
  size_t size = 0;
  check(api.GetPTXSize(prog, &size), "nvrtcGetPTXSize");
  std::string ptx(size, '\0');
  check(api.GetPTX(prog, ptx.data()), "nvrtcGetPTX");
  api.DestroyProgram(&prog);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

}  // namespace tsch::codegen
