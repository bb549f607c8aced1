// The intrinsic table: TIR's math and logic calls (T.exp, T.sigmoid, T.if_then_else, ...)
// as LLVM intrinsics or C math library calls; calls it does not know go to the target.
#include <fmt/format.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/raw_ostream.h>

#include <unordered_map>
#include <unordered_set>

#include "codegen/llvm/codegen_llvm.h"
#include "ir/op.h"

namespace tsch::codegen {

// T.call_llvm_pure_intrin(dtype, "llvm.<name>", args...): the intrinsic by name. An
// overloaded one is instantiated at the call's result type; arguments must have the types
// the intrinsic declares (no implicit conversion: a mismatch is the script's error).
llvm::Value* CodeGenLLVM::llvm_intrinsic(const ir::CallNode& n) {
  const std::string& name = ir::as<ir::StringImmNode>(n.args[0])->value;
  llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(name);
  if (id == llvm::Intrinsic::not_intrinsic) throw BuildError("T." + n.op + ": LLVM has no intrinsic " + name);
  std::vector<llvm::Type*> overload;
  if (llvm::Intrinsic::isOverloaded(id)) overload.push_back(type_of(n.dtype));
  llvm::Function* f = llvm::Intrinsic::getDeclaration(&mod_, id, overload);
  llvm::FunctionType* ft = f->getFunctionType();
  std::vector<llvm::Value*> args;
  for (size_t i = 1; i < n.args.size(); ++i) args.push_back(emit(n.args[i]));
  auto type_text = [](llvm::Type* t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t->print(os);
    return os.str();
  };
  if (ft->getNumParams() != args.size()) {
    throw BuildError(fmt::format("T.{}: {} takes {} arguments, {} given", n.op, name, ft->getNumParams(), args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->getType() != ft->getParamType(i)) {
      throw BuildError(fmt::format("T.{}: argument {} of {} is {} ({}), the intrinsic takes {}", n.op, i + 1, name,
                                   n.args[i + 1]->dtype.to_string(), type_text(args[i]->getType()),
                                   type_text(ft->getParamType(i))));
    }
  }
  if (ft->getReturnType() != type_of(n.dtype)) {
    throw BuildError(fmt::format("T.{}: {} returns {}, the call says {}", n.op, name, type_text(ft->getReturnType()),
                                 n.dtype.to_string()));
  }
  return b_.CreateCall(f, args);
}

llvm::Value* CodeGenLLVM::call(const ir::CallNode& n) {
  const std::string& op = n.op;
  DataType t = n.dtype;
  if (op == "if_then_else") return if_then_else(n);
  // T.tvm_access_ptr(T.type_annotation(dtype), data, offset, extent, mask): &data[offset].
  if (op == "tvm_access_ptr")
    return b_.CreateInBoundsGEP(scalar_type(n.args[0]->dtype), emit(n.args[1]), emit(n.args[2]));
  // T.address_of(A[i]): &A[i] of a flattened buffer (a vector access's first lane).
  if (op == "address_of") {
    auto* load = ir::as<ir::BufferLoadNode>(n.args[0]);
    if (!load || load->indices.size() != 1) throw BuildError("T.address_of takes an element of a flattened buffer");
    auto* ramp = ir::as<ir::RampNode>(load->indices[0]);
    return address(load->buffer, emit(ramp ? ramp->base : load->indices[0]));
  }
  if (op == "likely") return emit(n.args[0]);
  if (op == "reinterpret") return b_.CreateBitCast(emit(n.args[0]), type_of(t));
  if (op == "vectorlow" || op == "vectorhigh") {
    std::vector<int> lanes;
    for (int i = 0; i < t.lanes; ++i) lanes.push_back(op == "vectorlow" ? i : t.lanes + i);
    return b_.CreateShuffleVector(emit(n.args[0]), lanes);
  }
  if (op == "call_llvm_pure_intrin" || op == "call_llvm_intrin") return llvm_intrinsic(n);
  if (op == "assume") return b_.getTrue();  // an assumption, no code
  // TVM's bitwise intrinsics; >> is arithmetic on signed integers, logical on unsigned.
  if (op == "q_multiply_shift") return emit(ir::expand_q_multiply_shift(n));
  if (op == "q_multiply_shift_per_axis") return emit(ir::expand_q_multiply_shift_per_axis(n));
  if (op == "bitwise_not") return b_.CreateNot(emit(n.args[0]));
  if (op == "bitwise_and") return b_.CreateAnd(emit(n.args[0]), emit(n.args[1]));
  if (op == "bitwise_or") return b_.CreateOr(emit(n.args[0]), emit(n.args[1]));
  if (op == "bitwise_xor") return b_.CreateXor(emit(n.args[0]), emit(n.args[1]));
  if (op == "shift_left") return b_.CreateShl(emit(n.args[0]), emit(n.args[1]));
  if (op == "shift_right")
    return t.is_uint() ? b_.CreateLShr(emit(n.args[0]), emit(n.args[1]))
                       : b_.CreateAShr(emit(n.args[0]), emit(n.args[1]));
  // float16 / bfloat16 / float8 math is computed in float and rounded back (as the C and CUDA
  // generators do): C's math library has no half functions.
  static const std::unordered_set<std::string> math = {
      "exp",   "exp2",      "log", "log2",  "log10", "sqrt", "fabs",    "floor", "ceil", "trunc",
      "round", "nearbyint", "sin", "cos",   "pow",   "tanh", "tan",     "asin",  "acos", "atan",
      "sinh",  "cosh",      "erf", "log1p", "atan2", "fmod", "sigmoid", "rsqrt", "exp10"};
  if (!n.args.empty() && math.count(op)) {
    DataType a = n.args[0]->dtype;
    if ((a.bits == 16 && a.is_float()) || a.is_float8()) {
      DataType wide = DataType::float32().with_lanes(a.lanes);
      std::vector<PrimExpr> args;
      for (const auto& x : n.args) args.push_back(ir::cast(wide, x));
      PrimExpr widened = std::make_shared<ir::CallNode>(wide, op, std::move(args));
      return emit(ir::cast(n.dtype, widened));
    }
  }
  check_call(n);
  if (op == "sigmoid") {
    llvm::Value* x = emit(n.args[0]);
    llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
    llvm::Value* e = b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(x));
    return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
  }
  if (op == "rsqrt") {
    llvm::Value* x = emit(n.args[0]);
    return b_.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
  }
  if (op == "exp10") {
    llvm::Value* x = emit(n.args[0]);
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, llvm::ConstantFP::get(x->getType(), 10.0), x);
  }
  if (op == "isnan") {
    llvm::Value* x = emit(n.args[0]);
    return b_.CreateFCmpUNO(x, x);
  }
  if (op == "isinf" || op == "isfinite") {
    llvm::Value* x = emit(n.args[0]);
    llvm::Value* ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
    return op == "isinf" ? b_.CreateFCmpOEQ(ax, inf) : b_.CreateFCmpOLT(ax, inf);
  }
  static const std::unordered_map<std::string, llvm::Intrinsic::ID> unary = {
      {"exp", llvm::Intrinsic::exp},         {"exp2", llvm::Intrinsic::exp2},
      {"log", llvm::Intrinsic::log},         {"log2", llvm::Intrinsic::log2},
      {"log10", llvm::Intrinsic::log10},     {"sqrt", llvm::Intrinsic::sqrt},
      {"fabs", llvm::Intrinsic::fabs},       {"floor", llvm::Intrinsic::floor},
      {"ceil", llvm::Intrinsic::ceil},       {"trunc", llvm::Intrinsic::trunc},
      {"round", llvm::Intrinsic::nearbyint}, {"nearbyint", llvm::Intrinsic::nearbyint},
      {"sin", llvm::Intrinsic::sin},         {"cos", llvm::Intrinsic::cos},
      {"popcount", llvm::Intrinsic::ctpop},
  };
  if (auto it = unary.find(op); it != unary.end()) return b_.CreateUnaryIntrinsic(it->second, emit(n.args[0]));
  if (op == "pow") return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, emit(n.args[0]), emit(n.args[1]));
  static const std::unordered_set<std::string> libm = {"tanh", "tan", "asin",  "acos",  "atan", "sinh",
                                                       "cosh", "erf", "log1p", "atan2", "fmod"};
  if (libm.count(op)) return libm_call(op, n.args, t);
  return target_call(n);
}

// A C math library call, per lane for vectors; float32 uses the `f` variant.
llvm::Value* CodeGenLLVM::libm_call(const std::string& op, const std::vector<PrimExpr>& args, DataType t) {
  if (!t.is_float() || (t.bits != 32 && t.bits != 64))
    throw BuildError("not supported yet: T." + op + " on " + t.to_string());
  llvm::Type* s = scalar_type(t.element_of());
  std::string symbol = t.bits == 32 ? op + "f" : op;
  std::vector<llvm::Type*> params(args.size(), s);
  llvm::FunctionCallee fn = mod_.getOrInsertFunction(symbol, llvm::FunctionType::get(s, params, false));
  std::vector<llvm::Value*> values;
  for (const auto& a : args) values.push_back(emit(a));
  if (t.lanes == 1) return b_.CreateCall(fn, values);
  llvm::Value* out = llvm::UndefValue::get(type_of(t));
  for (int i = 0; i < t.lanes; ++i) {
    std::vector<llvm::Value*> lane;
    for (auto* v : values) lane.push_back(b_.CreateExtractElement(v, static_cast<uint64_t>(i)));
    out = b_.CreateInsertElement(out, b_.CreateCall(fn, lane), static_cast<uint64_t>(i));
  }
  return out;
}

// Only the chosen branch is evaluated (it may read out of bounds otherwise).
llvm::Value* CodeGenLLVM::if_then_else(const ir::CallNode& n) {
  llvm::Value* cond = emit(n.args[0]);
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "ite_then", fn_);
  auto* else_bb = llvm::BasicBlock::Create(ctx_, "ite_else", fn_);
  auto* end_bb = llvm::BasicBlock::Create(ctx_, "ite_end", fn_);
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  llvm::Value* t = emit(n.args[1]);
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(end_bb);
  b_.SetInsertPoint(else_bb);
  llvm::Value* f = emit(n.args[2]);
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(end_bb);
  b_.SetInsertPoint(end_bb);
  llvm::PHINode* phi = b_.CreatePHI(t->getType(), 2);
  phi->addIncoming(t, then_end);
  phi->addIncoming(f, else_end);
  return phi;
}

llvm::Value* CodeGenLLVM::target_call(const ir::CallNode& n) {
  throw BuildError("not supported yet: the intrinsic T." + n.op + " in LLVM code generation");
}

}  // namespace tsch::codegen
