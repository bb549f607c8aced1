// TVM's mma builtins in CUDA C, as TVM's CodeGenCUDA and ptx.cc write them: ldmatrix and
// mma.sync as inline PTX on the lane's registers (a warp buffer LowerWarpMemory made a local
// array), mma_store and mma_fill as loops over the lane's accumulator elements. The operands
// are pointers into arrays of the element type, offset in elements. (`asm volatile`, not
// TVM's `__asm__ __volatile__`: NVRTC knows only the former.)
#include <map>

#include "codegen/source/codegen_cuda.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/mma_builtins.h"

namespace tsch::codegen {

using namespace ir;

namespace {

// ldmatrix takes a shared-window address (TVM's helper of the same name).
const char* kCastSmemPtr =
    "__device__ __forceinline__ unsigned int cast_smem_ptr_to_int(const void* const smem_ptr) {\n"
    "  return (unsigned int)__cvta_generic_to_shared(smem_ptr);\n"
    "}\n";

// "{%0, %1}" for `count` operands from `first`.
std::string operand_list(int first, int count) {
  std::string s = "{";
  for (int i = 0; i < count; ++i) s += (i ? ", %" : "%") + std::to_string(first + i);
  return s + "}";
}

// `"=r"(((unsigned *)(p))[0]), ...` for `count` 32-bit registers at `p`.
std::string registers(const std::string& constraint, const std::string& ptr_type, const std::string& p, int count) {
  std::string s;
  for (int i = 0; i < count; ++i)
    s += (i ? ", \"" : "\"") + constraint + "\"(((" + ptr_type + ")(" + p + "))[" + std::to_string(i) + "])";
  return s;
}

// The register constraint and pointer type of an mma operand of `t` (TVM's GetFragAttrs).
std::pair<std::string, std::string> fragment_attrs(DataType t) {
  if (t.is_float() && t.bits == 32) return {"f", "float *"};
  if (t.is_int() && t.bits == 32) return {"r", "int *"};
  return {"r", "unsigned *"};
}

}  // namespace

void CodeGenCUDA::check_mma_kernel(const PrimFunc& f) {
  bool any = false;
  for_each_expr(f->body, [&](const PrimExpr& e) {
    auto* c = as<CallNode>(e);
    if (!c || !transform::is_mma_call(*c)) return;
    any = true;
    mma_min_sm_ = std::max(mma_min_sm_, transform::mma_min_sm(*c));
  });
  if (!any) return;
  int64_t lanes = 0;
  for_each_stmt(f->body, [&](const Stmt& s) {
    auto* loop = as<ForNode>(s);
    int64_t e = 0;
    if (loop && loop->for_kind == ForKind::ThreadBinding && loop->thread_tag == "threadIdx.x")
      lanes = as_const_int(loop->extent, &e) ? e : -1;
  });
  if (lanes != 32) {
    throw BuildError(
        "not supported yet: the mma builtins (T.ptx_ldmatrix, T.ptx_mma, T.mma_store, T.mma_fill) in a kernel whose "
        "threadIdx.x " +
        (lanes == 0  ? std::string("is not bound")
         : lanes < 0 ? std::string("extent is symbolic")
                     : "extent is " + std::to_string(lanes)) +
        "; they need threadIdx.x to be the 32 lanes of a warp (bind the warps to threadIdx.y / threadIdx.z)");
  }
}

std::string CodeGenCUDA::typed_pointer(const PrimExpr& p, DataType t) {
  std::string type = memory_type_of(t);
  if (auto* c = as<CallNode>(p); c && c->op == "tvm_access_ptr" && c->args.size() == 5) {
    return "((" + type + "*)" + expr(c->args[1]) + " + " + expr(c->args[2]) + ")";
  }
  return "((" + type + "*)" + expr(p) + ")";
}

bool CodeGenCUDA::emit_call_stmt(const CallNode& n) {
  if (!transform::is_mma_call(n)) return false;
  auto open_block = [&] {
    line("{");
    ++indent_;
  };
  std::string lane = "((int)threadIdx.x)";
  if (n.op == "ptx_ldmatrix") {
    auto [trans, num] = transform::check_ptx_ldmatrix(n);
    std::string local = "(" + expr(n.args[3]) + " + " + expr(n.args[4]) + ")";
    std::string smem = typed_pointer(n.args[5], n.dtype);
    open_block();
    if (trans && n.dtype.bits == 8) {
      // ldmatrix transposes 16-bit elements only: TVM copies a transposed int8 tile by a loop
      // (operand 7 is then the shared tile's stride).
      std::string type = memory_type_of(n.dtype), dst = fresh("ldmatrix_dst"), src = fresh("ldmatrix_src"),
                  stride = fresh("ldmatrix_stride"), i = fresh("i");
      line(type + "* " + dst + " = " + local + ";");
      line(type + "* " + src + " = " + smem + ";");
      line("int " + stride + " = " + expr(n.args[6]) + ";");
      open_scope("for (int " + i + " = 0; " + i + " < 16; ++" + i + ")");
      line(dst + "[" + i + "] = " + src + "[(" + i + " % 8) / 4 * " + stride + " * 16 + (" + lane + " % 4) * 4 * " +
           stride + " + (" + i + " % 4) * " + stride + " + " + lane + " / 4 + (" + i + " / 8) * 8];");
      close_scope();
    } else {
      helpers_.emplace("cast_smem_ptr_to_int", kCastSmemPtr);
      std::string addr = fresh("addr");
      line("unsigned int " + addr + " = cast_smem_ptr_to_int(" + smem + " + " + expr(n.args[6]) + ");");
      line("asm volatile(");
      line("  \"ldmatrix.sync.aligned.m8n8.x" + std::to_string(num) + (trans ? ".trans" : "") + ".shared.b16\"");
      line("  \"" + operand_list(0, static_cast<int>(num)) + ", [%" + std::to_string(num) + "];\\n\"");
      line("  : " + registers("=r", "unsigned *", local, static_cast<int>(num)));
      line("  : \"r\"(" + addr + ")");
      line(");");
    }
    close_scope();
    return true;
  }
  if (n.op == "ptx_mma") {
    transform::PtxMma m = transform::check_ptx_mma(n);
    auto pointer = [&](size_t data, size_t offset) { return expr(n.args[data]) + " + " + expr(n.args[offset]); };
    std::string a = pointer(6, 7), b = pointer(8, 9), c = pointer(10, 11);
    auto [ca, pa] = fragment_attrs(m.a);
    auto [cb, pb] = fragment_attrs(m.b);
    auto [cc, pc] = fragment_attrs(m.c);
    std::string shape = "m" + std::to_string(m.m) + "n" + std::to_string(m.n) + "k" + std::to_string(m.k);
    open_block();
    line("asm volatile(");
    line("  \"mma.sync.aligned." + shape + ".row.col" + m.ptx_c + m.ptx_a + m.ptx_b + m.ptx_c + "\"");
    int at = 0;
    std::string templates = operand_list(at, m.regs_c);
    at += m.regs_c;
    templates += ", " + operand_list(at, m.regs_a);
    at += m.regs_a;
    templates += ", " + operand_list(at, m.regs_b);
    at += m.regs_b;
    templates += ", " + operand_list(at, m.regs_c);
    line("  \"" + templates + ";\\n\"");
    line("  : " + registers("=" + cc, pc, c, m.regs_c));
    line("  : " + registers(ca, pa, a, m.regs_a) + ", " + registers(cb, pb, b, m.regs_b) + ", " +
         registers(cc, pc, c, m.regs_c) + ");");
    close_scope();
    return true;
  }
  std::string type = memory_type_of(n.dtype);
  if (n.op == "mma_store") {
    // Lane t's element x of the 16x16 accumulator tile is row 8 * (x % 4 / 2) + t / 4, column
    // 8 * (x / 4) + 2 * (t % 4) + x % 2 (the inverse of shared_16x16_to_ldmatrix_32x8_layout).
    transform::check_mma_store(n);
    std::string dst = fresh("mma_store_dst"), src = fresh("mma_store_src"), stride = fresh("mma_store_stride"),
                x = fresh("local_id");
    open_block();
    line(type + "* " + dst + " = " + typed_pointer(n.args[2], n.dtype) + ";");
    line(type + "* " + src + " = " + expr(n.args[3]) + " + " + expr(n.args[4]) + ";");
    line("int " + stride + " = " + expr(n.args[5]) + ";");
    open_scope("for (int " + x + " = 0; " + x + " < 8; ++" + x + ")");
    line(dst + "[(" + x + " % 4 / 2 * 8 + " + lane + " / 4) * " + stride + " + " + x + " / 4 * 8 + " + lane +
         " % 4 * 2 + " + x + " % 2] = " + src + "[" + x + "];");
    close_scope();
    close_scope();
    return true;
  }
  int64_t size = transform::check_mma_fill(n);
  std::string dst = fresh("mma_fill_dst"), i = fresh("i");
  open_block();
  line(type + "* " + dst + " = " + expr(n.args[1]) + " + " + expr(n.args[2]) + ";");
  open_scope("for (int " + i + " = 0; " + i + " < " + std::to_string(size) + "; ++" + i + ")");
  line(dst + "[" + i + "] = " + literal(make_const(n.dtype, 0)) + ";");
  close_scope();
  close_scope();
  return true;
}

void check_mma_arch(int mma_min_sm, const target::Target& target) {
  if (!mma_min_sm) return;
  std::string arch = target::cuda_arch(target);
  if (target::cuda_sm_version(target) < mma_min_sm) {
    std::string what = mma_min_sm >= 89   ? "mma.sync over float8 operands (T.ptx_mma e4m3 / e5m2) needs sm_89"
                       : mma_min_sm >= 80 ? "mma.sync m16n8k16 / m16n8k32 (T.ptx_mma) needs sm_80"
                                          : "ldmatrix (T.ptx_ldmatrix) needs sm_75";
    throw BuildError(what + " or later; the target's architecture is " + arch);
  }
}

}  // namespace tsch::codegen
