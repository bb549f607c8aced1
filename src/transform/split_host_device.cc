#include "transform/split_host_device.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/pass.h"
#include "transform/wmma_fragments.h"

namespace tsch::transform {
namespace {

using namespace ir;

// The order TVM launches with: blockIdx.x/y/z, then threadIdx.x/y/z.
int launch_rank(const std::string& tag) {
  static const char* order[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  for (int i = 0; i < 6; ++i) {
    if (tag == order[i]) return i;
  }
  return -1;
}

// What a kernel's loop nest uses from outside: variables (scalars and data pointers) and
// the buffers declared outside it; and the extent of each thread axis it binds.
class KernelUses : public IRVisitor {
 public:
  using IRVisitor::visit;
  // A variable is kept by its shared pointer (a kernel parameter), which only visit() sees.
  void visit(const PrimExpr& e) override {
    if (auto* v = as<VarNode>(e)) use_var(v, std::static_pointer_cast<const VarNode>(e));
    IRVisitor::visit(e);
  }
  void visit_BufferLoad(const BufferLoadNode& l) override {
    use_buffer(l.buffer);
    IRVisitor::visit_BufferLoad(l);
  }
  void visit_LetStmt(const LetStmtNode& l) override {
    defined_.insert(l.var.get());
    IRVisitor::visit_LetStmt(l);
  }
  void visit_Allocate(const AllocateNode& a) override {
    const std::string& scope = a.buffer->scope;
    TSCH_USER_ASSERT(scope == "local" || scope == "shared" || scope == "shared.dyn" || is_wmma_scope(scope),
                     NotImplementedError)
        << "not supported yet: the " << scope << " buffer " << a.buffer->name
        << " in a CUDA kernel (kernels allocate \"local\", \"shared\", \"shared.dyn\" and \"wmma.*\" buffers)";
    if (a.buffer->scope == "shared") add_shared(*a.buffer);
    defined_.insert(a.buffer->data.get());
    declared_.insert(a.buffer.get());
    IRVisitor::visit_Allocate(a);
  }
  void visit_DeclBuffer(const DeclBufferNode& d) override {
    declared_.insert(d.buffer.get());
    IRVisitor::visit_DeclBuffer(d);
  }
  void visit_BufferStore(const BufferStoreNode& st) override {
    use_buffer(st.buffer);
    IRVisitor::visit_BufferStore(st);
  }
  void visit_For(const ForNode& loop) override {
    const ForNode* f = &loop;
    defined_.insert(f->loop_var.get());
    if (f->for_kind == ForKind::ThreadBinding) {
      TSCH_USER_ASSERT(launch_rank(f->thread_tag) >= 0, NotImplementedError)
          << "not supported yet: the thread axis " << f->thread_tag
          << " in a CUDA kernel (blockIdx.x/y/z and threadIdx.x/y/z are)";
      TSCH_USER_ASSERT(is_zero(f->min), RuntimeError)
          << "the loop " << f->loop_var->name << " bound to " << f->thread_tag << " does not start at 0";
      auto [it, fresh] = extents_.emplace(f->thread_tag, f->extent);
      int64_t a = 0, b = 0;
      bool same = it->second == f->extent || (as_const_int(it->second, &a) && as_const_int(f->extent, &b) && a == b);
      TSCH_USER_ASSERT(fresh || same, RuntimeError)
          << "the thread axis " << f->thread_tag << " is bound to loops of different extents in one kernel ("
          << f->loop_var->name << " has extent " << expr_text(f->extent) << ", another loop " << expr_text(it->second)
          << ")";
    }
    IRVisitor::visit_For(loop);
  }

  std::vector<Var> free_vars;
  int64_t shared_bytes = 0;
  std::vector<std::string> shared_buffers;
  std::vector<Buffer> outer_buffers;  // declared outside the kernel, in order of first use
  std::map<std::string, PrimExpr> extents_;

 private:
  static std::string expr_text(const PrimExpr& e) {
    int64_t v;
    return as_const_int(e, &v) ? std::to_string(v) : "(symbolic)";
  }
  void add_shared(const BufferNode& b) {
    int64_t n = 1, d;
    for (const auto& e : b.shape) {
      TSCH_USER_ASSERT(as_const_int(e, &d), NotImplementedError)
          << "not supported yet: the shared buffer " << b.name
          << " of symbolic size in a CUDA kernel (dynamic shared memory)";
      n *= d;
    }
    int64_t bytes = n * ((b.dtype.bits * b.dtype.lanes + 7) / 8);
    shared_bytes += bytes;
    shared_buffers.push_back(b.name + " (" + std::to_string(bytes) + " bytes)");
  }
  void use_var(const VarNode* v, const Var& ref) {
    if (defined_.count(v) || seen_.count(v)) return;
    seen_.insert(v);
    free_vars.push_back(ref);
  }
  void use_buffer(const Buffer& b) {
    if (declared_.count(b.get()) || seen_buffers_.count(b.get())) return;
    seen_buffers_.insert(b.get());
    outer_buffers.push_back(b);
    use_var(b->data.get(), b->data);
    for (const auto& d : b->shape) visit(d);
  }
  std::unordered_set<const VarNode*> defined_, seen_;
  std::unordered_set<const BufferNode*> declared_, seen_buffers_;
};

// A buffer access outside every thread-bound loop of a GPU function (TVM's VerifyMemory).
class HostAccessCheck : public IRVisitor {
 public:
  void visit_For(const ForNode& f) override {
    if (f.for_kind == ForKind::ThreadBinding) return;  // becomes a kernel
    IRVisitor::visit_For(f);
  }
  void visit_Allocate(const AllocateNode& a) override {
    TSCH_USER_ASSERT(false, NotImplementedError)
        << "not supported yet: the buffer " << a.buffer->name << " allocated outside the kernels of a CUDA build "
        << "(tsch has no device memory yet: compute it inside a thread-bound loop nest, or inline it)";
  }
  void visit_BufferStore(const BufferStoreNode& st) override { fail(st.buffer); }
  void visit_BufferLoad(const BufferLoadNode& l) override { fail(l.buffer); }

 private:
  [[noreturn]] static void fail(const Buffer& b) {
    TSCH_USER_ASSERT(false, RuntimeError)
        << "Memory verification failed with the following errors:\n    Variable `" << b->name
        << "` is directly accessed by host memory (it is not contained in a thread environment "
           "or in the function arguments.\n  Did you forget to bind?";
  }
};

class Splitter : public IRMutator {
 public:
  Splitter(std::string func_name, std::vector<std::pair<std::string, PrimFunc>>& kernels, std::set<std::string>& names,
           std::string target_kind)
      : func_name_(std::move(func_name)), kernels_(kernels), names_(names), target_kind_(std::move(target_kind)) {}

  Stmt mutate_For(const ForNode& loop, const Stmt& s) override {
    if (loop.for_kind != ForKind::ThreadBinding) return IRMutator::mutate_For(loop, s);
    KernelUses uses;
    uses.visit(s);
    // Parameters: data pointers first, then by name (TVM's order).
    std::vector<Var> params = uses.free_vars;
    std::stable_sort(params.begin(), params.end(), [](const Var& a, const Var& b) {
      return std::make_tuple(!a->dtype.is_handle(), a->name) < std::make_tuple(!b->dtype.is_handle(), b->name);
    });
    Stmt body = s;
    for (auto it = uses.outer_buffers.rbegin(); it != uses.outer_buffers.rend(); ++it)
      body = std::make_shared<DeclBufferNode>(*it, body);
    std::string name = unique(func_name_ + "_kernel");
    auto kernel = std::make_shared<PrimFuncNode>();
    kernel->params = params;
    kernel->body = body;
    std::vector<std::pair<std::string, PrimExpr>> launch(uses.extents_.begin(), uses.extents_.end());
    // A CUDA block has at most 1024 threads (the target's max_num_threads).
    int64_t threads = 1;
    std::string dims;
    for (const auto& [tag, extent] : launch) {
      int64_t e;
      if (tag.rfind("threadIdx", 0) != 0 || !as_const_int(extent, &e)) continue;
      threads *= e;
      dims += (dims.empty() ? "" : ", ") + tag + "=" + std::to_string(e);
    }
    TSCH_USER_ASSERT(threads <= 1024, RuntimeError)
        << "the kernel of " << func_name_ << " launches " << threads << " threads per block (" << dims
        << "), over the 1024 a CUDA block may have";
    // What a block may allocate statically (TVM's max_shared_memory_per_block for CUDA).
    constexpr int64_t kMaxSharedBytes = 49152;
    std::string shared_list;
    for (const auto& b : uses.shared_buffers) shared_list += (shared_list.empty() ? "" : ", ") + b;
    TSCH_USER_ASSERT(uses.shared_bytes <= kMaxSharedBytes, RuntimeError)
        << "the kernel of " << func_name_ << " uses " << uses.shared_bytes << " bytes of shared memory per block ("
        << shared_list << "), over the " << kMaxSharedBytes << " a CUDA block may allocate statically";
    std::sort(launch.begin(), launch.end(),
              [](const auto& a, const auto& b) { return launch_rank(a.first) < launch_rank(b.first); });
    // Dynamic shared memory: its size is the launch's last parameter, as TVM passes it.
    int64_t dyn_bytes = 0;
    if (!dyn_shared_layout(body, &dyn_bytes).empty()) launch.emplace_back(kDynSharedMemoryTag, make_int(dyn_bytes));
    AttrValue launch_attr;
    launch_attr.kind = AttrValue::Kind::Array;
    for (const auto& [tag, extent] : launch) launch_attr.array.push_back(AttrValue::of_str(tag));
    kernel->attrs = {{"calling_conv", AttrValue::of_int(2)},      {"global_symbol", AttrValue::of_str(name)},
                     {"target", AttrValue::of_str(target_kind_)}, {"tir.is_global_func", AttrValue::of_bool(true)},
                     {kKernelLaunchParams, launch_attr},          {"tir.noalias", AttrValue::of_bool(true)}};
    kernels_.emplace_back(name, kernel);
    // The launch: the kernel's arguments, then its grid and block extents.
    std::vector<PrimExpr> args{std::make_shared<StringImmNode>(name)};
    for (const auto& p : params) args.push_back(p);
    for (const auto& [tag, extent] : launch) args.push_back(extent);
    return std::make_shared<EvaluateNode>(call(DataType::int32(), "call_packed", args));
  }

 private:
  std::string unique(const std::string& base) {
    std::string name = base;
    for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }
  std::string func_name_;
  std::vector<std::pair<std::string, PrimFunc>>& kernels_;
  std::set<std::string>& names_;
  std::string target_kind_;
};

}  // namespace

IRModule split_host_device(const IRModule& mod, const std::string& target_kind) {
  auto out = std::make_shared<IRModuleNode>();
  out->attrs = mod->attrs;
  std::vector<std::pair<std::string, PrimFunc>> kernels;
  std::set<std::string> names;
  for (const auto& [name, f] : mod->functions) names.insert(name);
  for (const auto& [name, base] : mod->functions) {
    PrimFunc f = as_prim_func(base);
    if (!f) {
      out->functions.emplace_back(name, base);
      continue;
    }
    HostAccessCheck().visit(f->body);
    Stmt body = Splitter(name, kernels, names, target_kind).mutate(f->body);
    out->functions.emplace_back(name, with_body(f, body));
  }
  for (auto& [name, k] : kernels) out->functions.emplace_back(name, k);
  return out;
}

std::vector<std::pair<const BufferNode*, int64_t>> dyn_shared_layout(const Stmt& kernel_body, int64_t* total) {
  std::vector<std::pair<const BufferNode*, int64_t>> out;
  int64_t offset = 0;
  for_each_stmt(kernel_body, [&](const Stmt& s) {
    auto* a = as<AllocateNode>(s);
    if (!a || a->buffer->scope != "shared.dyn") return;
    int64_t n = 1, d;
    for (const auto& e : a->buffer->shape) {
      TSCH_USER_ASSERT(as_const_int(e, &d), NotImplementedError)
          << "not supported yet: the shared.dyn buffer " << a->buffer->name << " of symbolic size in a CUDA kernel";
      n *= d;
    }
    offset = (offset + 15) / 16 * 16;
    out.emplace_back(a->buffer.get(), offset);
    offset += n * ((a->buffer->dtype.bits * a->buffer->dtype.lanes + 7) / 8);
  });
  *total = offset;
  return out;
}

}  // namespace tsch::transform
