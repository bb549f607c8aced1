#include "relax/build.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "codegen/llvm/llvm_build.h"
#include "relax/transform/passes.h"
#include "relax/vm_codegen.h"
#include "support/error.h"
#include "transform/pass.h"

namespace tsch::relax {
namespace {

// The footer after the library: the bytecode's size and this tag.
constexpr char kTag[8] = {'T', 'S', 'C', 'H', 'V', 'M', 'E', 'X'};

ir::IRModule prim_funcs_only(const ir::IRModule& mod) {
  auto out = std::make_shared<ir::IRModuleNode>();
  out->attrs = mod->attrs;
  for (const auto& [name, f] : mod->prim_funcs()) out->functions.emplace_back(name, f);
  return out;
}

}  // namespace

ir::IRModule lower_for_vm(const ir::IRModule& mod, const RelaxBuildOptions& options) {
  ir::IRModule m = mod;
  const auto& ctx = tsch::transform::PassContext::current();
  for (const auto& pass : transform::default_build_pipeline()) {
    // Memory planning may be left out (to measure what it saves); VM code generation needs
    // every other pass.
    if (!ctx.pass_enabled(pass.info())) {
      TSCH_USER_ASSERT(pass.name() == "StaticPlanBlockMemory", ValueError)
          << "relax.build: the pass " << pass.name() << " cannot be disabled: VM code generation needs its output";
      continue;
    }
    m = pass(m);
    if (options.after_pass) options.after_pass(pass.name(), m);
  }
  return m;
}

Executable build(const ir::IRModule& mod, const target::Target& target, const RelaxBuildOptions& options) {
  ir::IRModule lowered = lower_for_vm(mod, options);
  Executable ex;
  ex.target = target;
  ex.source = mod;
  ex.bytecode = vm_codegen(lowered);
  ir::IRModule tir = prim_funcs_only(lowered);
  if (!tir->functions.empty()) ex.library = runtime::make_module(driver::build(tir, target, options.tir));
  return ex;
}

void export_executable(const Executable& ex, const std::string& path) {
  std::string blob = ex.bytecode->save();
  if (ex.library) {
    ex.library->code->export_library(path);
  } else {
    std::ofstream(path, std::ios::binary | std::ios::trunc).flush();
  }
  std::ofstream out(path, std::ios::binary | std::ios::app);
  TSCH_USER_ASSERT(out, ValueError) << "export_library: cannot write " << path;
  uint64_t size = blob.size();
  uint8_t has_library = ex.library ? 1 : 0;
  out.write(blob.data(), static_cast<std::streamsize>(blob.size()));
  out.write(reinterpret_cast<const char*>(&has_library), 1);
  out.write(reinterpret_cast<const char*>(&size), sizeof size);
  out.write(kTag, sizeof kTag);
  TSCH_USER_ASSERT(out.good(), ValueError) << "export_library: cannot write " << path;
}

namespace {

bool read_footer(const std::string& path, uint64_t& size, bool& has_library, uint64_t& file_size) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  file_size = static_cast<uint64_t>(in.tellg());
  if (file_size < sizeof kTag + sizeof size + 1) return false;
  in.seekg(static_cast<std::streamoff>(file_size - sizeof kTag - sizeof size - 1));
  uint8_t lib = 0;
  char tag[sizeof kTag];
  in.read(reinterpret_cast<char*>(&lib), 1);
  in.read(reinterpret_cast<char*>(&size), sizeof size);
  in.read(tag, sizeof tag);
  if (!in || std::memcmp(tag, kTag, sizeof kTag) != 0) return false;
  has_library = lib != 0;
  // Compared without adding to `size`, which a corrupt footer may set near 2**64.
  return size <= file_size - sizeof kTag - sizeof size - 1;
}

}  // namespace

bool is_exported_executable(const std::string& path) {
  uint64_t size = 0, file_size = 0;
  bool lib = false;
  return read_footer(path, size, lib, file_size);
}

Executable load_executable(const std::string& path) {
  uint64_t size = 0, file_size = 0;
  bool has_library = false;
  // Every defect of the file is the user's: RuntimeError "cannot load module PATH: why".
  auto fail = [&](const std::string& why) {
    throw UserError(UserErrorKind::RuntimeError, "cannot load module " + path + ": " + why);
  };
  if (!read_footer(path, size, has_library, file_size)) fail("it is not an executable written by export_library");
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(file_size - sizeof kTag - sizeof size - 1 - size));
  std::string blob(size, '\0');
  in.read(blob.data(), static_cast<std::streamsize>(size));
  if (!in.good()) fail("cannot read its bytecode");
  Executable ex;
  try {
    ex.bytecode = runtime::vm::Executable::load(blob);
    ex.bytecode->check_forward_jumps();
    if (has_library) ex.library = runtime::make_module(codegen::load_llvm_library(path));
  } catch (const UserError& e) {
    fail(e.what());
  } catch (const runtime::BuildError& e) {
    // load_llvm_library names the path itself.
    std::string why = e.what();
    std::string prefix = "cannot load module " + path + ": ";
    fail(why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why);
  }
  return ex;
}

}  // namespace tsch::relax
