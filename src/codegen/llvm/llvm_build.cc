// LLVM 19: module emission, the new pass manager at O3 for the host (or the target's) CPU,
// ORC LLJIT for execution, assembly and shared libraries from the same optimized IR.
#include "codegen/llvm/llvm_build.h"

#include <dlfcn.h>
#include <link.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "codegen/llvm/emitter.h"
#include "codegen/signature.h"
#include "codegen/source/c_module.h"
#include "codegen/source/codegen_cuda.h"
#include "ir/op.h"
#include "runtime/packed_call.h"
#include "runtime/thread_pool.h"
#include "runtime/workspace.h"
#include "support/files.h"
#include "support/interrupt.h"

namespace tsch::codegen {

using runtime::BufferParam;
using runtime::CompiledModule;
using runtime::EntryPoint;
namespace {

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::string error_text(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return os.str();
}

struct ResolvedTarget {
  std::string triple, cpu, features;
};

ResolvedTarget resolve(const LLVMTarget& t) {
  ResolvedTarget r;
  r.triple = t.triple.empty() ? llvm::sys::getProcessTriple() : t.triple;
  r.cpu = t.cpu.empty() ? llvm::sys::getHostCPUName().str() : t.cpu;
  if (!t.features.empty()) {
    r.features = t.features;
  } else if (t.cpu.empty()) {
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    if (!host.empty()) {
      std::string f;
      for (auto& kv : host) f += std::string(f.empty() ? "" : ",") + (kv.second ? "+" : "-") + kv.first().str();
      r.features = f;
    }
  }
  return r;
}

std::unique_ptr<llvm::TargetMachine> make_machine(const ResolvedTarget& t, llvm::Reloc::Model reloc) {
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, err);
  if (!target) throw BuildError("LLVM target " + t.triple + ": " + err);
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  auto* tm = target->createTargetMachine(t.triple, t.cpu, t.features, options, reloc, std::nullopt,
                                         llvm::CodeGenOptLevel::Aggressive);
  if (!tm) throw BuildError("LLVM cannot create a machine for " + t.triple + " " + t.cpu);
  return std::unique_ptr<llvm::TargetMachine>(tm);
}

// The CPU feature an x86 intrinsic needs (T.call_llvm_pure_intrin), or "" when not known:
// LLVM aborts the process on an intrinsic its target cannot select, so tsch refuses first.
std::string x86_intrinsic_feature(llvm::StringRef name) {
  static const std::pair<const char*, const char*> table[] = {{"llvm.x86.avx512.vpdpbusd", "avx512vnni"},
                                                              {"llvm.x86.avx512.vpdpwssd", "avx512vnni"},
                                                              {"llvm.x86.avx512.pmaddubs.w.512", "avx512bw"},
                                                              {"llvm.x86.avx512.pmaddw.d.512", "avx512bw"},
                                                              {"llvm.x86.avx512.", "avx512f"},
                                                              {"llvm.x86.avx2.", "avx2"},
                                                              {"llvm.x86.fma.", "fma"},
                                                              {"llvm.x86.avx.", "avx"},
                                                              {"llvm.x86.sse41.", "sse4.1"},
                                                              {"llvm.x86.ssse3.", "ssse3"}};
  for (const auto& [prefix, feature] : table) {
    if (name.starts_with(prefix)) return feature;
  }
  return "";
}

void check_intrinsic_features(const llvm::Module& m, const llvm::TargetMachine& tm, const std::string& target_text) {
  for (const llvm::Function& f : m) {
    if (!f.isDeclaration() || !f.getName().starts_with("llvm.x86.")) continue;
    std::string feature = x86_intrinsic_feature(f.getName());
    if (feature.empty() || tm.getMCSubtargetInfo()->checkFeatures("+" + feature)) continue;
    throw BuildError("the LLVM intrinsic " + f.getName().str() + " needs the CPU feature " + feature +
                     ", which target \"" + target_text + "\" (cpu " + tm.getTargetCPU().str() +
                     ") does not have: build for a CPU that has it (e.g. -mcpu=cascadelake for "
                     "avx512vnni) or tensorize with an intrinsic this CPU has");
  }
}

// CPU features the generated code may use that this machine lacks: code built for another
// CPU (-mcpu=...) compiles here but would die of an illegal instruction if run.
std::vector<std::string> features_missing_here(const llvm::TargetMachine& tm) {
  std::vector<std::string> out;
  if (llvm::Triple(tm.getTargetTriple()).getArch() != llvm::Triple(llvm::sys::getProcessTriple()).getArch()) return out;
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  if (host.empty()) return out;
  for (const char* f : {"sse4.1", "sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512dq", "avx512vl",
                        "avx512vnni", "avxvnni", "avx512bf16", "avx512fp16", "amx-tile", "amx-int8", "amx-bf16"}) {
    if (tm.getMCSubtargetInfo()->checkFeatures(std::string("+") + f) && !host.lookup(f)) out.push_back(f);
  }
  return out;
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm, int level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = level >= 2;
  tuning.SLPVectorization = level >= 2;
  tuning.LoopUnrolling = level >= 2;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel opt = level <= 0   ? llvm::OptimizationLevel::O0
                                : level == 1 ? llvm::OptimizationLevel::O1
                                : level == 2 ? llvm::OptimizationLevel::O2
                                             : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level <= 0 ? pb.buildO0DefaultPipeline(opt) : pb.buildPerModuleDefaultPipeline(opt);
  mpm.run(m, mam);
}

std::string print_module(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return os.str();
}

// Parses LLVM IR text into a fresh module in `ctx` (the JIT owns the original's context).
std::unique_ptr<llvm::Module> reparse(const std::string& ll, llvm::LLVMContext& ctx) {
  llvm::SMDiagnostic diag;
  auto m = llvm::parseIR(llvm::MemoryBufferRef(ll, "tsch"), diag, ctx);
  if (!m) throw BuildError("internal: generated LLVM IR does not parse back: " + diag.getMessage().str());
  return m;
}

std::string emit_file(const std::string& ll, const ResolvedTarget& t, llvm::CodeGenFileType type,
                      llvm::Reloc::Model reloc) {
  llvm::LLVMContext ctx;
  auto m = reparse(ll, ctx);
  auto tm = make_machine(t, reloc);
  m->setDataLayout(tm->createDataLayout());
  check_intrinsic_features(*m, *tm, t.triple);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, type))
    throw BuildError("LLVM cannot emit this file type for " + t.triple);
  pm.run(*m);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace

std::string emit_device_assembly(llvm::Module& m, const std::string& triple, const std::string& cpu,
                                 const std::string& features) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
  auto tm = make_machine(ResolvedTarget{triple, cpu, features}, llvm::Reloc::PIC_);
  m.setTargetTriple(triple);
  m.setDataLayout(tm->createDataLayout());
  std::string problems;
  llvm::raw_string_ostream report(problems);
  if (llvm::verifyModule(m, &report))
    throw BuildError("internal: the generated " + triple + " LLVM IR does not verify: " + report.str());
  optimize(m, *tm, 3);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw BuildError("LLVM cannot emit assembly for " + triple);
  pm.run(m);
  return std::string(buffer.begin(), buffer.end());
}

namespace {

class JITModule : public CompiledModule {
 public:
  JITModule(std::unique_ptr<llvm::orc::LLJIT> jit, std::vector<FunctionSignature> sigs, std::string ll,
            ResolvedTarget target, std::string text)
      : jit_(std::move(jit)),
        sigs_(std::move(sigs)),
        ll_(std::move(ll)),
        target_(std::move(target)),
        text_(std::move(text)) {
    for (const auto& s : sigs_) {
      auto sym = jit_->lookup(s.name);
      if (!sym) throw BuildError("internal: JIT lookup of " + s.name + ": " + error_text(sym.takeError()));
      entries_[s.name] = sym->toPtr<EntryPoint>();
    }
  }
  EntryPoint entry(const std::string& name) const override {
    if (!missing_features.empty()) {
      std::string list;
      for (const auto& f : missing_features) list += (list.empty() ? "" : ", ") + f;
      throw BuildError("cannot run " + name + " here: it was built for target \"" + text_ + "\" (cpu " + target_.cpu +
                       "), whose instructions this machine's CPU (" + llvm::sys::getHostCPUName().str() +
                       ") lacks: " + list + " (export_library it and run it on such a machine)");
    }
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : it->second;
  }
  const std::vector<FunctionSignature>& functions() const override { return sigs_; }
  std::string source(const std::string& format) const override {
    if (format.empty() || format == "ll" || format == "llvm") return ll_;
    if (format == "asm" || format == "s")
      return emit_file(ll_, target_, llvm::CodeGenFileType::AssemblyFile, llvm::Reloc::PIC_);
    throw BuildError("get_source: unknown format \"" + format + "\" (use \"ll\" or \"asm\")");
  }
  void export_library(const std::string& path) const override { export_with(path, {}); }
  std::vector<std::string> missing_features;

  // The code and its signatures (and `data`: further string symbols) in one object file,
  // linked by the system compiler.
  void export_with(const std::string& path, const std::vector<std::pair<std::string, std::string>>& data) const {
    llvm::LLVMContext ctx;
    auto m = reparse(ll_, ctx);
    std::vector<std::pair<std::string, std::string>> strings = data;
    std::string table = encode_signatures(sigs_);
    strings.emplace_back(kSignatureSymbol, table);
    strings.emplace_back(kSignatureChecksumSymbol, signature_checksum(table));
    for (const auto& [symbol, text] : strings) {
      auto* init = llvm::ConstantDataArray::getString(ctx, text, true);
      new llvm::GlobalVariable(*m, init->getType(), true, llvm::GlobalValue::ExternalLinkage, init, symbol);
    }
    std::string with_sigs = print_module(*m);
    std::string obj = emit_file(with_sigs, target_, llvm::CodeGenFileType::ObjectFile, llvm::Reloc::PIC_);
    // The object and the linked library are made in a private directory and moved onto
    // `path` only once complete: a failure leaves whatever was at `path` as it was, and no
    // file next to it is used or removed. The linker starts from an argv, never a shell.
    try {
      TempDir dir;
      std::string built = dir.path() + "/module.o";
      {
        std::ofstream out(built, std::ios::binary);
        out.write(obj.data(), static_cast<std::streamsize>(obj.size()));
        if (!out.flush()) throw BuildError("export_library: cannot write a temporary object file in " + dir.path());
      }
      bool object_only = path.size() > 2 && path.compare(path.size() - 2, 2, ".o") == 0;
      if (!object_only) {
        std::string object = built;
        built = dir.path() + "/module.so";
        ProcessResult link = run_process({"cc", "-shared", "-o", built, object, "-lm"});
        if (link.exit_code != 0)
          throw BuildError("export_library: linking " + path + " with the system compiler (cc) failed: " + link.output);
      }
      move_file_into_place(built, path);
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const BuildError*>(&e)) throw;
      throw BuildError(std::string("export_library: ") + e.what());
    }
  }
  std::string type_key() const override { return "llvm"; }
  std::string target_text() const override { return text_; }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<FunctionSignature> sigs_;
  std::string ll_;
  ResolvedTarget target_;
  std::string text_;
  std::unordered_map<std::string, EntryPoint> entries_;
};

class SharedLibraryModule : public CompiledModule {
 public:
  SharedLibraryModule(void* handle, std::vector<FunctionSignature> sigs, std::string path)
      : handle_(handle), sigs_(std::move(sigs)), path_(std::move(path)) {
    for (const auto& s : sigs_) entries_[s.name] = reinterpret_cast<EntryPoint>(dlsym(handle_, s.name.c_str()));
  }
  EntryPoint entry(const std::string& name) const override {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : it->second;
  }
  const std::vector<FunctionSignature>& functions() const override { return sigs_; }
  std::string source(const std::string&) const override {
    throw BuildError("get_source: a module loaded from " + path_ + " has no source");
  }
  void export_library(const std::string&) const override {
    throw BuildError("export_library: the module was loaded from " + path_ + "; copy that file instead");
  }
  std::string type_key() const override { return "library"; }  // TVM's key for a loaded shared library
  std::string target_text() const override { return "llvm"; }

 private:
  void* handle_;  // kept open for the life of the process: code may still be referenced
  std::vector<FunctionSignature> sigs_;
  std::string path_;
  std::unordered_map<std::string, EntryPoint> entries_;
};

}  // namespace

CompiledModuleRef build_llvm(const ir::IRModule& lowered, const LLVMTarget& target) {
  init_llvm();
  ResolvedTarget rt = resolve(target);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("tsch", *ctx);
  auto tm = make_machine(rt, llvm::Reloc::PIC_);
  m->setDataLayout(tm->createDataLayout());
  m->setTargetTriple(rt.triple);
  std::vector<FunctionSignature> sigs;
  for (const auto& [name, f] : lowered->prim_funcs())
    sigs.push_back(emit_function(*m, name, f, target.interrupt_checks, target.poison_allocations));
  std::string verify;
  llvm::raw_string_ostream vs(verify);
  if (llvm::verifyModule(*m, &vs))
    throw BuildError("internal: generated LLVM IR is invalid: " + vs.str() + "\n" + print_module(*m));
  check_intrinsic_features(*m, *tm, target.text);
  std::vector<std::string> missing = features_missing_here(*tm);
  optimize(*m, *tm, target.opt_level);
  std::string ll = print_module(*m);

  auto jtmb = llvm::orc::JITTargetMachineBuilder(llvm::Triple(rt.triple));
  jtmb.setCPU(rt.cpu);
  if (!rt.features.empty()) {
    llvm::SubtargetFeatures features(rt.features);
    jtmb.addFeatures(features.getFeatures());
  }
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) throw BuildError("LLVM JIT: " + error_text(jit.takeError()));
  auto& dylib = (*jit)->getMainJITDylib();
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!gen) throw BuildError("LLVM JIT: " + error_text(gen.takeError()));
  dylib.addGenerator(std::move(*gen));
  llvm::orc::SymbolMap runtime_symbols;
  runtime_symbols[(*jit)->mangleAndIntern("tsch_parallel_for")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tsch_parallel_for),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  runtime_symbols[(*jit)->mangleAndIntern("tsch_workspace_alloc")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tsch_workspace_alloc),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  runtime_symbols[(*jit)->mangleAndIntern("tsch_workspace_free")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tsch_workspace_free),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  runtime_symbols[(*jit)->mangleAndIntern("tsch_call_packed")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tsch_call_packed),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  runtime_symbols[(*jit)->mangleAndIntern("tsch_interrupt_pending")] = {
      llvm::orc::ExecutorAddr::fromPtr(const_cast<int32_t*>(&tsch_interrupt_pending)), llvm::JITSymbolFlags::Exported};
  if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(runtime_symbols))))
    throw BuildError("LLVM JIT: " + error_text(std::move(err)));
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    throw BuildError("LLVM JIT: " + error_text(std::move(err)));
  auto out = std::make_shared<JITModule>(std::move(*jit), std::move(sigs), std::move(ll), rt, target.text);
  out->missing_features = std::move(missing);
  return out;
}

void export_llvm_library(const CompiledModuleRef& m, const std::string& path,
                         const std::vector<std::pair<std::string, std::string>>& data) {
  auto* jit = dynamic_cast<const JITModule*>(m.get());
  if (!jit) throw BuildError("internal: export_llvm_library of a module that is not LLVM JIT code");
  jit->export_with(path, data);
}

// A NUL-terminated string symbol of `handle`, read no further than the symbol's size; null
// when the library does not define it, `bad` set when it is not terminated inside itself.
static const char* string_symbol(void* handle, const char* name, bool& bad) {
  auto* text = static_cast<const char*>(dlsym(handle, name));
  if (!text) return nullptr;
  Dl_info info;
  void* sym_entry = nullptr;
  const auto* sym = static_cast<const ElfW(Sym)*>(nullptr);
  if (dladdr1(text, &info, &sym_entry, RTLD_DL_SYMENT)) sym = static_cast<const ElfW(Sym)*>(sym_entry);
  bad = !sym || sym->st_size == 0 || std::memchr(text, '\0', sym->st_size) == nullptr;
  return text;
}

CompiledModuleRef load_llvm_library(const std::string& path) {
  std::string p = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::string why = dlerror();  // "PATH: reason"
    if (why.rfind(p + ": ", 0) == 0) why = why.substr(p.size() + 2);
    throw BuildError("cannot load module " + path + ": " + why);
  }
  auto fail = [&](const std::string& why) {
    dlclose(handle);
    throw BuildError("cannot load module " + path + ": " + why);
  };
  bool bad = false;
  const char* table = string_symbol(handle, kSignatureSymbol, bad);
  if (!table) fail("it was not written by export_library (no function signatures)");
  // The table must end inside its own symbol, parse, and be the one export_library wrote: the
  // shapes in it size the arrays the code is handed.
  if (bad) fail("its function table is not a terminated string");
  std::vector<FunctionSignature> sigs;
  try {
    sigs = decode_signatures(table);
  } catch (const BuildError& e) {
    fail(e.what());
  }
  for (const auto& s : sigs)
    if (!dlsym(handle, s.name.c_str()))
      fail("the function table names " + s.name + ", which the library does not define");
  bool bad_sum = false;
  const char* checksum = string_symbol(handle, kSignatureChecksumSymbol, bad_sum);
  if (!checksum || bad_sum || signature_checksum(table) != checksum)
    fail("its function table does not match its checksum (the library was changed after export_library wrote it)");
  bind_interrupt_flag(handle);  // a C library polls Ctrl-C through the runtime's flag
  auto library = std::make_shared<SharedLibraryModule>(handle, std::move(sigs), path);
  // A CUDA build: its host functions launch the kernels of the PTX it carries.
  bool bad_ptx = false, bad_kernels = false;
  const char* ptx = string_symbol(handle, kCudaPtxSymbol, bad_ptx);
  const char* kernels = string_symbol(handle, kCudaKernelsSymbol, bad_kernels);
  if (!ptx && !kernels) return library;
  if (!ptx || !kernels || bad_ptx || bad_kernels) fail("its CUDA kernels (PTX and kernel table) are incomplete");
  try {
    return cuda_library_module(library, ptx, kernels, path);
  } catch (const BuildError& e) {
    fail(e.what());
  }
  return nullptr;
}

}  // namespace tsch::codegen
