#include "codegen/source/c_module.h"

#include <dlfcn.h>

#include <cstdio>
#include <fstream>

#include "codegen/signature.h"
#include "codegen/source/codegen_c_host.h"
#include "runtime/packed_call.h"
#include "runtime/workspace.h"
#include "support/files.h"
#include "support/interrupt.h"

namespace tsch::codegen {

using runtime::CompiledModule;
using runtime::EntryPoint;

namespace {

// `text` as a C string literal.
std::string c_string(const std::string& text) {
  // Every byte outside printable ASCII as an octal escape (three digits, so a digit after it
  // is not read into it); a line break in the table starts a new literal line.
  std::string out = "\"";
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n\"\n\"";
    } else if (c == '"' || c == '\\' || c == '?') {
      out += std::string("\\") + c;  // '?' too: no trigraph can form
    } else if (u < 0x20 || u >= 0x7f) {
      char esc[5];
      std::snprintf(esc, sizeof esc, "\\%03o", u);
      out += esc;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Compiles `source` into `output` (a shared library, or an object file for ".o").
void compile(const std::string& source, const std::string& dir, const std::string& output, const std::string& what) {
  std::string file = dir + "/module.c";
  {
    std::ofstream out(file, std::ios::binary);
    out << source;
    if (!out.flush()) throw BuildError(what + ": cannot write a temporary source file in " + dir);
  }
  bool object_only = output.size() > 2 && output.compare(output.size() - 2, 2, ".o") == 0;
  std::vector<std::string> argv = {"cc", "-O3", "-std=gnu11", "-fPIC", "-w"};
  if (object_only)
    argv.push_back("-c");
  else
    argv.push_back("-shared");
  argv.insert(argv.end(), {"-o", output, file});
  if (!object_only) argv.push_back("-lm");
  ProcessResult r = run_process(argv);
  if (r.exit_code != 0) throw BuildError(what + ": the system C compiler (cc) failed: " + r.output);
}

class CSourceModule : public CompiledModule {
 public:
  CSourceModule(std::string source, std::vector<runtime::FunctionSignature> sigs, std::string target_text)
      : source_(std::move(source)), sigs_(std::move(sigs)), target_text_(std::move(target_text)) {
    try {
      TempDir dir;
      std::string library = dir.path() + "/module.so";
      compile(source_, dir.path(), library, "building C");
      // The mapping outlives the file, which goes with the directory.
      handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle_) throw BuildError(std::string("building C: cannot load the compiled library: ") + dlerror());
      bind_interrupt_flag(handle_);
    } catch (const BuildError&) {
      throw;
    } catch (const std::runtime_error& e) {  // TempDir
      throw BuildError(std::string("building C: ") + e.what());
    }
  }

  EntryPoint entry(const std::string& name) const override {
    for (const auto& s : sigs_) {
      if (s.name == name) return reinterpret_cast<EntryPoint>(dlsym(handle_, name.c_str()));
    }
    return nullptr;
  }
  const std::vector<runtime::FunctionSignature>& functions() const override { return sigs_; }
  std::string source(const std::string& format) const override {
    if (format.empty() || format == "c") return source_;
    throw BuildError("get_source: unknown format \"" + format + "\" (a C module has \"c\")");
  }
  void export_library(const std::string& path) const override {
    // The library carries its signatures, as the LLVM one does, so load_module reads it.
    std::string table = encode_signatures(sigs_);
    std::string with_table = source_ + "\nconst char " + kSignatureSymbol + "[] = " + c_string(table) +
                             ";\nconst char " + kSignatureChecksumSymbol +
                             "[] = " + c_string(signature_checksum(table)) + ";\n";
    try {
      TempDir dir;
      bool object_only = path.size() > 2 && path.compare(path.size() - 2, 2, ".o") == 0;
      std::string built = dir.path() + (object_only ? "/module.o" : "/module.so");
      compile(with_table, dir.path(), built, "export_library");
      move_file_into_place(built, path);
    } catch (const BuildError&) {
      throw;
    } catch (const std::runtime_error& e) {
      throw BuildError(std::string("export_library: ") + e.what());
    }
  }
  std::string type_key() const override { return "c"; }
  std::string target_text() const override { return target_text_; }

 private:
  std::string source_;
  std::vector<runtime::FunctionSignature> sigs_;
  std::string target_text_;
  void* handle_ = nullptr;  // kept open for the life of the process: code may still be referenced
};

}  // namespace

void bind_interrupt_flag(void* library_handle) {
  using Binder = void (*)(volatile int32_t*);
  if (auto bind = reinterpret_cast<Binder>(dlsym(library_handle, kBindInterruptFlag))) bind(&tsch_interrupt_pending);
  using CallPacked = int32_t (*)(const char*, const TschPackedArg*, int32_t, int64_t*);
  using CallPackedBinder = void (*)(CallPacked);
  if (auto bind = reinterpret_cast<CallPackedBinder>(dlsym(library_handle, kBindCallPacked))) bind(&tsch_call_packed);
  using WorkspaceBinder = void (*)(void* (*)(int64_t), void (*)(void*));
  if (auto bind = reinterpret_cast<WorkspaceBinder>(dlsym(library_handle, kBindWorkspace)))
    bind(&tsch_workspace_alloc, &tsch_workspace_free);
}

runtime::CompiledModuleRef build_c(const ir::IRModule& lowered, const target::Target& target, bool interrupt_checks,
                                   bool poison_allocations) {
  CodeGenCHost gen(interrupt_checks, poison_allocations);
  std::vector<runtime::FunctionSignature> sigs;
  for (const auto& [name, f] : lowered->prim_funcs()) sigs.push_back(gen.add_function(name, f));
  return std::make_shared<CSourceModule>(gen.source(), std::move(sigs), target->str());
}

}  // namespace tsch::codegen
