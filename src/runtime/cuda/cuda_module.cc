#include "runtime/cuda/cuda_module.h"

#include <cstring>
#include <stdexcept>

#include "runtime/cuda/cuda_driver.h"
#include "runtime/module.h"
#include "support/error.h"

namespace tsch::runtime::cuda {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

}  // namespace

std::string encode_kernel_table(const std::vector<KernelInfo>& kernels) {
  std::string out;
  for (const KernelInfo& k : kernels) {
    out += k.name + "\t";
    for (size_t i = 0; i < k.params.size(); ++i) out += (i ? "," : "") + k.params[i].to_string();
    out += "\t";
    for (size_t i = 0; i < k.launch_tags.size(); ++i) out += (i ? "," : "") + k.launch_tags[i];
    out += "\n";
  }
  return out;
}

std::vector<KernelInfo> decode_kernel_table(const std::string& text) {
  std::vector<KernelInfo> out;
  for (const std::string& line : split(text, '\n')) {
    if (line.empty()) continue;
    std::vector<std::string> fields = split(line, '\t');
    if (fields.size() != 3 || fields[0].empty()) throw BuildError("a malformed CUDA kernel table line: " + line);
    KernelInfo k;
    k.name = fields[0];
    for (const std::string& t : split(fields[1], ',')) {
      auto dtype = ir::DataType::parse(t);
      if (!dtype) throw BuildError("a CUDA kernel table names an unknown type: " + t);
      k.params.push_back(*dtype);
    }
    k.launch_tags = split(fields[2], ',');
    out.push_back(std::move(k));
  }
  return out;
}

struct CUDAKernelLauncher::Loaded {
  CUmodule module = nullptr;
  std::map<std::string, CUfunction> functions;
};

CUDAKernelLauncher::CUDAKernelLauncher(std::function<std::string()> ptx, std::vector<KernelInfo> kernels, int device_id)
    : ptx_(std::move(ptx)), kernels_(std::move(kernels)), device_id_(device_id) {}

// The module stays loaded until the process ends: unloading it from a destructor could run
// after the driver has shut down.
CUDAKernelLauncher::~CUDAKernelLauncher() = default;

const CUDAKernelLauncher::Loaded& CUDAKernelLauncher::load() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (loaded_) return *loaded_;
  const DriverAPI& d = driver_for(device_id_);
  set_device(device_id_);
  std::string ptx = ptx_();
  auto out = std::make_unique<Loaded>();
  // The driver JIT-compiles the PTX for this device; its error log says why it could not.
  constexpr int kErrorLogBuffer = 5, kErrorLogBufferSize = 6;
  char log[8192] = {0};
  int options[] = {kErrorLogBuffer, kErrorLogBufferSize};
  void* values[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof log - 1))};
  CUresult r = d.ModuleLoadDataEx(&out->module, ptx.c_str(), 2, options, values);
  if (r != 0) {
    std::string why = log[0] ? std::string(": ") + log : std::string();
    try {
      check(r, "cuModuleLoadDataEx");
    } catch (const UserError& e) {
      throw UserError(UserErrorKind::RuntimeError, std::string(e.what()) + why);
    }
  }
  for (const KernelInfo& k : kernels_) {
    CUfunction f = nullptr;
    check(d.ModuleGetFunction(&f, out->module, k.name.c_str()), "cuModuleGetFunction");
    out->functions[k.name] = f;
  }
  loaded_ = std::move(out);
  return *loaded_;
}

bool CUDAKernelLauncher::launch(const char* name, const TschPackedArg* args, int32_t num_args) const {
  const KernelInfo* info = nullptr;
  for (const KernelInfo& k : kernels_)
    if (k.name == name) info = &k;
  if (!info) return false;
  size_t nparams = info->params.size();
  if (static_cast<size_t>(num_args) != nparams + info->launch_tags.size())
    throw std::logic_error("launch of " + info->name + ": " + std::to_string(num_args) + " arguments for " +
                           std::to_string(nparams) + " parameters and " + std::to_string(info->launch_tags.size()) +
                           " launch extents");
  // Each parameter's bytes as the kernel declares it; cuLaunchKernel takes their addresses.
  std::vector<uint64_t> storage(nparams, 0);
  std::vector<void*> pointers(nparams);
  for (size_t i = 0; i < nparams; ++i) {
    const TschPackedArg& a = args[i];
    ir::DataType t = info->params[i];
    void* slot = &storage[i];
    if (t.is_handle()) {
      if (a.type_code == kPackedArray) {
        const auto* arr = reinterpret_cast<const TschArrayArg*>(a.value);
        ir::DataType et{static_cast<ir::DataType::Code>(arr->code), arr->bits, arr->lanes};
        uint64_t p = reinterpret_cast<uint64_t>(arr->data) +
                     static_cast<uint64_t>(arr->elem_offset) * static_cast<uint64_t>((et.bits * et.lanes + 7) / 8);
        std::memcpy(slot, &p, sizeof p);
      } else {
        std::memcpy(slot, &a.value, sizeof a.value);
      }
    } else if (t.is_float()) {
      double v = 0;
      if (a.type_code == kPackedFloat)
        std::memcpy(&v, &a.value, sizeof v);
      else
        v = static_cast<double>(a.value);
      if (t.bits == 64) {
        std::memcpy(slot, &v, sizeof v);
      } else if (t.bits == 32) {
        float f = static_cast<float>(v);
        std::memcpy(slot, &f, sizeof f);
      } else {
        TSCH_USER_ASSERT(false, RuntimeError)
            << "not supported yet: a " << t.to_string() << " scalar parameter of kernel " << info->name;
      }
    } else {
      int64_t v = a.value;
      if (a.type_code == kPackedFloat) {
        double dv;
        std::memcpy(&dv, &a.value, sizeof dv);
        v = static_cast<int64_t>(dv);
      }
      // Little-endian: the low bytes of the int64 are the narrower integer.
      std::memcpy(slot, &v, sizeof v);
    }
    pointers[i] = slot;
  }
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned dynamic_shared = 0;
  for (size_t k = 0; k < info->launch_tags.size(); ++k) {
    const std::string& tag = info->launch_tags[k];
    int64_t extent = args[nparams + k].value;
    if (extent <= 0) return true;  // an empty grid runs nothing (CUDA refuses a launch of 0 blocks)
    TSCH_USER_ASSERT(extent <= 0x7fffffff, RuntimeError)
        << "launch of " << info->name << ": " << tag << " extent " << extent << " is too large";
    unsigned e = static_cast<unsigned>(extent);
    if (tag == "tir.use_dyn_shared_memory")
      dynamic_shared = e;
    else if (tag.size() == 10 && tag.rfind("blockIdx.", 0) == 0 && tag[9] >= 'x' && tag[9] <= 'z')
      grid[tag[9] - 'x'] = e;
    else if (tag.size() == 11 && tag.rfind("threadIdx.", 0) == 0 && tag[10] >= 'x' && tag[10] <= 'z')
      block[tag[10] - 'x'] = e;
    else
      throw std::logic_error("launch of " + info->name + ": unknown launch tag " + tag);
  }
  const Loaded& l = load();
  const DriverAPI& d = driver_for(device_id_);
  set_device(device_id_);
  // Past the 48 KB every kernel may take, dynamic shared memory must be asked for.
  if (dynamic_shared > 48 * 1024)
    check(d.FuncSetAttribute(l.functions.at(info->name), kFuncAttrMaxDynamicSharedBytes,
                             static_cast<int>(dynamic_shared)),
          "cuFuncSetAttribute");
  check(d.LaunchKernel(l.functions.at(info->name), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                       dynamic_shared, nullptr, pointers.data(), nullptr),
        "cuLaunchKernel");
  return true;
}

std::shared_ptr<const KernelLauncher> KernelLaunchers::on(int device_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = by_device_[device_id];
  if (!slot) slot = std::make_shared<CUDAKernelLauncher>(ptx_, kernels_, device_id);
  return slot;
}

}  // namespace tsch::runtime::cuda
