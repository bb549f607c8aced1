// float8_e4m3fn / float8_e5m2 in LLVM IR: the CPU has no 8-bit float, so values are bytes
// and computing widens them to float32 and rounds back (TVM's FP8ComputeLegalize and
// FP8StorageLegalize). The conversions follow support/float8 bit for bit (round to nearest
// even, subnormals kept, overflow to NaN or infinity as ml_dtypes), where TVM's
// DTypeConversion drops subnormals and overflow; the unit tests compare the two.
#include <cmath>

#include "codegen/llvm/codegen_llvm.h"
#include "support/float8.h"

namespace tsch::codegen {

using ir::DataType;

namespace {

support::Float8Format format_of(DataType t) {
  return t.code == DataType::Code::Float8E4M3FN ? support::Float8Format::E4M3FN : support::Float8Format::E5M2;
}

// `scalar` with the lane count of `like` (a vector type or a scalar).
llvm::Type* like_lanes(llvm::Type* scalar, llvm::Value* like) {
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(like->getType()))
    return llvm::VectorType::get(scalar, vt->getElementCount());
  return scalar;
}

}  // namespace

llvm::Value* CodeGenLLVM::float8_constant(double value, DataType t) {
  llvm::Constant* byte = b_.getInt8(support::float8_from_double(value, format_of(t)));
  return t.lanes == 1 ? static_cast<llvm::Value*>(byte)
                      : llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(t.lanes), byte);
}

llvm::Value* CodeGenLLVM::float8_to_f32(llvm::Value* v, DataType from) {
  const support::Float8Layout& f = support::float8_layout(format_of(from));
  int m = f.mantissa_bits;
  llvm::Type *i8 = v->getType(), *i32 = like_lanes(b_.getInt32Ty(), v), *f32 = like_lanes(b_.getFloatTy(), v);
  auto c8 = [&](int x) { return llvm::ConstantInt::get(i8, x); };
  auto c32 = [&](int64_t x) { return llvm::ConstantInt::get(i32, x); };
  llvm::Value* magnitude = b_.CreateAnd(v, c8(0x7f));
  llvm::Value* exponent = b_.CreateLShr(magnitude, c8(m));
  llvm::Value* mantissa = b_.CreateAnd(magnitude, c8((1 << m) - 1));
  // Subnormal: mantissa counts of the smallest subnormal, 2^(1 - bias - m).
  llvm::Value* subnormal = b_.CreateFMul(b_.CreateUIToFP(mantissa, f32),
                                         llvm::ConstantFP::get(f32, std::ldexp(1.0, 1 - f.exponent_bias - m)));
  // Normal: the bits moved into float32's fields, the exponent re-biased.
  llvm::Value* shifted = b_.CreateShl(b_.CreateZExt(magnitude, i32), c32(23 - m));
  llvm::Value* normal =
      b_.CreateBitCast(b_.CreateAdd(shifted, c32(static_cast<int64_t>(127 - f.exponent_bias) << 23)), f32);
  llvm::Value* value = b_.CreateSelect(b_.CreateICmpEQ(exponent, c8(0)), subnormal, normal);
  llvm::Value* nan = llvm::ConstantFP::getNaN(f32);
  if (f.has_infinity) {
    llvm::Value* top = b_.CreateICmpEQ(exponent, c8((1 << (7 - m)) - 1));
    llvm::Value* special = b_.CreateSelect(b_.CreateICmpEQ(mantissa, c8(0)), llvm::ConstantFP::getInfinity(f32), nan);
    value = b_.CreateSelect(top, special, value);
  } else {
    value = b_.CreateSelect(b_.CreateICmpEQ(magnitude, c8(0x7f)), nan, value);
  }
  llvm::Value* negative = b_.CreateICmpNE(b_.CreateAnd(v, c8(0x80)), c8(0));
  return b_.CreateSelect(negative, b_.CreateFNeg(value), value);
}

llvm::Value* CodeGenLLVM::float_to_float8(llvm::Value* v, DataType from, DataType to) {
  const support::Float8Layout& f = support::float8_layout(format_of(to));
  int m = f.mantissa_bits;
  bool f64 = from.bits == 64;
  int source_mantissa = f64 ? 52 : 23, source_bias = f64 ? 1023 : 127, source_bits = f64 ? 64 : 32;
  llvm::Type *fty = v->getType(), *ity = like_lanes(b_.getIntNTy(source_bits), v), *i8 = like_lanes(b_.getInt8Ty(), v);
  auto ci = [&](int64_t x) { return llvm::ConstantInt::get(ity, static_cast<uint64_t>(x)); };
  auto c8 = [&](int x) { return llvm::ConstantInt::get(i8, x); };
  llvm::Value* bits = b_.CreateBitCast(v, ity);
  llvm::Value* sign = b_.CreateShl(b_.CreateTrunc(b_.CreateLShr(bits, ci(source_bits - 1)), i8), c8(7));
  llvm::Value* magnitude = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
  int min_exponent = 1 - f.exponent_bias;
  llvm::Value* smallest_normal = llvm::ConstantFP::get(fty, std::ldexp(1.0, min_exponent));
  // Subnormal or zero: the count of smallest subnormals, rounded to even (a count of 2^m is
  // the smallest normal, the next encoding). Clamped so the conversion of an unused lane
  // (a normal value or NaN) stays defined.
  llvm::Value* clamped = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, magnitude, smallest_normal);
  llvm::Value* count =
      b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven,
                              b_.CreateFMul(clamped, llvm::ConstantFP::get(fty, std::ldexp(1.0, m - min_exponent))));
  llvm::Value* subnormal = b_.CreateFPToUI(count, i8);
  // Normal: round the magnitude's bits to m mantissa bits (ties to even), re-bias the exponent.
  int drop = source_mantissa - m;
  llvm::Value* magnitude_bits = b_.CreateAnd(bits, ci(f64 ? INT64_MAX : 0x7fffffff));
  llvm::Value* odd = b_.CreateAnd(b_.CreateLShr(magnitude_bits, ci(drop)), ci(1));
  llvm::Value* rounded =
      b_.CreateLShr(b_.CreateAdd(magnitude_bits, b_.CreateAdd(ci((int64_t(1) << (drop - 1)) - 1), odd)), ci(drop));
  llvm::Value* code = b_.CreateSub(rounded, ci(static_cast<int64_t>(source_bias - f.exponent_bias) << m));
  llvm::Value* overflow = b_.CreateICmpUGT(code, ci(f.max_finite));  // infinity included
  llvm::Value* normal = b_.CreateSelect(overflow, c8(f.infinity), b_.CreateTrunc(code, i8));
  llvm::Value* is_subnormal = b_.CreateFCmpOLT(magnitude, smallest_normal);
  llvm::Value* result = b_.CreateSelect(is_subnormal, subnormal, normal);
  result = b_.CreateSelect(b_.CreateFCmpUNO(v, v), c8(f.nan), result);
  return b_.CreateOr(result, sign);
}

}  // namespace tsch::codegen
