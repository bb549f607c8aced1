#include "target/target_kind.h"

#include <cstdio>

#include "support/error.h"
#include "target/target.h"

namespace tsch::target {

const char* option_type_name(OptionType type) {
  switch (type) {
    case OptionType::Str:
      return "str";
    case OptionType::Int:
      return "int";
    case OptionType::Bool:
      return "bool";
    case OptionType::StrArray:
      return "ffi.Array";
    case OptionType::Target:
      return "target.Target";
  }
  return "?";
}

DeviceQuery& device_query() {
  static DeviceQuery query;
  return query;
}

void set_device_query(DeviceQuery query) { device_query() = std::move(query); }

namespace {

using O = OptionType;

// What TVM's parsers derive. llvm: with neither -mtriple nor -mcpu, the host's triple.
void parse_cpu(Json& config) {
  if (config["kind"] == "llvm" && !config.contains("mtriple") && !config.contains("mcpu"))
    config["mtriple"] = host_triple();
}

// A GPU architecture: checked when given ("sm_80"), else asked of device 0, else sm_80 with
// TVM's warning (TVM falls back to sm_50, which CUDA 13 no longer compiles for).
std::function<void(Json&)> gpu_arch_parser(std::string option, int device_type) {
  return [option, device_type](Json& config) {
    if (config.contains(option)) {
      TSCH_USER_ASSERT(config[option].is_string() && config[option].get<std::string>().rfind("sm_", 0) == 0, ValueError)
          << "CUDA target gets an invalid CUDA arch: -" << option << "="
          << (config[option].is_string() ? config[option].get<std::string>() : config[option].dump());
      return;
    }
    std::optional<std::string> version;
    if (device_query()) version = device_query()(device_type, "compute_version");
    if (!version) {
      std::fprintf(stderr, "warning: Unable to detect CUDA version, default to \"-%s=sm_80\" instead\n",
                   option.c_str());
      config[option] = "sm_80";
      return;
    }
    std::string digits;
    for (char c : *version)
      if (c != '.') digits += c;
    config[option] = "sm_" + digits;
  };
}

TargetKind make_kind(std::string name, int device_type, std::vector<std::string> keys,
                     std::map<std::string, OptionType> options, std::map<std::string, Json> defaults = {},
                     std::function<void(Json&)> parser = nullptr) {
  TargetKind k;
  k.name = std::move(name);
  k.device_type = device_type;
  k.default_keys = std::move(keys);
  k.options = std::move(options);
  // Every kind accepts these (TVM_REGISTER_TARGET_KIND adds them).
  for (const auto& [key, type] : std::map<std::string, OptionType>{{"keys", O::StrArray},
                                                                   {"tag", O::Str},
                                                                   {"device", O::Str},
                                                                   {"model", O::Str},
                                                                   {"libs", O::StrArray},
                                                                   {"host", O::Target},
                                                                   {"from_device", O::Int},
                                                                   {"target_device_type", O::Int}})
    k.options.emplace(key, type);
  for (const auto& [key, value] : defaults) k.options.emplace(key, O::Int);
  k.defaults = std::move(defaults);
  k.parser = std::move(parser);
  return k;
}

const std::vector<TargetKind>& kinds() {
  // TVM's registrations (src/target/target_kind.cc), the options and defaults as TVM has them.
  static const std::vector<TargetKind> table = [] {
    std::vector<TargetKind> v;
    v.push_back(make_kind("llvm", kDLCPU, {"cpu"},
                          {{"mattr", O::StrArray},
                           {"mcpu", O::Str},
                           {"mtriple", O::Str},
                           {"mfloat-abi", O::Str},
                           {"mabi", O::Str},
                           {"num-cores", O::Int},
                           {"fast-math", O::Bool},
                           {"fast-math-nnan", O::Bool},
                           {"fast-math-ninf", O::Bool},
                           {"fast-math-nsz", O::Bool},
                           {"fast-math-arcp", O::Bool},
                           {"fast-math-contract", O::Bool},
                           {"fast-math-reassoc", O::Bool},
                           {"opt-level", O::Int},
                           {"cl-opt", O::StrArray},
                           {"jit", O::Str},
                           {"vector-width", O::Int}},
                          {}, parse_cpu));
    v.push_back(make_kind("c", kDLCPU, {"cpu"},
                          {{"mcpu", O::Str},
                           {"march", O::Str},
                           {"workspace-byte-alignment", O::Int},
                           {"constants-byte-alignment", O::Int}},
                          {}, parse_cpu));
    v.push_back(make_kind("cuda", kDLCUDA, {"cuda", "gpu"},
                          {{"mcpu", O::Str},
                           {"arch", O::Str},
                           {"max_shared_memory_per_block", O::Int},
                           {"max_threads_per_block", O::Int},
                           {"registers_per_block", O::Int},
                           {"l2_cache_size_bytes", O::Int}},
                          {{"thread_warp_size", 32}, {"max_num_threads", 1024}}, gpu_arch_parser("arch", kDLCUDA)));
    v.push_back(make_kind("nvptx", kDLCUDA, {"cuda", "gpu"}, {{"mcpu", O::Str}, {"mtriple", O::Str}},
                          {{"max_num_threads", 1024}, {"thread_warp_size", 32}}, [](Json& config) {
                            if (!config.contains("mtriple")) config["mtriple"] = "nvptx64-nvidia-cuda";
                            gpu_arch_parser("mcpu", kDLCUDA)(config);
                          }));
    v.push_back(make_kind("rocm", kDLROCM, {"rocm", "gpu"},
                          {{"mcpu", O::Str}, {"mtriple", O::Str}, {"mattr", O::StrArray}},
                          {{"max_num_threads", 256},
                           {"max_threads_per_block", 256},
                           {"max_shared_memory_per_block", 65536},
                           {"thread_warp_size", 64}}));
    v.push_back(make_kind("opencl", kDLOpenCL, {"opencl", "gpu"}, {},
                          {{"max_threads_per_block", 256},
                           {"max_shared_memory_per_block", 16384},
                           {"max_num_threads", 256},
                           {"thread_warp_size", 1},
                           {"texture_spatial_limit", 16384},
                           {"texture_depth_limit", 2048},
                           {"max_function_args", 128},
                           {"image_base_address_alignment", 64}}));
    v.push_back(make_kind("metal", kDLMetal, {"metal", "gpu"}, {},
                          {{"max_num_threads", 256},
                           {"max_threads_per_block", 256},
                           {"max_shared_memory_per_block", 32768},
                           {"thread_warp_size", 16},
                           {"max_function_args", 31}}));
    v.push_back(make_kind("vulkan", kDLVulkan, {"vulkan", "gpu"},
                          {{"mattr", O::StrArray},
                           {"supports_float16", O::Bool},
                           {"supports_float32", O::Bool},
                           {"supports_float64", O::Bool},
                           {"supports_int8", O::Bool},
                           {"supports_int16", O::Bool},
                           {"supports_int32", O::Bool},
                           {"supports_int64", O::Bool},
                           {"supports_8bit_buffer", O::Bool},
                           {"supports_16bit_buffer", O::Bool},
                           {"supports_storage_buffer_storage_class", O::Bool},
                           {"supports_push_descriptor", O::Bool},
                           {"supports_dedicated_allocation", O::Bool},
                           {"supports_integer_dot_product", O::Bool},
                           {"supports_cooperative_matrix", O::Bool},
                           {"supported_subgroup_operations", O::Int},
                           {"max_block_size_x", O::Int},
                           {"max_block_size_y", O::Int},
                           {"max_block_size_z", O::Int},
                           {"max_push_constants_size", O::Int},
                           {"max_uniform_buffer_range", O::Int},
                           {"max_storage_buffer_range", O::Int},
                           {"max_per_stage_descriptor_storage_buffer", O::Int},
                           {"max_shared_memory_per_block", O::Int},
                           {"device_type", O::Str},
                           {"device_name", O::Str},
                           {"driver_name", O::Str},
                           {"driver_version", O::Int},
                           {"vulkan_api_version", O::Int},
                           {"max_spirv_version", O::Int}},
                          {{"supports_float32", true},
                           {"supports_int32", true},
                           {"max_num_threads", 256},
                           {"max_threads_per_block", 256},
                           {"thread_warp_size", 1}}));
    v.push_back(make_kind("webgpu", kDLWebGPU, {"webgpu", "gpu"}, {}, {{"max_num_threads", 256}}));
    v.push_back(make_kind("hexagon", kDLHexagon, {"hexagon", "cpu"},
                          {{"mattr", O::StrArray},
                           {"mcpu", O::Str},
                           {"mtriple", O::Str},
                           {"llvm-options", O::StrArray},
                           {"num-cores", O::Int},
                           {"vtcm-capacity", O::Int}}));
    v.push_back(make_kind("ext_dev", kDLExtDev, {}, {}));
    return v;
  }();
  return table;
}

}  // namespace

const TargetKind* TargetKind::get(const std::string& name) {
  for (const TargetKind& k : kinds())
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> TargetKind::list_kinds() {
  std::vector<std::string> names;
  for (const TargetKind& k : kinds()) names.push_back(k.name);
  return names;
}

}  // namespace tsch::target
