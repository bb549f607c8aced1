#include "codegen/llvm/codegen_nvptx.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <unordered_set>

#include "codegen/llvm/codegen_llvm.h"
#include "codegen/llvm/llvm_build.h"
#include "codegen/source/codegen_cuda.h"
#include "ir/op.h"
#include "transform/mma_builtins.h"
#include "transform/split_host_device.h"

namespace tsch::codegen {
namespace {

// NVPTX's address space of shared memory.
constexpr unsigned kSharedAddressSpace = 3;

// NVIDIA's libdevice (the CUDA toolkit's math library as LLVM bitcode), which the math that
// NVPTX cannot lower by itself calls: TSCH_LIBDEVICE (a path, or "none"), else
// $CUDA_HOME/nvvm/libdevice/libdevice.10.bc, else /usr/local/cuda's. Empty, with `why`, when
// there is none.
std::string libdevice_path(std::string* why) {
  const char* chosen = std::getenv("TSCH_LIBDEVICE");
  if (chosen && std::string(chosen) == "none") {
    *why = "TSCH_LIBDEVICE=none";
    return {};
  }
  std::vector<std::string> candidates;
  if (chosen && *chosen) candidates.push_back(chosen);
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    candidates.push_back(std::string(home) + "/nvvm/libdevice/libdevice.10.bc");
  candidates.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  for (const auto& c : candidates)
    if (access(c.c_str(), R_OK) == 0) return c;
  *why = "libdevice.10.bc is not found in $TSCH_LIBDEVICE, $CUDA_HOME/nvvm/libdevice or /usr/local/cuda/nvvm/libdevice";
  return {};
}

// The math libdevice provides (__nv_<op>f / __nv_<op>), as LLVM intrinsics or C math calls.
const std::unordered_set<std::string>& libdevice_ops() {
  static const std::unordered_set<std::string> ops = {"exp",  "exp2", "log",   "log2",  "log10", "sin",     "cos",
                                                      "pow",  "tanh", "tan",   "asin",  "acos",  "atan",    "sinh",
                                                      "cosh", "erf",  "log1p", "atan2", "fmod",  "sigmoid", "exp10"};
  return ops;
}

// Calls of llvm.<op>.f32 / .f64 and of C's <op>f / <op> become calls of libdevice's
// __nv_<op>f / __nv_<op>, and libdevice is linked in (only what is called; internalized, so
// O3 inlines it and drops the rest).
void link_libdevice(llvm::Module& m, const std::string& path) {
  std::vector<llvm::Function*> declarations;
  for (llvm::Function& f : m)
    if (f.isDeclaration()) declarations.push_back(&f);
  for (llvm::Function* f : declarations) {
    std::string name = f->getName().str();
    std::string base, suffix;
    llvm::Type* ret = f->getReturnType();
    if (f->isIntrinsic()) {
      if (name.rfind("llvm.nvvm.", 0) == 0) continue;
      std::string rest = name.substr(5);  // after "llvm."
      base = rest.substr(0, rest.find('.'));
      if (!libdevice_ops().count(base)) continue;
      if (!ret->isFloatTy() && !ret->isDoubleTy())
        throw BuildError("not supported yet: " + name +
                         " in nvptx code (libdevice has scalar math only; vectorized math is not lowered)");
    } else {
      base = name;
      if (!ret->isFloatTy() && !ret->isDoubleTy()) continue;
      if (ret->isFloatTy() && !base.empty() && base.back() == 'f') base.pop_back();
      if (!libdevice_ops().count(base)) continue;
    }
    suffix = ret->isFloatTy() ? "f" : "";
    llvm::FunctionCallee nv = m.getOrInsertFunction("__nv_" + base + suffix, f->getFunctionType());
    f->replaceAllUsesWith(nv.getCallee());
    f->eraseFromParent();
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) throw BuildError("cannot read libdevice " + path + ": " + buffer.getError().message());
  auto lib = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), m.getContext());
  if (!lib) {
    std::string message;
    llvm::handleAllErrors(lib.takeError(), [&](const llvm::ErrorInfoBase& e) { message = e.message(); });
    throw BuildError("cannot parse libdevice " + path + ": " + message);
  }
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded))
    throw BuildError("cannot link libdevice " + path + " into the kernels");
  for (llvm::Function& f : m)
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  // libdevice asks __nvvm_reflect whether to flush denormals: no (CUDA's default).
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", static_cast<uint32_t>(0));
}

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
    kernel_body_ = f->body;
    emit(f->body);
    b_.CreateRetVoid();
    vars_.clear();
  }

 private:
  void emit_thread_binding(const ir::ForNode& n) override {
    static const std::unordered_map<std::string, llvm::Intrinsic::ID> sreg = {
        {"threadIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x},
        {"threadIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y},
        {"threadIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},
        {"blockIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
        {"blockIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y},
        {"blockIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
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
      if (!ir::as_const_int(d, &c))
        throw BuildError("not supported yet: the " + buf->scope + " buffer " + buf->name +
                         " of a symbolic size in nvptx code");
      count *= c;
    }
    llvm::Type* array =
        llvm::ArrayType::get(memory_type(buf->dtype), static_cast<uint64_t>(std::max<int64_t>(count, 1)));
    llvm::Value* data;
    if (buf->scope == "shared") {
      // One per thread block: a module global in the shared address space, used through a
      // generic pointer like every other buffer.
      auto* global =
          new llvm::GlobalVariable(mod_, array, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(array),
                                   buf->name, nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
      global->setAlignment(llvm::Align(16));
      data = b_.CreateAddrSpaceCast(global, b_.getPtrTy());
    } else if (buf->scope == "shared.dyn") {
      // The kernel's dynamic shared memory (an extern array in the shared address space, sized
      // at launch), this buffer at its offset in the layout the launch was sized by.
      int64_t total = 0;
      int64_t offset = -1;
      for (const auto& [b, off] : transform::dyn_shared_layout(kernel_body_, &total))
        if (b == buf.get()) offset = off;
      if (offset < 0)
        throw BuildError("internal: the shared.dyn buffer " + buf->name + " is not in its kernel's layout");
      llvm::GlobalVariable* block = mod_.getGlobalVariable("buf_dyn_shmem", true);
      if (!block) {
        auto* type = llvm::ArrayType::get(b_.getInt8Ty(), 0);
        block =
            new llvm::GlobalVariable(mod_, type, false, llvm::GlobalValue::ExternalLinkage, nullptr, "buf_dyn_shmem",
                                     nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
        block->setAlignment(llvm::Align(16));
      }
      llvm::Value* at = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), block, static_cast<uint64_t>(offset));
      data = b_.CreateAddrSpaceCast(at, b_.getPtrTy());
    } else if (buf->scope == "local") {
      // At the function's entry, so that the stack slot is made once (and promoted to registers).
      llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      auto* slot = entry.CreateAlloca(array, nullptr, buf->name);
      slot->setAlignment(llvm::Align(16));
      data = slot;
    } else {
      throw BuildError("not supported yet: the " + buf->scope + " buffer " + buf->name + " in nvptx code" +
                       (buf->scope.rfind("wmma.", 0) == 0
                            ? std::string(" (tensor-core fragments: build for target cuda, whose CUDA C has them)")
                            : std::string()));
    }
    vars_[buf->data.get()] = data;
    emit(n.body);
    vars_.erase(buf->data.get());
  }

  void emit_parallel(const ir::ForNode& n) override {
    throw BuildError("loop " + n.loop_var->name +
                     " is a CPU parallel loop inside a GPU kernel (bind it to a GPU thread axis instead)");
  }

  llvm::Value* target_call(const ir::CallNode& n) override {
    if (n.op == "tvm_storage_sync") {
      auto* scope = n.args.size() == 1 ? ir::as<ir::StringImmNode>(n.args[0]) : nullptr;
      if (!scope || (scope->value != "shared" && scope->value != "shared.dyn"))
        throw BuildError("not supported yet: T.tvm_storage_sync other than \"shared\" in nvptx code");
      b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
      return b_.getInt32(0);
    }
    if (n.op == "tvm_warp_activemask") return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_activemask, {}, {});
    // Asynchronous copies (sm_80): the shared destination and global source in their own
    // address spaces; 16 bytes bypass L1 as in CUDA C.
    if (n.op == "ptx_cp_async" && n.args.size() == 5) {
      int64_t bytes = 0;
      if (!ir::as_const_int(n.args[4], &bytes) || (bytes != 4 && bytes != 8 && bytes != 16))
        throw BuildError("T.ptx_cp_async copies 4, 8 or 16 bytes");
      uses_cp_async_ = true;
      llvm::Value* elem = b_.getInt64(n.dtype.bits / 8);
      auto address = [&](const ir::PrimExpr& data, const ir::PrimExpr& offset, unsigned space) {
        llvm::Value* i = b_.CreateMul(b_.CreateIntCast(emit(offset), b_.getInt64Ty(), true), elem);
        llvm::Value* p = b_.CreateGEP(b_.getInt8Ty(), emit(data), i);
        return b_.CreateAddrSpaceCast(p, llvm::PointerType::get(ctx_, space));
      };
      llvm::Intrinsic::ID id = bytes == 16  ? llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16
                               : bytes == 8 ? llvm::Intrinsic::nvvm_cp_async_ca_shared_global_8
                                            : llvm::Intrinsic::nvvm_cp_async_ca_shared_global_4;
      b_.CreateIntrinsic(id, {},
                         {address(n.args[0], n.args[1], kSharedAddressSpace), address(n.args[2], n.args[3], 1)});
      return b_.getInt32(0);
    }
    if (n.op == "ptx_commit_group" && n.args.empty()) {
      uses_cp_async_ = true;
      b_.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {});
      return b_.getInt32(0);
    }
    if (n.op == "ptx_wait_group" && n.args.size() == 1) {
      int64_t count = 0;
      if (!ir::as_const_int(n.args[0], &count)) throw BuildError("T.ptx_wait_group needs a constant count");
      uses_cp_async_ = true;
      b_.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {}, {b_.getInt32(static_cast<uint32_t>(count))});
      return b_.getInt32(0);
    }
    if ((n.op == "tvm_warp_shuffle_down" || n.op == "tvm_warp_shuffle") && n.args.size() == 5) {
      // shfl.sync's c operand: the segment mask ((32 - width) << 8) and the lane clamp 31.
      int64_t width = 32;
      if (!ir::as_const_int(n.args[3], &width))
        throw BuildError("not supported yet: a warp shuffle of symbolic width in nvptx code");
      DataType t = n.args[1]->dtype;
      bool f32 = t.is_float() && t.bits == 32, i32 = (t.is_int() || t.is_uint()) && t.bits == 32;
      if (t.lanes != 1 || (!f32 && !i32))
        throw BuildError("not supported yet: a warp shuffle of " + t.to_string() + " in nvptx code");
      bool down = n.op == "tvm_warp_shuffle_down";
      llvm::Intrinsic::ID id =
          down ? (f32 ? llvm::Intrinsic::nvvm_shfl_sync_down_f32 : llvm::Intrinsic::nvvm_shfl_sync_down_i32)
               : (f32 ? llvm::Intrinsic::nvvm_shfl_sync_idx_f32 : llvm::Intrinsic::nvvm_shfl_sync_idx_i32);
      llvm::Value* clamp = b_.getInt32(static_cast<uint32_t>(((32 - width) << 8) | 0x1f));
      llvm::Value* lane = b_.CreateIntCast(emit(n.args[2]), b_.getInt32Ty(), true);
      return b_.CreateIntrinsic(id, {}, {emit(n.args[0]), emit(n.args[1]), lane, clamp});
    }
    throw BuildError("not supported yet: the intrinsic T." + n.op + " in nvptx code");
  }

  // What NVPTX lowers by itself; the rest of the math needs libdevice (linked when found).
  void check_call(const ir::CallNode& n) override {
    static const std::unordered_set<std::string> native = {"sqrt",
                                                           "rsqrt",
                                                           "fabs",
                                                           "abs",
                                                           "floor",
                                                           "ceil",
                                                           "trunc",
                                                           "round",
                                                           "nearbyint",
                                                           "isnan",
                                                           "isinf",
                                                           "isfinite",
                                                           "popcount",
                                                           "tvm_storage_sync",
                                                           "tvm_warp_activemask",
                                                           "tvm_warp_shuffle_down",
                                                           "tvm_warp_shuffle",
                                                           "ptx_cp_async",
                                                           "ptx_commit_group",
                                                           "ptx_wait_group"};
    if (native.count(n.op)) return;
    if (transform::is_mma_call(n)) {
      throw BuildError("not supported yet: T." + n.op +
                       " in nvptx code (tsch's NVPTX generator has no ldmatrix / mma.sync; target=\"cuda\" "
                       "writes them as inline PTX)");
    }
    std::string why;
    if (libdevice_ops().count(n.op)) {
      libdevice_ = libdevice_path(&why);
      if (!libdevice_.empty()) return;
    }
    throw BuildError("not supported yet: T." + n.op +
                     " in nvptx code (LLVM's NVPTX backend needs NVIDIA's libdevice for it" +
                     (why.empty() ? std::string() : ": " + why) + "; target=\"cuda\" compiles it)");
  }

 public:
  // libdevice's path when the kernels call its math, else empty.
  const std::string& libdevice() const { return libdevice_; }
  bool uses_cp_async() const { return uses_cp_async_; }

 private:
  std::string libdevice_;
  bool uses_cp_async_ = false;
  ir::Stmt kernel_body_;  // the kernel being emitted (its shared.dyn layout)
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
std::string ptx_features(const target::Target& target) {
  int sm = target::cuda_sm_version(target);
  if (sm >= 89) return "+ptx78";
  if (sm >= 86) return "+ptx71";
  if (sm >= 80) return "+ptx70";
  return "+ptx64";
}

}  // namespace

runtime::CompiledModuleRef build_nvptx_device(const ir::IRModule& kernels, const target::Target& target) {
  std::string arch = target::cuda_arch(target);
  llvm::LLVMContext ctx;
  llvm::Module m("tsch_nvptx", ctx);
  CodeGenNVPTX gen(m);
  for (const auto& [name, f] : kernels->prim_funcs()) gen.emit_kernel(name, f);
  check_cp_async_arch(gen.uses_cp_async(), target);
  std::string ll;
  {
    llvm::raw_string_ostream os(ll);
    m.print(os, nullptr);
  }
  if (!gen.libdevice().empty()) {
    m.setTargetTriple("nvptx64-nvidia-cuda");
    link_libdevice(m, gen.libdevice());
  }
  std::string ptx = emit_device_assembly(m, "nvptx64-nvidia-cuda", arch, ptx_features(target));
  return std::make_shared<NVPTXDeviceModule>(std::move(ptx), std::move(ll), target->str());
}

}  // namespace tsch::codegen
