#include "codegen/llvm/target.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/TargetParser/Host.h>

#include <sstream>

#include "runtime/module.h"

namespace tsch::codegen {

using runtime::BufferParam;
using runtime::CompiledModule;
using runtime::EntryPoint;

LLVMTarget parse_llvm_target(const std::string& text) {
  LLVMTarget t;
  t.text = text;
  std::istringstream in(text);
  std::string kind;
  in >> kind;
  if (kind != "llvm" && kind != "c")
    throw BuildError("target \"" + text + "\" is not an LLVM CPU target (expected \"llvm ...\")");
  std::string opt;
  while (in >> opt) {
    size_t eq = opt.find('=');
    std::string key = opt.substr(0, eq), value = eq == std::string::npos ? "" : opt.substr(eq + 1);
    if (key == "-mcpu") t.cpu = value;
    else if (key == "-mtriple") t.triple = value;
    else if (key == "-mattr") t.features = value;
    else if (key == "--num-cores" || key == "-num-cores") t.num_cores = std::atoi(value.c_str());
    else if (key == "-opt-level") t.opt_level = std::atoi(value.c_str());
    else if (key == "-keys" || key == "-device" || key == "-model" || key == "-libs" || key == "-link-params") continue;
    else throw BuildError("unknown option \"" + opt + "\" in target \"" + text + "\"");
  }
  return t;
}

std::string host_cpu_name() { return llvm::sys::getHostCPUName().str(); }

}  // namespace tsch::codegen
