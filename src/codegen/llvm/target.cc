#include "codegen/llvm/target.h"

#include "support/error.h"

namespace tsch::codegen {

LLVMTarget llvm_target_of(const target::Target& t) {
  const std::string& kind = t->kind->name;
  TSCH_USER_ASSERT(kind == "llvm" || kind == "c", ValueError)
      << "target \"" << t->str() << "\" is not an LLVM CPU target (expected \"llvm ...\")";
  // Options that would change the generated code in ways tsch does not implement yet: refused
  // rather than ignored.
  for (const char* option : {"mfloat-abi", "mabi", "fast-math", "fast-math-nnan", "fast-math-ninf", "fast-math-nsz",
                             "fast-math-arcp", "fast-math-contract", "fast-math-reassoc", "cl-opt", "vector-width",
                             "libs", "march", "workspace-byte-alignment", "constants-byte-alignment"}) {
    auto it = t->attrs.find(option);
    bool set = it != t->attrs.end() && !(it->is_boolean() && !it->get<bool>()) && !(it->is_array() && it->empty());
    TSCH_USER_ASSERT(!set, NotImplementedError)
        << "not supported yet: target option -" << option << " (in \"" << t->str() << "\")";
  }
  LLVMTarget out;
  out.text = t->str();
  out.triple = t->get_str("mtriple").value_or("");
  out.cpu = t->get_str("mcpu").value_or("");
  std::string features;
  for (const std::string& f : t->get_str_array("mattr")) features += (features.empty() ? "" : ",") + f;
  out.features = features;
  if (auto n = t->get_int("num-cores")) {
    TSCH_USER_ASSERT(*n >= 1 && *n <= 4096, ValueError)
        << "target option -num-cores must be between 1 and 4096, got " << *n;
    out.num_cores = static_cast<int>(*n);
  }
  if (auto level = t->get_int("opt-level")) {
    TSCH_USER_ASSERT(*level >= 0 && *level <= 3, ValueError)
        << "target option -opt-level must be 0, 1, 2 or 3, got " << *level;
    out.opt_level = static_cast<int>(*level);
  }
  return out;
}

LLVMTarget parse_llvm_target(const std::string& text) { return llvm_target_of(target::parse_target(text)); }

std::string host_cpu_name() { return target::host_cpu_name(); }

}  // namespace tsch::codegen
