// Target tags: names for the configs of common GPUs ("nvidia/nvidia-a100"), as TVM's tags
// spell them. tsch knows the GPUs tutorials and benchmarks name; TVM's list is longer.
#include <algorithm>

#include "target/target.h"

namespace tsch::target {

namespace {

struct CudaTag {
  const char* name;
  const char* arch;
  int64_t l2_cache_size_bytes;  // 0: not recorded
};

// Every one: 48 KiB of static shared memory per block, 64 Ki registers per block, 1024
// threads per block, warps of 32.
constexpr CudaTag kCudaTags[] = {
    {"nvidia/nvidia-b100", "sm_100a", 52428800},
    {"nvidia/nvidia-h100", "sm_90a", 52428800},
    {"nvidia/nvidia-a100", "sm_80", 41943040},
    {"nvidia/nvidia-a40", "sm_86", 0},
    {"nvidia/nvidia-a30", "sm_80", 0},
    {"nvidia/nvidia-a10", "sm_86", 0},
    {"nvidia/nvidia-a10g", "sm_86", 0},
    {"nvidia/nvidia-t4", "sm_75", 0},
    {"nvidia/nvidia-v100", "sm_70", 0},
    {"nvidia/tesla-p100", "sm_60", 0},
    {"nvidia/rtx-a6000", "sm_86", 0},
    {"nvidia/geforce-rtx-4090", "sm_89", 75497472},
    {"nvidia/geforce-rtx-3090", "sm_86", 0},
    {"nvidia/geforce-rtx-3080", "sm_86", 0},
    {"nvidia/geforce-rtx-2080-ti", "sm_75", 0},
};

Json cuda_tag_config(const CudaTag& tag) {
  Json config = {{"kind", "cuda"},
                 {"keys", {"cuda", "gpu"}},
                 {"arch", tag.arch},
                 {"max_shared_memory_per_block", 49152},
                 {"max_threads_per_block", 1024},
                 {"thread_warp_size", 32},
                 {"registers_per_block", 65536},
                 {"tag", tag.name}};
  if (tag.l2_cache_size_bytes) config["l2_cache_size_bytes"] = tag.l2_cache_size_bytes;
  return config;
}

}  // namespace

Target target_from_tag(const std::string& name) {
  for (const CudaTag& tag : kCudaTags)
    if (name == tag.name) return target_from_config(cuda_tag_config(tag));
  return nullptr;
}

std::vector<std::string> list_tags() {
  std::vector<std::string> names;
  for (const CudaTag& tag : kCudaTags) names.push_back(tag.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tsch::target
