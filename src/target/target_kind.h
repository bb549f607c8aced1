// Target kinds as TVM registers them: a name ("llvm", "cuda"), the device type its code runs
// on, the keys a target of this kind gets by default, the options it accepts (with a type and
// maybe a default) and a parser that fills in what the kind derives (llvm: the host triple;
// cuda: the arch). Kinds are fixed tables in target_kind.cc; nothing registers at run time.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tsch::target {

using Json = nlohmann::json;

// DLPack's device type codes, which TVM's Device and Target use.
enum DeviceType : int {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLROCM = 10,
  kDLExtDev = 12,
  kDLWebGPU = 15,
  kDLHexagon = 16,
};

enum class OptionType { Str, Int, Bool, StrArray, Target };

struct TargetKind {
  std::string name;
  int device_type = kDLCPU;
  std::vector<std::string> default_keys;
  std::map<std::string, OptionType> options;  // including those every kind has (keys, tag, host ...)
  std::map<std::string, Json> defaults;
  // Runs on the config (a JSON object with "kind" and the given options) before options are
  // checked: fills what the kind derives and checks what the kind requires.
  std::function<void(Json& config)> parser;

  // Null when no kind has that name.
  static const TargetKind* get(const std::string& name);
  static std::vector<std::string> list_kinds();
};

// How a kind's parser asks device 0 for what the user left out (CUDA's "compute_version",
// e.g. "9.0"). The runtime installs it where it can reach the device; unset or nullopt: no
// such device here.
using DeviceQuery = std::function<std::optional<std::string>(int device_type, const std::string& attr)>;
void set_device_query(DeviceQuery query);

// TVM's type names for an option, as TargetKind.options_from_name lists them.
const char* option_type_name(OptionType type);

}  // namespace tsch::target
