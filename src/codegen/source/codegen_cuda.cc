#include "codegen/source/codegen_cuda.h"

#include <map>
#include <mutex>

#include "arith/known_divisor.h"
#include "arith/simplify.h"
#include "codegen/llvm/llvm_build.h"
#include "codegen/signature.h"
#include "codegen/source/nvrtc.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "runtime/cuda/cuda_module.h"
#include "support/error.h"
#include "transform/split_host_device.h"

namespace tsch::codegen {

using namespace ir;

namespace {

// The element type of the data pointer `data` in `body` (from the buffer declared over it).
DataType pointee_type(const Stmt& body, const VarNode* data) {
  DataType t = DataType::void_();
  bool found = false;
  for_each_stmt(body, [&](const Stmt& s) {
    if (found) return;
    if (auto* d = as<DeclBufferNode>(s); d && d->buffer->data.get() == data) t = d->buffer->dtype, found = true;
    if (auto* st = as<BufferStoreNode>(s); st && st->buffer->data.get() == data) t = st->buffer->dtype, found = true;
  });
  if (!found) {
    for_each_expr(body, [&](const PrimExpr& e) {
      if (auto* l = as<BufferLoadNode>(e); !found && l && l->buffer->data.get() == data)
        t = l->buffer->dtype, found = true;
      // An asynchronous copy's source or destination, in elements of the call's type.
      if (auto* c = as<CallNode>(e); !found && c && c->op == "ptx_cp_async" && c->args.size() == 5 &&
                                     (c->args[0].get() == data || c->args[2].get() == data))
        t = c->dtype, found = true;
      // A pointer into it (T.tvm_access_ptr: the tensor-core loads and stores), of its type.
      if (auto* c = as<CallNode>(e);
          !found && c && c->op == "tvm_access_ptr" && c->args.size() == 5 && c->args[1].get() == data)
        t = c->args[0]->dtype, found = true;
    });
  }
  if (!found) throw BuildError("internal: no buffer declares the kernel parameter " + data->name);
  return t;
}

}  // namespace

namespace {

// sm_80's asynchronous copies from global to shared memory (TVM writes the same PTX inline):
// 16 bytes bypass L1 (.cg), smaller copies cache in it (.ca, the only form for them).
const char* kCpAsyncHelpers =
    "__device__ __forceinline__ void tvm_cp_async_4(void* dst, const void* src) {\n"
    "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\\n\" :: \"r\"((unsigned)__cvta_generic_to_shared(dst)), "
    "\"l\"(src));\n"
    "}\n"
    "__device__ __forceinline__ void tvm_cp_async_8(void* dst, const void* src) {\n"
    "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 8;\\n\" :: \"r\"((unsigned)__cvta_generic_to_shared(dst)), "
    "\"l\"(src));\n"
    "}\n"
    "__device__ __forceinline__ void tvm_cp_async_16(void* dst, const void* src) {\n"
    "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\\n\" :: "
    "\"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"(src));\n"
    "}\n"
    "__device__ __forceinline__ void tvm_cp_async_commit_group() { asm volatile(\"cp.async.commit_group;\\n\" ::); }\n"
    "template <int n>\n"
    "__device__ __forceinline__ void tvm_cp_async_wait_group() { asm volatile(\"cp.async.wait_group %0;\\n\" :: "
    "\"n\"(n)); }\n";

}  // namespace

std::string CodeGenCUDA::headers() const {
  return "#ifdef _WIN32\n"
         "  using uint = unsigned int;\n"
         "  using uchar = unsigned char;\n"
         "  using ushort = unsigned short;\n"
         "  using int64_t = long long;\n"
         "  using uint64_t = unsigned long long;\n"
         "#else\n"
         "  #define uint unsigned int\n"
         "  #define uchar unsigned char\n"
         "  #define ushort unsigned short\n"
         "  #define int64_t long long\n"
         "  #define uint64_t unsigned long long\n"
         "#endif\n" +
         std::string(uses_half_ ? "#include <cuda_fp16.h>\n" : "") +
         std::string(uses_bf16_ ? "#include <cuda_bf16.h>\n" : "") +
         std::string(uses_fp8_ ? "#include <cuda_fp8.h>\n" : "") +
         std::string(wmma_min_sm_ ? "#include <mma.h>\n" : "") + std::string(uses_cp_async_ ? kCpAsyncHelpers : "");
}

std::string CodeGenCUDA::literal(const PrimExpr& e) const {
  if (e->dtype.is_float() && (e->dtype.bits == 16 || e->dtype.is_float8())) {
    return "((" + type_of(e->dtype) + ")" + CodeGenC::literal(make_float(as<FloatImmNode>(e)->value)) + ")";
  }
  return CodeGenC::literal(e);
}

std::string CodeGenCUDA::type_of(DataType t) const {
  if (t.lanes == 1 && t.code == DataType::Code::BFloat && t.bits == 16) {
    uses_bf16_ = true;
    return "nv_bfloat16";
  }
  if (t.is_float8() && (t.lanes == 1 || t.lanes == 2 || t.lanes == 4)) {
    // cuda_fp8.h's types (their conversions are explicit: arithmetic goes through float).
    uses_fp8_ = true;
    std::string lanes = t.lanes == 1 ? "" : "x" + std::to_string(t.lanes);
    return "__nv_fp8" + lanes + (t.code == DataType::Code::Float8E4M3FN ? "_e4m3" : "_e5m2");
  }
  if (t.lanes == 1 && t.is_float() && t.bits == 16) {
    uses_half_ = true;
    return "half";
  }
  if (t.lanes > 1) {
    std::string v = vector_type(t);
    if (!v.empty()) return v;
  }
  if (t.lanes == 1 && (t.is_int() || t.is_uint())) {
    bool s = t.is_int();
    switch (t.bits) {
      case 8:
        return s ? "signed char" : "uchar";
      case 16:
        return s ? "short" : "ushort";
      case 32:
        return s ? "int" : "uint";
      case 64:
        return s ? "int64_t" : "uint64_t";
      default:
        break;
    }
  }
  return CodeGenC::type_of(t);
}

void CodeGenCUDA::add_kernel(const std::string& name, const PrimFunc& f) {
  out_.str("");
  indent_ = 0;
  reset_names();
  fragments_ = transform::infer_wmma_fragments(f->body);
  check_mma_kernel(f);
  for (const auto& [var, frag] : fragments_) {
    bool byte = frag.buffer->dtype.bits == 8;
    wmma_min_sm_ = std::max(wmma_min_sm_, byte ? 72 : 70);
  }
  std::vector<std::string> params;
  for (const auto& p : f->params) {
    if (p->dtype.is_handle()) {
      params.push_back(memory_type_of(pointee_type(f->body, p.get())) + "* __restrict__ " + define(p.get(), p->name));
    } else {
      params.push_back(type_of(p->dtype) + " " + define(p.get(), p->name));
    }
  }
  // The block's thread count, when every threadIdx extent is a constant.
  // (Loops nested in a loop bound to the same axis read the same index: one extent per axis.)
  std::map<std::string, PrimExpr> extents;
  std::vector<const AllocateNode*> shared;
  for_each_stmt(f->body, [&](const Stmt& s) {
    if (auto* a = as<AllocateNode>(s); a && a->buffer->scope == "shared") shared.push_back(a);
    auto* loop = as<ForNode>(s);
    if (loop && loop->for_kind == ForKind::ThreadBinding && loop->thread_tag.rfind("threadIdx", 0) == 0)
      extents.emplace(loop->thread_tag, loop->extent);
  });
  int64_t threads = 1;
  bool constant = true;
  for (const auto& [tag, extent] : extents) {
    int64_t e;
    if (as_const_int(extent, &e))
      threads *= e;
    else
      constant = false;
  }
  std::string bounds = constant ? "__launch_bounds__(" + std::to_string(threads) + ") " : "";
  std::string joined;
  for (size_t i = 0; i < params.size(); ++i) joined += (i ? ", " : "") + params[i];
  open_scope("extern \"C\" __global__ void " + bounds + name + "(" + joined + ")");
  // Arrays read or written with an aligned vector access are declared aligned for it.
  vector_alignment_.clear();
  auto note_vector_access = [&](const Buffer& buf, const PrimExpr& index, DataType t) {
    auto* ramp = as<RampNode>(index);
    bool word_copy = ramp && is_one(ramp->stride) && vector_type(t).empty() && !copy_type(t).empty() &&
                     arith::known_multiple_of(arith::simplify(ramp->base), ramp->lanes);
    if (t.lanes > 1 && (aligned_start(index, t) || word_copy)) {
      int& bytes = vector_alignment_[buf->data.get()];
      bytes = std::max(bytes, t.bits / 8 * t.lanes);
    }
  };
  for_each_stmt(f->body, [&](const Stmt& s) {
    if (auto* st = as<BufferStoreNode>(s); st && st->indices.size() == 1)
      note_vector_access(st->buffer, st->indices[0], st->value->dtype);
  });
  for_each_expr(f->body, [&](const PrimExpr& e) {
    if (auto* l = as<BufferLoadNode>(e); l && l->indices.size() == 1)
      note_vector_access(l->buffer, l->indices[0], l->dtype);
    // cp.async's shared address is aligned to its size.
    int64_t bytes;
    if (auto* c = as<CallNode>(e); c && c->op == "ptx_cp_async" && c->args.size() == 5 && as<VarNode>(c->args[0]) &&
                                   as_const_int(c->args[4], &bytes)) {
      int& align = vector_alignment_[as<VarNode>(c->args[0])];
      align = std::max(align, static_cast<int>(bytes));
    }
    // A tensor-core load or store takes a 256-bit aligned pointer.
    if (auto* c = as<CallNode>(e); c && transform::is_wmma_call(*c) && c->args.size() == 8 &&
                                   (c->op == "tvm_load_matrix_sync" || c->op == "tvm_store_matrix_sync")) {
      auto* ptr = as<CallNode>(c->args[5]);
      if (auto* data =
              ptr && ptr->op == "tvm_access_ptr" && ptr->args.size() == 5 ? as<VarNode>(ptr->args[1]) : nullptr) {
        int& align = vector_alignment_[data];
        align = std::max(align, 32);
      }
    }
  });
  // Shared memory is declared at the top of the kernel, as TVM's StorageRewrite places it.
  hoisted_.clear();
  for (const AllocateNode* a : shared) {
    line("__shared__ " + alignment_of(a->buffer) + memory_type_of(a->buffer->dtype) + " " +
         define(a->buffer->data.get(), a->buffer->name) + "[" + std::to_string(element_count(*a->buffer)) + "];");
    hoisted_.insert(a->buffer->data.get());
  }
  // Dynamic shared memory: one extern block, each shared.dyn buffer a pointer into it (TVM's
  // merged buf_dyn_shmem; the launch gives the block's size).
  int64_t dyn_bytes = 0;
  auto dyn = transform::dyn_shared_layout(f->body, &dyn_bytes);
  if (!dyn.empty()) line("extern __shared__ __align__(16) uchar buf_dyn_shmem[];");
  for (const auto& [buf, offset] : dyn) {
    std::string type = memory_type_of(buf->dtype);
    line(type + "* " + define(buf->data.get(), buf->name) + " = (" + type + "*)(buf_dyn_shmem + " +
         std::to_string(offset) + ");");
    hoisted_.insert(buf->data.get());
  }
  stmt(f->body);
  close_scope();
  line("");
  functions_ += out_.str();
}

void CodeGenCUDA::emit_thread_binding(const ForNode& n) {
  // A loop nested in another bound to the same axis (extents checked equal) reads the same index.
  bind_text(n.loop_var.get(), "((" + type_of(n.loop_var->dtype) + ")" + n.thread_tag + ")");
  stmt(n.body);
  forget(n.loop_var.get());
}

std::string CodeGenCUDA::alignment_of(const Buffer& buf) const {
  auto it = vector_alignment_.find(buf->data.get());
  return it == vector_alignment_.end() ? "" : "__align__(" + std::to_string(it->second) + ") ";
}

int64_t CodeGenCUDA::element_count(const BufferNode& buf) {
  int64_t count = 1;
  for (const auto& d : buf.shape) {
    int64_t c;
    if (!as_const_int(d, &c))
      throw BuildError("not supported yet: the " + buf.scope + " buffer " + buf.name +
                       " of a symbolic size in a CUDA kernel");
    count *= c;
  }
  return std::max<int64_t>(count, 1);
}

void CodeGenCUDA::emit_allocate(const AllocateNode& n) {
  const Buffer& buf = n.buffer;
  if (hoisted_.count(buf->data.get())) {
    stmt(n.body);
    return;
  }
  int64_t count = element_count(*buf);
  line("{");
  ++indent_;
  if (auto frag = fragments_.find(buf->data.get()); frag != fragments_.end()) {
    // TVM's form: nvcuda::wmma::fragment<use, m, n, k, type[, layout]> name[fragments];
    const transform::WmmaFragment& f = frag->second;
    std::string type = "nvcuda::wmma::fragment<nvcuda::wmma::" + f.scope.substr(5) + ", " + std::to_string(f.m) + ", " +
                       std::to_string(f.n) + ", " + std::to_string(f.k) + ", " + type_of(buf->dtype) +
                       (f.layout.empty() ? "" : ", nvcuda::wmma::" + f.layout) + ">";
    line(type + " " + define(buf->data.get(), buf->name) + "[" + std::to_string(f.count()) + "];");
    stmt(n.body);
    forget(buf->data.get());
    --indent_;
    line("}");
    return;
  }
  line(alignment_of(buf) + memory_type_of(buf->dtype) + " " + define(buf->data.get(), buf->name) + "[" +
       std::to_string(count) + "];");
  stmt(n.body);
  forget(buf->data.get());
  --indent_;
  line("}");
}

std::string CodeGenCUDA::target_call(const CallNode& n) {
  if (n.op == "tvm_storage_sync") {
    auto* scope = n.args.size() == 1 ? as<StringImmNode>(n.args[0]) : nullptr;
    if (scope && (scope->value == "shared" || scope->value == "shared.dyn")) return "__syncthreads()";
    throw BuildError("not supported yet: T.tvm_storage_sync(" +
                     (scope ? "\"" + scope->value + "\"" : std::string("...")) + ") in CUDA C");
  }
  // Asynchronous copies (T.ptx_cp_async(dst, dst_offset, src, src_offset, bytes), offsets in
  // elements of the call's type) and their groups.
  if (n.op == "ptx_cp_async" && n.args.size() == 5) {
    int64_t bytes = 0;
    if (!as_const_int(n.args[4], &bytes) || (bytes != 4 && bytes != 8 && bytes != 16))
      throw BuildError("T.ptx_cp_async copies 4, 8 or 16 bytes, got " + expr(n.args[4]));
    uses_cp_async_ = true;
    auto address = [&](const PrimExpr& data, const PrimExpr& offset) {
      return "(" + memory_type_of(n.dtype) + "*)" + expr(data) + " + " + expr(offset);
    };
    return "tvm_cp_async_" + std::to_string(bytes) + "(" + address(n.args[0], n.args[1]) + ", " +
           address(n.args[2], n.args[3]) + ")";
  }
  if (n.op == "ptx_commit_group" && n.args.empty()) {
    uses_cp_async_ = true;
    return "tvm_cp_async_commit_group()";
  }
  if (n.op == "ptx_wait_group" && n.args.size() == 1) {
    int64_t count = 0;
    if (!as_const_int(n.args[0], &count))
      throw BuildError("T.ptx_wait_group needs a constant count, got " + expr(n.args[0]));
    uses_cp_async_ = true;
    return "tvm_cp_async_wait_group<" + std::to_string(count) + ">()";
  }
  if (transform::is_wmma_call(n)) return wmma_call(n);
  // TVM's warp intrinsics: (mask, value, offset or lane, width, warp_size).
  if (n.op == "tvm_warp_activemask") return "__activemask()";
  if ((n.op == "tvm_warp_shuffle_down" || n.op == "tvm_warp_shuffle") && n.args.size() == 5) {
    std::string f = n.op == "tvm_warp_shuffle" ? "__shfl_sync" : "__shfl_down_sync";
    return f + "(" + expr(n.args[0]) + ", " + expr(n.args[1]) + ", " + expr(n.args[2]) + ", " + expr(n.args[3]) + ")";
  }
  return CodeGenC::target_call(n);
}

// The WMMA builtins as TVM's CodeGenCUDA writes them (nvcuda::wmma's warp-wide functions on
// fragment `index` of a fragment array); a memory operand is a typed pointer into the buffer.
std::string CodeGenCUDA::wmma_call(const CallNode& n) {
  auto fragment = [&](size_t array, size_t index) { return expr(n.args[array]) + "[" + expr(n.args[index]) + "]"; };
  auto pointer = [&](const PrimExpr& p) {
    auto* ptr = as<CallNode>(p);  // T.tvm_access_ptr (wmma_fragments.h checked)
    return "((" + memory_type_of(ptr->args[0]->dtype) + "*)" + expr(ptr->args[1]) + " + " + expr(ptr->args[2]) + ")";
  };
  if (n.op == "tvm_fill_fragment")
    return "nvcuda::wmma::fill_fragment(" + fragment(0, 4) + ", " + expr(n.args[5]) + ")";
  if (n.op == "tvm_mma_sync") {
    return "nvcuda::wmma::mma_sync(" + fragment(0, 1) + ", " + fragment(2, 3) + ", " + fragment(4, 5) + ", " +
           fragment(6, 7) + ")";
  }
  std::string layout = "nvcuda::wmma::mem_" + as<StringImmNode>(n.args[7])->value;
  const transform::WmmaFragment& f = fragments_.at(as<VarNode>(n.args[0]));
  if (n.op == "tvm_load_matrix_sync") {
    // An accumulator's load names the memory layout; matrix_a/b carry theirs in their type.
    return "nvcuda::wmma::load_matrix_sync(" + fragment(0, 4) + ", " + pointer(n.args[5]) + ", " + expr(n.args[6]) +
           (f.scope == "wmma.accumulator" ? ", " + layout : "") + ")";
  }
  return "nvcuda::wmma::store_matrix_sync(" + pointer(n.args[5]) + ", " + fragment(0, 4) + ", " + expr(n.args[6]) +
         ", " + layout + ")";
}

void CodeGenCUDA::emit_parallel(const ForNode& n) {
  throw BuildError("loop " + n.loop_var->name +
                   " is a CPU parallel loop inside a CUDA kernel (bind it to a GPU thread axis instead)");
}

namespace {

class CUDADeviceModule : public runtime::CompiledModule {
 public:
  CUDADeviceModule(std::string source, std::string target_text, std::string arch)
      : source_(std::move(source)), target_text_(std::move(target_text)), arch_(std::move(arch)) {}
  runtime::EntryPoint entry(const std::string&) const override { return nullptr; }
  const std::vector<runtime::FunctionSignature>& functions() const override { return none_; }
  std::string source(const std::string& format) const override {
    if (format.empty() || format == "cu" || format == "cuda") return source_;
    if (format == "ptx") {
      std::lock_guard<std::mutex> lock(mu_);
      if (ptx_.empty()) ptx_ = compile_cuda_to_ptx(source_, arch_);
      return ptx_;
    }
    throw BuildError("get_source: unknown format \"" + format + "\" (a CUDA module has \"cu\" and \"ptx\")");
  }
  void export_library(const std::string&) const override {
    throw BuildError("not supported yet: export_library of CUDA device code (loading it back needs the CUDA runtime)");
  }
  std::string target_text() const override { return target_text_; }
  std::string type_key() const override { return "cuda"; }

 private:
  std::string source_, target_text_, arch_;
  std::vector<runtime::FunctionSignature> none_;
  mutable std::mutex mu_;
  mutable std::string ptx_;  // compiled on first request
};

// The PTX of a device module, asked for on the first launch (NVRTC runs only where a GPU does).
std::function<std::string()> ptx_of(const runtime::CompiledModuleRef& device) {
  return [device] { return device->source("ptx"); };
}

class CUDAHostModule : public runtime::CompiledModule {
 public:
  CUDAHostModule(runtime::CompiledModuleRef emulation, runtime::CompiledModuleRef device, std::string target_text,
                 std::vector<runtime::cuda::KernelInfo> kernels, std::function<runtime::CompiledModuleRef()> build_host,
                 std::string emulation_refused)
      : emulation_(std::move(emulation)),
        device_(std::move(device)),
        target_text_(std::move(target_text)),
        launchers_(ptx_of(device_), std::move(kernels)),
        build_host_(std::move(build_host)),
        emulation_refused_(std::move(emulation_refused)) {}
  runtime::EntryPoint entry(const std::string& name) const override {
    return emulation_ ? emulation_->entry(name) : nullptr;
  }
  const std::vector<runtime::FunctionSignature>& functions() const override {
    return emulation_ ? emulation_->functions() : host()->functions();
  }
  std::string source(const std::string& format) const override {
    if (format.empty() || format == "ll" || format == "asm") return host()->source(format);
    throw BuildError("get_source: unknown format \"" + format + "\"");
  }
  // The host code with the kernels' PTX and table: load_module gives a module that runs on a
  // CUDA device (TVM's exported CUDA library; the CPU emulation is not exported).
  void export_library(const std::string& path) const override {
    export_llvm_library(host(), path,
                        {{kCudaPtxSymbol, device_->source("ptx")},
                         {kCudaKernelsSymbol, runtime::cuda::encode_kernel_table(launchers_.kernels())}});
  }
  std::string target_text() const override { return target_text_; }
  std::string type_key() const override { return "llvm"; }
  std::vector<runtime::CompiledModuleRef> device_modules() const override { return {device_}; }
  runtime::DeviceEntry entry_on(const std::string& name, runtime::Device dev) const override {
    if (dev.type == runtime::DeviceType::CPU) {
      TSCH_USER_ASSERT(emulation_ != nullptr, NotImplementedError) << emulation_refused_;
      return {emulation_->entry(name), nullptr};
    }
    TSCH_USER_ASSERT(dev.type == runtime::DeviceType::CUDA, ValueError)
        << name << " runs on cuda or (emulated) cpu arrays, but its arrays are on " << dev.str();
    return {host()->entry(name), launchers_.on(dev.id)};
  }

 private:
  // The host code compiled on first use: CPU-only sessions never pay for it.
  runtime::CompiledModuleRef host() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!host_) host_ = build_host_();
    return host_;
  }

  runtime::CompiledModuleRef emulation_, device_;
  std::string target_text_;
  runtime::cuda::KernelLaunchers launchers_;
  std::function<runtime::CompiledModuleRef()> build_host_;
  std::string emulation_refused_;  // why emulation_ is null
  mutable std::mutex mu_;
  mutable runtime::CompiledModuleRef host_;
};

// The PTX of an exported CUDA build, as its loaded module's imported module.
class LoadedPTXModule : public runtime::CompiledModule {
 public:
  explicit LoadedPTXModule(std::string ptx) : ptx_(std::move(ptx)) {}
  runtime::EntryPoint entry(const std::string&) const override { return nullptr; }
  const std::vector<runtime::FunctionSignature>& functions() const override { return none_; }
  std::string source(const std::string& format) const override {
    if (format.empty() || format == "ptx") return ptx_;
    throw BuildError("get_source: unknown format \"" + format + "\" (a loaded CUDA module has \"ptx\")");
  }
  void export_library(const std::string&) const override {
    throw BuildError("export_library: export the module that imports this one");
  }
  std::string target_text() const override { return "cuda"; }
  std::string type_key() const override { return "cuda"; }

 private:
  std::string ptx_;
  std::vector<runtime::FunctionSignature> none_;
};

// A CUDA build loaded from a library export_library wrote: its host functions launch the
// kernels of the PTX it carries, on a CUDA device only.
class CUDALibraryModule : public runtime::CompiledModule {
 public:
  CUDALibraryModule(runtime::CompiledModuleRef host, std::string ptx, std::vector<runtime::cuda::KernelInfo> kernels,
                    std::string path)
      : host_(std::move(host)),
        device_(std::make_shared<LoadedPTXModule>(std::move(ptx))),
        launchers_(ptx_of(device_), std::move(kernels)),
        path_(std::move(path)) {}
  // No CPU entry: a call with cpu arrays asks entry_on, which says why.
  runtime::EntryPoint entry(const std::string&) const override { return nullptr; }
  const std::vector<runtime::FunctionSignature>& functions() const override { return host_->functions(); }
  std::string source(const std::string& format) const override { return host_->source(format); }
  void export_library(const std::string&) const override {
    throw BuildError("export_library: the module was loaded from " + path_ + "; copy that file instead");
  }
  std::string target_text() const override { return "cuda"; }
  std::string type_key() const override { return "library"; }
  std::vector<runtime::CompiledModuleRef> device_modules() const override { return {device_}; }
  runtime::DeviceEntry entry_on(const std::string& name, runtime::Device dev) const override {
    TSCH_USER_ASSERT(dev.type == runtime::DeviceType::CUDA, ValueError)
        << name << " was loaded from " << path_
        << ", a CUDA build exported with its kernels' PTX: it runs on a CUDA device, but its arrays are on "
        << dev.str() << " (the CPU emulation is not exported; build the module again to run it on the cpu)";
    return {host_->entry(name), launchers_.on(dev.id)};
  }

 private:
  runtime::CompiledModuleRef host_, device_;
  runtime::cuda::KernelLaunchers launchers_;
  std::string path_;
};

// What a launch needs of each kernel: its parameters' types and its launch tags.
std::vector<runtime::cuda::KernelInfo> kernel_infos(const IRModule& kernels) {
  std::vector<runtime::cuda::KernelInfo> out;
  for (const auto& [name, f] : kernels->prim_funcs()) {
    runtime::cuda::KernelInfo k;
    k.name = name;
    for (const auto& p : f->params) k.params.push_back(p->dtype);
    if (const ir::AttrValue* tags = ir::find_attr(f->attrs, transform::kKernelLaunchParams)) {
      for (const ir::AttrValue& t : tags->array) k.launch_tags.push_back(t.s);
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

void check_cp_async_arch(bool uses_cp_async, const target::Target& target) {
  if (!uses_cp_async) return;
  std::string arch = target::cuda_arch(target);
  if (target::cuda_sm_version(target) < 80)
    throw BuildError(
        "asynchronous copies (software_pipeline_async_stages: cp.async) need sm_80 or later; the target's architecture "
        "is " +
        arch);
}

void check_wmma_arch(int wmma_min_sm, const target::Target& target) {
  if (!wmma_min_sm) return;
  std::string arch = target::cuda_arch(target);
  if (target::cuda_sm_version(target) < wmma_min_sm)
    throw BuildError("tensor-core fragments (wmma) of these types need sm_" + std::to_string(wmma_min_sm) +
                     " or later; the target's architecture is " + arch);
}

runtime::CompiledModuleRef build_cuda_device(const IRModule& kernels, const target::Target& target) {
  CodeGenCUDA gen;
  for (const auto& [name, f] : kernels->prim_funcs()) gen.add_kernel(name, f);
  check_cp_async_arch(gen.uses_cp_async(), target);
  check_wmma_arch(gen.wmma_min_sm(), target);
  check_mma_arch(gen.mma_min_sm(), target);
  return std::make_shared<CUDADeviceModule>(gen.source(), target->str(), target::cuda_arch(target));
}

runtime::CompiledModuleRef cuda_library_module(runtime::CompiledModuleRef host, const std::string& ptx,
                                               const std::string& kernel_table, const std::string& path) {
  return std::make_shared<CUDALibraryModule>(std::move(host), ptx, runtime::cuda::decode_kernel_table(kernel_table),
                                             path);
}

runtime::CompiledModuleRef cuda_host_module(runtime::CompiledModuleRef emulation, runtime::CompiledModuleRef device,
                                            const std::string& target_text, const IRModule& kernels,
                                            std::function<runtime::CompiledModuleRef()> build_host,
                                            const std::string& emulation_refused) {
  return std::make_shared<CUDAHostModule>(std::move(emulation), std::move(device), target_text, kernel_infos(kernels),
                                          std::move(build_host), emulation_refused);
}

}  // namespace tsch::codegen
