// tvm.target.Target: a kind, keys, attributes and maybe a host target, parsed from TVM's
// forms — a string ("llvm -mcpu=znver4 -num-cores=1", "cuda -arch=sm_90"), a config dict or
// its JSON text ({"kind": "cuda", "arch": "sm_80"}), or a tag ("nvidia/nvidia-a100").
// Printing gives TVM's canonical string: kind, -keys=..., then the attributes sorted by name
// ("llvm -keys=cpu -mcpu=znver4 -num-cores=1"). Parse errors are UserError(ValueError) with
// TVM's messages.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "target/target_kind.h"

namespace tsch::target {

class TargetNode;
using Target = std::shared_ptr<const TargetNode>;

class TargetNode {
 public:
  const TargetKind* kind = nullptr;
  std::string tag;                // the tag it was made from, or empty
  std::vector<std::string> keys;  // e.g. {"cuda", "gpu"}
  Json attrs = Json::object();    // option name -> value, sorted by name
  Target host;                    // null when none

  // TVM's canonical string (the host is not part of it).
  const std::string& str() const;
  // The config dict TVM's Target.export() returns: kind, tag, keys, attributes, host.
  Json export_config() const;
  int device_type() const;
  bool has_key(const std::string& key) const;

  std::optional<std::string> get_str(const std::string& name) const;
  std::optional<int64_t> get_int(const std::string& name) const;
  bool get_bool(const std::string& name, bool otherwise = false) const;
  std::vector<std::string> get_str_array(const std::string& name) const;

 private:
  mutable std::string str_;
};

// A tag, a JSON config text (starting with "{") or a target string.
Target parse_target(const std::string& text);
// A config object: {"kind": ..., option: value, "host": <config, string>}.
Target target_from_config(const Json& config);
// `target` with `host` as its host (a host target may not itself have a host).
Target with_host(const Target& target, const Target& host);
Target without_host(const Target& target);

// Targets defined by tags ("nvidia/nvidia-a100"): null when no tag has the name.
Target target_from_tag(const std::string& name);
std::vector<std::string> list_tags();

// The target of the innermost `with target:` scope on this thread, or null.
Target current_target();
void enter_target_scope(const Target& t);
// Throws UserError when `t` is not the innermost scope's target.
void exit_target_scope(const Target& t);

// Whether an llvm target's vectors are scalable (TVM's TargetHasVLA): an AArch64 triple with
// SVE among its -mattr features (+sve, +sve2, ...), or a RISC-V triple with +v. Unlike TVM,
// features an -mcpu implies are not looked up (such a target is not VLA here).
bool target_has_vla(const Target& t);
// The values of vscale a proof over scalable expressions tries (TVM's GetVScaleValues):
// powers of two up to the vector width (-vector-width, else 128 bits) / 8.
std::vector<int64_t> vscale_values(const Target& t);

// A CUDA target's GPU architecture: -arch of "cuda", -mcpu of "nvptx", "sm_80" when the
// target names none (TVM's default); and its compute capability as a number (80 for
// "sm_80"), 0 for a name that is not sm_<digits>.
std::string cuda_arch(const Target& t);
int cuda_sm_version(const Target& t);

// The host's LLVM triple and CPU name, as LLVM detects them ("x86_64-pc-linux-gnu", "znver4").
std::string host_triple();
std::string host_cpu_name();

}  // namespace tsch::target
