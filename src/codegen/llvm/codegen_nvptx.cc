#include "codegen/llvm/codegen_nvptx.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/Support/raw_ostream.h>

#include <mutex>
#include <unordered_set>

#include "codegen/llvm/codegen_llvm.h"
#include "codegen/llvm/llvm_build.h"
#include "ir/op.h"

namespace tsch::codegen {
namespace {

// NVPTX's address space of shared memory.
constexpr unsigned kSharedAddressSpace = 3;

class CodeGenNVPTX final : public CodeGenLLVM {
 public:
  using CodeGenLLVM::CodeGenLLVM;

  void emit_kernel(const std::string& name, const ir::PrimFunc& f) {
    std::vector<llvm::Type*> params;
    for (const auto& p : f->params) params.push_back(p->dtype.is_handle() ? b_.getPtrTy() : type_of(p->dtype));
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
    fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, mod_);
    fn_->setCallingConv(llvm::CallingConv::PTX_Kernel);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    for (size_t i = 0; i < f->params.size(); ++i) {
      llvm::Argument* arg = fn_->getArg(static_cast<unsigned>(i));
      arg->setName(f->params[i]->name);
      if (arg->getType()->isPointerTy()) {
        arg->addAttr(llvm::Attribute::NoAlias);  // tir.noalias
        // Device memory comes from cudaMalloc, aligned to 256 bytes (TVM assumes 64): LLVM can
        // then make a vectorized loop's aligned accesses ld.global.v4.
        arg->addAttr(llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
      }
      vars_[f->params[i].get()] = arg;
    }
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
    emit(f->body);
    b_.CreateRetVoid();
    vars_.clear();
  }

 private:
  void emit_thread_binding(const ir::ForNode& n) override {
    static const std::unordered_map<std::string, llvm::Intrinsic::ID> sreg = {
        {"threadIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x},   {"threadIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y},
        {"threadIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},   {"blockIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
        {"blockIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y}, {"blockIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
    };
    auto it = sreg.find(n.thread_tag);
    if (it == sreg.end()) throw BuildError("not supported yet: the thread axis " + n.thread_tag + " in nvptx code");
    llvm::Value* index = b_.CreateIntrinsic(it->second, {}, {});
    // A loop nested in another bound to the same axis reads the same index.
    vars_[n.loop_var.get()] = b_.CreateIntCast(index, type_of(n.loop_var->dtype), true);
    emit(n.body);
    vars_.erase(n.loop_var.get());
  }

  void emit_allocate(const ir::AllocateNode& n) override {
    const ir::Buffer& buf = n.buffer;
    int64_t count = 1;
    for (const auto& d : buf->shape) {
      int64_t c;
      if (!ir::as_const_int(d, &c)) throw BuildError("not supported yet: the " + buf->scope + " buffer " + buf->name + " of a symbolic size in nvptx code");
      count *= c;
    }
    llvm::Type* array = llvm::ArrayType::get(memory_type(buf->dtype), static_cast<uint64_t>(std::max<int64_t>(count, 1)));
    llvm::Value* data;
    if (buf->scope == "shared") {
      // One per thread block: a module global in the shared address space, used through a
      // generic pointer like every other buffer.
      auto* global = new llvm::GlobalVariable(mod_, array, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(array),
                                              buf->name, nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
      global->setAlignment(llvm::Align(16));
      data = b_.CreateAddrSpaceCast(global, b_.getPtrTy());
    } else if (buf->scope == "local") {
      // At the function's entry, so that the stack slot is made once (and promoted to registers).
      llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      auto* slot = entry.CreateAlloca(array, nullptr, buf->name);
      slot->setAlignment(llvm::Align(16));
      data = slot;
    } else {
      throw BuildError("not supported yet: the " + buf->scope + " buffer " + buf->name + " in nvptx code");
    }
    vars_[buf->data.get()] = data;
    emit(n.body);
    vars_.erase(buf->data.get());
  }

  void emit_parallel(const ir::ForNode& n) override {
    throw BuildError("loop " + n.loop_var->name + " is a CPU parallel loop inside a GPU kernel (bind it to a GPU thread axis instead)");
  }

  llvm::Value* target_call(const ir::CallNode& n) override {
    if (n.op == "tvm_storage_sync") {
      auto* scope = n.args.size() == 1 ? ir::as<ir::StringImmNode>(n.args[0]) : nullptr;
      if (!scope || scope->value != "shared") throw BuildError("not supported yet: T.tvm_storage_sync other than \"shared\" in nvptx code");
      b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
      return b_.getInt32(0);
    }
    throw BuildError("not supported yet: the intrinsic T." + n.op + " in nvptx code");
  }

  // What NVPTX lowers by itself; the rest of the math needs libdevice.
  void check_call(const ir::CallNode& n) override {
    static const std::unordered_set<std::string> native = {"sqrt", "rsqrt", "fabs", "abs", "floor", "ceil", "trunc", "round",
                                                           "nearbyint", "isnan", "isinf", "isfinite", "popcount", "tvm_storage_sync"};
    if (native.count(n.op)) return;
    throw BuildError("not supported yet: T." + n.op +
                     " in nvptx code (LLVM's NVPTX backend needs NVIDIA's libdevice for it; target=\"cuda\" compiles it)");
  }
};

class NVPTXDeviceModule : public runtime::CompiledModule {
 public:
  NVPTXDeviceModule(std::string ptx, std::string ll, std::string target_text)
      : ptx_(std::move(ptx)), ll_(std::move(ll)), target_text_(std::move(target_text)) {}
  runtime::EntryPoint entry(const std::string&) const override { return nullptr; }
  const std::vector<runtime::FunctionSignature>& functions() const override { return none_; }
  std::string source(const std::string& format) const override {
    if (format.empty() || format == "ptx") return ptx_;
    if (format == "ll" || format == "llvm") return ll_;
    throw BuildError("get_source: unknown format \"" + format + "\" (an nvptx module has \"ptx\" and \"ll\")");
  }
  void export_library(const std::string&) const override {
    throw BuildError("not supported yet: export_library of GPU device code (loading it back needs the CUDA runtime)");
  }
  std::string target_text() const override { return target_text_; }
  std::string type_key() const override { return "cuda"; }

 private:
  std::string ptx_, ll_, target_text_;
  std::vector<runtime::FunctionSignature> none_;
};

// The PTX ISA version an architecture needs (LLVM's NVPTX defaults to an older one).
std::string ptx_features(const std::string& arch) {
  int sm = 0;
  if (arch.rfind("sm_", 0) == 0) sm = std::atoi(arch.c_str() + 3);
  if (sm >= 89) return "+ptx78";
  if (sm >= 86) return "+ptx71";
  if (sm >= 80) return "+ptx70";
  return "+ptx64";
}

}  // namespace

runtime::CompiledModuleRef build_nvptx_device(const ir::IRModule& kernels, const std::string& target_text, const std::string& arch) {
  llvm::LLVMContext ctx;
  llvm::Module m("tsch_nvptx", ctx);
  CodeGenNVPTX gen(m);
  for (const auto& [name, f] : kernels->prim_funcs()) gen.emit_kernel(name, f);
  std::string ll;
  {
    llvm::raw_string_ostream os(ll);
    m.print(os, nullptr);
  }
  std::string ptx = emit_device_assembly(m, "nvptx64-nvidia-cuda", arch, ptx_features(arch));
  return std::make_shared<NVPTXDeviceModule>(std::move(ptx), std::move(ll), target_text);
}

}  // namespace tsch::codegen
