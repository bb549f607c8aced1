#include "transform/mma_builtins.h"

#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tsch::transform {

using namespace ir;

namespace {

std::string str_at(const CallNode& c, size_t i) {
  auto* s = i < c.args.size() ? as<StringImmNode>(c.args[i]) : nullptr;
  TSCH_USER_ASSERT(s, ValueError) << "T." << c.op << ": operand " << i + 1 << " must be a string, got "
                                  << (i < c.args.size() ? script(c.args[i]) : std::string("none"));
  return s->value;
}

int64_t int_at(const CallNode& c, size_t i) {
  int64_t v = 0;
  TSCH_USER_ASSERT(i < c.args.size() && as_const_int(c.args[i], &v), ValueError)
      << "T." << c.op << ": operand " << i + 1 << " must be a constant integer, got "
      << (i < c.args.size() ? script(c.args[i]) : std::string("none"));
  return v;
}

void check_arity(const CallNode& c, size_t lo, size_t hi) {
  TSCH_USER_ASSERT(c.args.size() >= lo && c.args.size() <= hi, ValueError)
      << "T." << c.op << " takes " << lo << (hi > lo ? " or " + std::to_string(hi) : std::string()) << " operands, got "
      << c.args.size();
}

void check_pointers(const CallNode& c) {
  for (auto [data, offset] : warp_operands(c)) {
    TSCH_USER_ASSERT(as<VarNode>(c.args[data]) && c.args[data]->dtype.is_handle(), ValueError)
        << "T." << c.op << ": operand " << data + 1 << " must be a buffer's .data (a warp or local buffer), got "
        << script(c.args[data]);
    TSCH_USER_ASSERT(c.args[offset]->dtype.is_integer(), ValueError)
        << "T." << c.op << ": operand " << offset + 1 << " must be an integer offset, got " << script(c.args[offset]);
  }
}

bool is_float8_name(const std::string& t) { return t == "e4m3" || t == "e5m2"; }
DataType float8_type(const std::string& t) { return t == "e4m3" ? DataType::float8_e4m3fn() : DataType::float8_e5m2(); }

}  // namespace

bool is_mma_call(const CallNode& c) {
  return c.op == "ptx_ldmatrix" || c.op == "ptx_mma" || c.op == "mma_store" || c.op == "mma_fill";
}

std::vector<std::pair<size_t, size_t>> warp_operands(const CallNode& c) {
  if (c.op == "ptx_ldmatrix") return {{3, 4}};
  if (c.op == "ptx_mma") return {{6, 7}, {8, 9}, {10, 11}};
  if (c.op == "mma_store") return {{3, 4}};
  if (c.op == "mma_fill") return {{1, 2}};
  return {};
}

PtxMma check_ptx_mma(const CallNode& c) {
  check_arity(c, 13, 14);
  check_pointers(c);
  PtxMma r;
  std::string shape = str_at(c, 0), la = str_at(c, 1), lb = str_at(c, 2), ta = str_at(c, 3), tb = str_at(c, 4),
              tc = str_at(c, 5);
  TSCH_USER_ASSERT(la == "row" && lb == "col", NotImplementedError)
      << "not supported yet: T.ptx_mma with layouts " << la << "." << lb
      << " (tsch has row.col, as TVM's mma intrinsics use)";
  TSCH_USER_ASSERT(c.args.size() == 13, NotImplementedError)
      << "not supported yet: T.ptx_mma with a 1-bit operator (" << script(c.args[13]) << ")";
  TSCH_USER_ASSERT(is_zero(c.args[12]), NotImplementedError) << "not supported yet: T.ptx_mma with saturate=True";
  if (shape == "m16n8k16" && ta == "fp16" && tb == "fp16" && (tc == "fp32" || tc == "fp16")) {
    r.m = 16, r.n = 8, r.k = 16;
    r.a = r.b = DataType::float_(16);
    r.c = tc == "fp32" ? DataType::float32() : DataType::float_(16);
    r.ptx_a = r.ptx_b = ".f16";
    r.ptx_c = tc == "fp32" ? ".f32" : ".f16";
    r.regs_a = 4, r.regs_b = 2, r.regs_c = tc == "fp32" ? 4 : 2;
  } else if (shape == "m16n8k32" && ta == "int8" && tb == "int8" && tc == "int32") {
    r.m = 16, r.n = 8, r.k = 32;
    r.a = r.b = DataType::int_(8);
    r.c = DataType::int32();
    r.ptx_a = r.ptx_b = ".s8";
    r.ptx_c = ".s32";
    r.regs_a = 4, r.regs_b = 2, r.regs_c = 4;
  } else if (shape == "m16n8k32" && is_float8_name(ta) && is_float8_name(tb) && tc == "fp32") {
    // float8 (sm_89): the 8-bit operands' fragments are int8's.
    r.m = 16, r.n = 8, r.k = 32;
    r.a = float8_type(ta), r.b = float8_type(tb);
    r.c = DataType::float32();
    r.ptx_a = "." + ta, r.ptx_b = "." + tb;
    r.ptx_c = ".f32";
    r.regs_a = 4, r.regs_b = 2, r.regs_c = 4;
  } else {
    TSCH_USER_ASSERT(false, NotImplementedError)
        << "not supported yet: T.ptx_mma " << shape << " " << ta << " x " << tb << " -> " << tc
        << " (tsch has m16n8k16 fp16 x fp16 -> fp32 / fp16, m16n8k32 int8 x int8 -> int32 and "
        << "m16n8k32 e4m3 / e5m2 x e4m3 / e5m2 -> fp32)";
  }
  TSCH_USER_ASSERT(c.dtype == r.c, ValueError)
      << "T.ptx_mma: the call's dtype " << c.dtype.to_string() << " differs from its accumulator type " << tc;
  return r;
}

std::pair<bool, int64_t> check_ptx_ldmatrix(const CallNode& c) {
  check_arity(c, 7, 7);
  check_pointers(c);
  int64_t trans = int_at(c, 0), num = int_at(c, 1);
  TSCH_USER_ASSERT(num == 1 || num == 2 || num == 4, ValueError)
      << "T.ptx_ldmatrix loads 1, 2 or 4 matrices, got " << num;
  TSCH_USER_ASSERT(str_at(c, 2) == ".b16", ValueError)
      << "T.ptx_ldmatrix: the element type must be \".b16\", got \"" << str_at(c, 2) << "\"";
  TSCH_USER_ASSERT(c.args[5]->dtype.is_handle(), ValueError)
      << "T.ptx_ldmatrix: operand 6 must be a pointer into shared memory";
  int bits = c.dtype.bits;
  TSCH_USER_ASSERT(c.dtype.lanes == 1 && (bits == 16 || bits == 8), NotImplementedError)
      << "not supported yet: T.ptx_ldmatrix of " << c.dtype.to_string() << " (16-bit or 8-bit elements)";
  TSCH_USER_ASSERT(!(trans && bits == 8 && num != 4), ValueError)
      << "T.ptx_ldmatrix: a transposed load of 8-bit elements loads 4 matrices, got " << num;
  return {trans != 0, num};
}

void check_mma_store(const CallNode& c) {
  check_arity(c, 6, 6);
  check_pointers(c);
  TSCH_USER_ASSERT(int_at(c, 0) == 16 && int_at(c, 1) == 16, NotImplementedError)
      << "not supported yet: T.mma_store of a " << int_at(c, 0) << "x" << int_at(c, 1) << " tile (16x16 only, as TVM)";
  TSCH_USER_ASSERT(c.args[2]->dtype.is_handle(), ValueError) << "T.mma_store: operand 3 must be a pointer (access_ptr)";
}

int64_t check_mma_fill(const CallNode& c) {
  check_arity(c, 3, 3);
  check_pointers(c);
  int64_t size = int_at(c, 0);
  TSCH_USER_ASSERT(size > 0, ValueError) << "T.mma_fill: local_size must be positive, got " << size;
  return size;
}

int mma_min_sm(const CallNode& c) {
  if (c.op == "ptx_ldmatrix") return 75;
  if (c.op == "ptx_mma") {
    // mma.sync over float8 operands came with Ada (sm_89).
    for (size_t i : {3, 4}) {
      auto* t = i < c.args.size() ? as<StringImmNode>(c.args[i]) : nullptr;
      if (t && is_float8_name(t->value)) return 89;
    }
    return 80;
  }
  return 0;
}

}  // namespace tsch::transform
