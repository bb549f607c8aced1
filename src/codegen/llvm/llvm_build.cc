// LLVM 19: module emission, the new pass manager at O3 for the host (or the target's) CPU,
// ORC LLJIT for execution, assembly and shared libraries from the same optimized IR.
#include "codegen/llvm/llvm_build.h"

#include <dlfcn.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>

#include "codegen/llvm/emitter.h"
#include "ir/op.h"
#include "runtime/thread_pool.h"
#include "runtime/workspace.h"

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
  auto* tm = target->createTargetMachine(t.triple, t.cpu, t.features, options, reloc, std::nullopt, llvm::CodeGenOptLevel::Aggressive);
  if (!tm) throw BuildError("LLVM cannot create a machine for " + t.triple + " " + t.cpu);
  return std::unique_ptr<llvm::TargetMachine>(tm);
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
  llvm::OptimizationLevel opt = level <= 0 ? llvm::OptimizationLevel::O0 : level == 1 ? llvm::OptimizationLevel::O1
                               : level == 2 ? llvm::OptimizationLevel::O2 : llvm::OptimizationLevel::O3;
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

std::string emit_file(const std::string& ll, const ResolvedTarget& t, llvm::CodeGenFileType type, llvm::Reloc::Model reloc) {
  llvm::LLVMContext ctx;
  auto m = reparse(ll, ctx);
  auto tm = make_machine(t, reloc);
  m->setDataLayout(tm->createDataLayout());
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, type)) throw BuildError("LLVM cannot emit this file type for " + t.triple);
  pm.run(*m);
  return std::string(buffer.begin(), buffer.end());
}

// ---- signatures as text, so an exported library carries them ----
std::string expr_text(const ir::PrimExpr& e) {
  int64_t v;
  if (ir::as_const_int(e, &v)) return std::to_string(v);
  if (auto* var = ir::as<ir::VarNode>(e)) return "$" + var->name;
  throw BuildError("not supported yet: exporting a function whose buffer shape is a compound expression");
}

std::string encode(const std::vector<FunctionSignature>& sigs) {
  std::ostringstream os;
  for (const auto& s : sigs) {
    os << "func " << s.name << "\n";
    for (const auto& v : s.scalar_slots) os << "slot " << v->name << " " << v->dtype.to_string() << "\n";
    for (size_t i = 0; i < s.param_names.size(); ++i) {
      if (s.buffers[i]) {
        os << "buffer " << s.param_names[i] << " " << s.buffers[i]->name << " " << s.buffers[i]->dtype.to_string();
        for (const auto& d : s.buffers[i]->shape) os << " " << expr_text(d);
        os << "\n";
      } else {
        os << "scalar " << s.param_names[i] << " " << s.scalar_params[i]->name << "\n";
      }
    }
    os << "end\n";
  }
  return os.str();
}

std::vector<FunctionSignature> decode(const std::string& text) {
  std::vector<FunctionSignature> out;
  std::istringstream in(text);
  std::string word;
  std::unordered_map<std::string, ir::Var> slots;
  while (in >> word) {
    if (word == "func") {
      out.emplace_back();
      in >> out.back().name;
      slots.clear();
    } else if (word == "slot") {
      std::string name, dtype;
      in >> name >> dtype;
      ir::Var v = ir::make_var(name, *ir::DataType::parse(dtype));
      slots[name] = v;
      out.back().scalar_slots.push_back(v);
    } else if (word == "buffer") {
      std::string param, name, dtype, line;
      in >> param >> name >> dtype;
      std::getline(in, line);
      BufferParam b{name, *ir::DataType::parse(dtype), {}};
      std::istringstream dims(line);
      std::string d;
      while (dims >> d) b.shape.push_back(d[0] == '$' ? ir::PrimExpr(slots.at(d.substr(1))) : ir::make_int(std::stoll(d), ir::DataType::int64()));
      out.back().param_names.push_back(param);
      out.back().buffers.push_back(b);
      out.back().scalar_params.push_back(nullptr);
    } else if (word == "scalar") {
      std::string param, name;
      in >> param >> name;
      out.back().param_names.push_back(param);
      out.back().buffers.push_back(std::nullopt);
      out.back().scalar_params.push_back(slots.at(name));
    }
  }
  return out;
}

constexpr const char* kSignatureSymbol = "__tsch_signatures";

class JITModule : public CompiledModule {
 public:
  JITModule(std::unique_ptr<llvm::orc::LLJIT> jit, std::vector<FunctionSignature> sigs, std::string ll, ResolvedTarget target, std::string text)
      : jit_(std::move(jit)), sigs_(std::move(sigs)), ll_(std::move(ll)), target_(std::move(target)), text_(std::move(text)) {
    for (const auto& s : sigs_) {
      auto sym = jit_->lookup(s.name);
      if (!sym) throw BuildError("internal: JIT lookup of " + s.name + ": " + error_text(sym.takeError()));
      entries_[s.name] = sym->toPtr<EntryPoint>();
    }
  }
  EntryPoint entry(const std::string& name) const override {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : it->second;
  }
  const std::vector<FunctionSignature>& functions() const override { return sigs_; }
  std::string source(const std::string& format) const override {
    if (format == "ll" || format == "llvm") return ll_;
    if (format == "asm" || format == "s")
      return emit_file(ll_, target_, llvm::CodeGenFileType::AssemblyFile, llvm::Reloc::PIC_);
    throw BuildError("get_source: unknown format \"" + format + "\" (use \"ll\" or \"asm\")");
  }
  void export_library(const std::string& path) const override {
    // One object file with the code and its signatures, linked by the system compiler.
    llvm::LLVMContext ctx;
    auto m = reparse(ll_, ctx);
    std::string sig_text = encode(sigs_);
    auto* init = llvm::ConstantDataArray::getString(ctx, sig_text, true);
    new llvm::GlobalVariable(*m, init->getType(), true, llvm::GlobalValue::ExternalLinkage, init, kSignatureSymbol);
    std::string with_sigs = print_module(*m);
    std::string obj = emit_file(with_sigs, target_, llvm::CodeGenFileType::ObjectFile, llvm::Reloc::PIC_);
    std::string obj_path = path + ".o";
    {
      std::ofstream out(obj_path, std::ios::binary);
      if (!out) throw BuildError("export_library: cannot write " + obj_path);
      out.write(obj.data(), static_cast<std::streamsize>(obj.size()));
    }
    if (path.size() > 2 && path.substr(path.size() - 2) == ".o") {
      std::rename(obj_path.c_str(), path.c_str());
      return;
    }
    std::string cmd = "cc -shared -o '" + path + "' '" + obj_path + "' -lm 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string log;
    char buf[256];
    while (p && fgets(buf, sizeof buf, p)) log += buf;
    int rc = p ? pclose(p) : -1;
    std::remove(obj_path.c_str());
    if (rc != 0) throw BuildError("export_library: linking " + path + " with the system compiler (cc) failed: " + log);
  }
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
  for (const auto& [name, f] : lowered->functions) sigs.push_back(emit_function(*m, name, f));
  std::string verify;
  llvm::raw_string_ostream vs(verify);
  if (llvm::verifyModule(*m, &vs)) throw BuildError("internal: generated LLVM IR is invalid: " + vs.str() + "\n" + print_module(*m));
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
      llvm::orc::ExecutorAddr::fromPtr(&tsch_parallel_for), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  runtime_symbols[(*jit)->mangleAndIntern("tsch_workspace_alloc")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tsch_workspace_alloc), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  runtime_symbols[(*jit)->mangleAndIntern("tsch_workspace_free")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tsch_workspace_free), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(runtime_symbols)))) throw BuildError("LLVM JIT: " + error_text(std::move(err)));
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    throw BuildError("LLVM JIT: " + error_text(std::move(err)));
  return std::make_shared<JITModule>(std::move(*jit), std::move(sigs), std::move(ll), rt, target.text);
}

CompiledModuleRef load_llvm_library(const std::string& path) {
  std::string p = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw BuildError(std::string("cannot load module: ") + dlerror());
  auto* sigs = static_cast<const char*>(dlsym(handle, kSignatureSymbol));
  if (!sigs) {
    dlclose(handle);
    throw BuildError("cannot load module: " + path + " was not written by export_library (no function signatures)");
  }
  return std::make_shared<SharedLibraryModule>(handle, decode(sigs), path);
}

}  // namespace tsch::codegen
