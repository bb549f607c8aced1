#include "codegen/llvm/codegen_llvm.h"

#include <llvm/IR/Intrinsics.h>

#include "codegen/loop_facts.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tsch::codegen {

void CodeGenLLVM::emit_thread_binding(const ir::ForNode& n) {
  throw BuildError("loop " + n.loop_var->name + " is bound to " + n.thread_tag +
                   ", which the llvm target cannot run (build for target=\"cuda\", or remove the binding)");
}

// ---- types ----
llvm::Type* CodeGenLLVM::scalar_type(DataType t) {
  switch (t.code) {
    case DataType::Code::Int:
    case DataType::Code::UInt:
      return llvm::Type::getIntNTy(ctx_, t.bits);
    case DataType::Code::Float:
      if (t.bits == 16) return b_.getHalfTy();
      if (t.bits == 32) return b_.getFloatTy();
      if (t.bits == 64) return b_.getDoubleTy();
      break;
    case DataType::Code::BFloat:
      return b_.getBFloatTy();
    case DataType::Code::Float8E4M3FN:
    case DataType::Code::Float8E5M2:
      return b_.getInt8Ty();  // bytes (float8_llvm.cc)
    case DataType::Code::Handle:
      return b_.getPtrTy();
    case DataType::Code::Void:
      return b_.getVoidTy();
  }
  throw BuildError("not supported yet: dtype " + t.to_string() + " in LLVM code generation");
}

llvm::Type* CodeGenLLVM::type_of(DataType t) {
  llvm::Type* s = scalar_type(t.element_of());
  return t.lanes == 1 ? s : llvm::FixedVectorType::get(s, t.lanes);
}

// In memory, bool takes one byte.
llvm::Type* CodeGenLLVM::memory_type(DataType t) {
  llvm::Type* s = t.is_bool() ? b_.getInt8Ty() : scalar_type(t.element_of());
  return t.lanes == 1 ? s : llvm::FixedVectorType::get(s, t.lanes);
}

llvm::FastMathFlags CodeGenLLVM::contract() {
  llvm::FastMathFlags f;
  f.setAllowContract(true);  // lets the backend fuse multiply-add (as TVM does)
  return f;
}

llvm::Value* CodeGenLLVM::emit(const PrimExpr& e) {
  switch (e->kind) {
    case ExprKind::IntImm: {
      auto* n = ir::as<ir::IntImmNode>(e);
      return llvm::ConstantInt::get(type_of(e->dtype), static_cast<uint64_t>(n->value), e->dtype.is_int());
    }
    case ExprKind::FloatImm:
      if (e->dtype.is_float8()) return float8_constant(ir::as<ir::FloatImmNode>(e)->value, e->dtype);
      return llvm::ConstantFP::get(type_of(e->dtype), ir::as<ir::FloatImmNode>(e)->value);
    case ExprKind::StringImm:
      return b_.CreateGlobalStringPtr(ir::as<ir::StringImmNode>(e)->value);
    case ExprKind::Var: {
      auto it = vars_.find(static_cast<const ir::VarNode*>(e.get()));
      if (it == vars_.end())
        throw BuildError("variable " + ir::as<ir::VarNode>(e)->name + " is used outside its scope");
      return it->second;
    }
    case ExprKind::Not:
      return b_.CreateNot(emit(ir::as<ir::NotNode>(e)->a));
    case ExprKind::Select: {
      auto* n = ir::as<ir::SelectNode>(e);
      return b_.CreateSelect(emit(n->condition), emit(n->true_value), emit(n->false_value));
    }
    case ExprKind::Cast:
      return cast(ir::as<ir::CastNode>(e)->value, e->dtype);
    case ExprKind::BufferLoad:
      return load(*ir::as<ir::BufferLoadNode>(e));
    case ExprKind::Call:
      return call(*ir::as<ir::CallNode>(e));
    case ExprKind::Ramp: {
      auto* n = ir::as<ir::RampNode>(e);
      llvm::Value* base = b_.CreateVectorSplat(n->lanes, emit(n->base));
      llvm::Value* stride = b_.CreateVectorSplat(n->lanes, emit(n->stride));
      std::vector<llvm::Constant*> steps;
      for (int i = 0; i < n->lanes; ++i) steps.push_back(llvm::ConstantInt::get(scalar_type(n->base->dtype), i));
      return b_.CreateAdd(base, b_.CreateMul(stride, llvm::ConstantVector::get(steps)));
    }
    case ExprKind::Broadcast: {
      auto* n = ir::as<ir::BroadcastNode>(e);
      return b_.CreateVectorSplat(n->lanes, emit(n->value));
    }
    case ExprKind::Let: {
      auto* n = ir::as<ir::LetNode>(e);
      if (n->var->dtype.is_handle()) derived_pointers_.insert(n->var.get());
      vars_[n->var.get()] = emit(n->value);
      return emit(n->body);
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::And:
    case ExprKind::Or:
      break;
  }
  if (ir::is_binary(e->kind)) return binary(e->kind, ir::binary_a(e), ir::binary_b(e));
  throw BuildError("not supported yet: expression " + ir::script(e) + " in LLVM code generation");
}

llvm::Value* CodeGenLLVM::bf16_to_f32(llvm::Value* v) {
  llvm::Type* f32 = b_.getFloatTy();
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType()))
    f32 = llvm::VectorType::get(f32, vt->getElementCount());
  return b_.CreateFPExt(v, f32);  // exact: the upper half of the float's bits
}

llvm::Value* CodeGenLLVM::f32_to_bf16(llvm::Value* v) {
  llvm::Type *i32 = b_.getInt32Ty(), *i16 = b_.getInt16Ty(), *bf = b_.getBFloatTy();
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType())) {
    i32 = llvm::VectorType::get(i32, vt->getElementCount());
    i16 = llvm::VectorType::get(i16, vt->getElementCount());
    bf = llvm::VectorType::get(bf, vt->getElementCount());
  }
  llvm::Value* bits = b_.CreateBitCast(v, i32);
  // bits + 0x7fff + (bit 16 of bits), then the upper half: round to nearest, ties to even.
  llvm::Value* odd = b_.CreateAnd(b_.CreateLShr(bits, 16), llvm::ConstantInt::get(i32, 1));
  llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(bits, b_.CreateAdd(llvm::ConstantInt::get(i32, 0x7fff), odd)), 16);
  llvm::Value* is_nan = b_.CreateFCmpUNO(v, v);
  llvm::Value* half = b_.CreateSelect(is_nan, llvm::ConstantInt::get(i32, 0x7fc0), rounded);
  return b_.CreateBitCast(b_.CreateTrunc(half, i16), bf);
}

llvm::Value* CodeGenLLVM::binary(ExprKind kind, const PrimExpr& pa, const PrimExpr& pb) {
  DataType t = pa->dtype;
  if (t.code == DataType::Code::BFloat || t.is_float8()) {
    // In float32, rounded back for arithmetic (comparisons give bools as they are).
    DataType f32{DataType::Code::Float, 32, t.lanes};
    PrimExpr a32 = std::make_shared<ir::CastNode>(f32, pa), b32 = std::make_shared<ir::CastNode>(f32, pb);
    llvm::Value* r = binary(kind, a32, b32);
    bool compare = kind >= ExprKind::EQ && kind <= ExprKind::GE;
    if (compare || kind == ExprKind::And || kind == ExprKind::Or) return r;
    return t.is_float8() ? float_to_float8(r, f32, t) : f32_to_bf16(r);
  }
  llvm::Value* a = emit(pa);
  llvm::Value* b = emit(pb);
  bool fl = t.is_float(), sgn = t.is_int();
  bool division =
      kind == ExprKind::Div || kind == ExprKind::Mod || kind == ExprKind::FloorDiv || kind == ExprKind::FloorMod;
  int64_t divisor;
  if (division && !fl && !(ir::as_const_int(pb, &divisor) && divisor != 0 && !(sgn && divisor == -1))) {
    // An integer division by a value that may be zero gives 0 (as NumPy does) instead of
    // trapping the whole process; so does the one other division x86 traps on, the most
    // negative value by -1: the quotient wraps (to itself, as NumPy's), the remainder is 0.
    llvm::Value* zero = llvm::Constant::getNullValue(b->getType());
    llvm::Value* is_zero = b_.CreateICmpEQ(b, zero);
    llvm::Value* is_minus_one = sgn ? b_.CreateICmpEQ(b, llvm::Constant::getAllOnesValue(b->getType())) : nullptr;
    llvm::Value* special = is_minus_one ? b_.CreateOr(is_zero, is_minus_one) : is_zero;
    llvm::Value* safe = b_.CreateSelect(special, llvm::ConstantInt::get(b->getType(), 1), b);
    llvm::Value* q = divide(kind, a, safe, sgn);
    q = b_.CreateSelect(is_zero, zero, q);
    if (!is_minus_one) return q;
    bool quotient = kind == ExprKind::Div || kind == ExprKind::FloorDiv;
    return b_.CreateSelect(is_minus_one, quotient ? b_.CreateSub(zero, a) : zero, q);
  }
  if (division && !fl) return divide(kind, a, b, sgn);
  llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
  b_.setFastMathFlags(contract());
  switch (kind) {
    case ExprKind::Add:
      return fl ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b, "", false, sgn);
    case ExprKind::Sub:
      return fl ? b_.CreateFSub(a, b) : b_.CreateSub(a, b, "", false, sgn);
    case ExprKind::Mul:
      return fl ? b_.CreateFMul(a, b) : b_.CreateMul(a, b, "", false, sgn);
    case ExprKind::Div:
      return b_.CreateFDiv(a, b);  // integer divisions returned above
    case ExprKind::Mod:
      return b_.CreateFRem(a, b);
    case ExprKind::FloorDiv:
      return floor_of(b_.CreateFDiv(a, b));
    case ExprKind::FloorMod:
      return b_.CreateFSub(a, b_.CreateFMul(floor_of(b_.CreateFDiv(a, b)), b));
    case ExprKind::Min:
      return b_.CreateSelect(less(a, b, t), a, b);
    case ExprKind::Max:
      return b_.CreateSelect(less(b, a, t), a, b);
    case ExprKind::EQ:
      return fl ? b_.CreateFCmpOEQ(a, b) : b_.CreateICmpEQ(a, b);
    case ExprKind::NE:
      return fl ? b_.CreateFCmpUNE(a, b) : b_.CreateICmpNE(a, b);
    case ExprKind::LT:
      return less(a, b, t);
    case ExprKind::LE:
      return fl ? b_.CreateFCmpOLE(a, b) : sgn ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
    case ExprKind::GT:
      return less(b, a, t);
    case ExprKind::GE:
      return fl ? b_.CreateFCmpOGE(a, b) : sgn ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
    case ExprKind::And:
      return b_.CreateAnd(a, b);
    case ExprKind::Or:
      return b_.CreateOr(a, b);
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Not:
    case ExprKind::Select:
    case ExprKind::Cast:
    case ExprKind::BufferLoad:
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  throw BuildError("not supported yet: binary operator in LLVM code generation");
}

// Integer Div/Mod (truncating) and FloorDiv/FloorMod.
llvm::Value* CodeGenLLVM::divide(ExprKind kind, llvm::Value* a, llvm::Value* b, bool sgn) {
  switch (kind) {
    case ExprKind::Div:
      return sgn ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
    case ExprKind::Mod:
      return sgn ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
    case ExprKind::FloorDiv: {
      if (!sgn) return b_.CreateUDiv(a, b);
      // q = a / b rounded toward zero, minus one when the remainder's sign differs from b's.
      llvm::Value* q = b_.CreateSDiv(a, b);
      llvm::Value* r = b_.CreateSRem(a, b);
      llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
      llvm::Value* adjust =
          b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
      return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
    }
    case ExprKind::FloorMod: {
      if (!sgn) return b_.CreateURem(a, b);
      llvm::Value* r = b_.CreateSRem(a, b);
      llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
      llvm::Value* adjust =
          b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
      return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
    }
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::And:
    case ExprKind::Or:
    case ExprKind::Not:
    case ExprKind::Select:
    case ExprKind::Cast:
    case ExprKind::BufferLoad:
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;  // not a division: the callers pass only the four above
  }
  throw BuildError("not supported yet: division operator in LLVM code generation");
}

llvm::Value* CodeGenLLVM::less(llvm::Value* a, llvm::Value* b, DataType t) {
  if (t.is_float()) return b_.CreateFCmpOLT(a, b);
  return t.is_int() ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
}

llvm::Value* CodeGenLLVM::floor_of(llvm::Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x); }

llvm::Value* CodeGenLLVM::cast(const PrimExpr& value, DataType to) {
  DataType from = value->dtype;
  llvm::Value* v = emit(value);
  llvm::Type* t = type_of(to);
  if (from == to) return v;
  if (from.is_float8() || to.is_float8()) return cast_float8(v, from, to);
  if (to.is_bool()) {
    if (from.is_float()) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  bool from_bf16 = from.code == DataType::Code::BFloat, to_bf16 = to.code == DataType::Code::BFloat;
  if (from_bf16 || to_bf16) {
    // Through float32: bfloat16 widens exactly, and narrows with f32_to_bf16's rounding.
    DataType f32{DataType::Code::Float, 32, to.lanes};
    llvm::Value* wide = from_bf16 ? bf16_to_f32(v) : nullptr;
    if (!wide) {
      llvm::Type* ft = type_of(f32);
      wide = from.is_float() ? b_.CreateFPCast(v, ft) : from.is_int() ? b_.CreateSIToFP(v, ft) : b_.CreateUIToFP(v, ft);
    }
    if (to_bf16) return f32_to_bf16(wide);
    if (to.is_float()) return b_.CreateFPCast(wide, t);
    return to.is_int() ? b_.CreateFPToSI(wide, t) : b_.CreateFPToUI(wide, t);
  }
  if (from.is_float() && to.is_float()) return b_.CreateFPCast(v, t);
  if (from.is_float()) return to.is_int() ? b_.CreateFPToSI(v, t) : b_.CreateFPToUI(v, t);
  if (to.is_float()) return from.is_int() ? b_.CreateSIToFP(v, t) : b_.CreateUIToFP(v, t);
  return b_.CreateIntCast(v, t, from.is_int());
}

// Through float32 (float64 narrows to float8 directly: rounding twice could differ).
llvm::Value* CodeGenLLVM::cast_float8(llvm::Value* v, DataType from, DataType to) {
  DataType f32 = DataType::float32().with_lanes(to.lanes);
  if (to.is_float8() && from.is_float() && from.bits == 64) return float_to_float8(v, from, to);
  llvm::Value* wide;
  if (from.is_float8()) {
    wide = float8_to_f32(v, from);
  } else {
    llvm::Type* ft = type_of(f32);
    wide = from.code == DataType::Code::BFloat ? bf16_to_f32(v)
           : from.is_float()                   ? b_.CreateFPCast(v, ft)
           : from.is_int()                     ? b_.CreateSIToFP(v, ft)
                                               : b_.CreateUIToFP(v, ft);
  }
  if (to.is_float8()) return float_to_float8(wide, f32, to);
  if (to.is_bool()) return b_.CreateFCmpUNE(wide, llvm::Constant::getNullValue(wide->getType()));
  if (to.code == DataType::Code::BFloat) return f32_to_bf16(wide);
  llvm::Type* t = type_of(to);
  if (to.is_float()) return b_.CreateFPCast(wide, t);
  return to.is_int() ? b_.CreateFPToSI(wide, t) : b_.CreateFPToUI(wide, t);
}

llvm::Value* CodeGenLLVM::data_of(const ir::Buffer& buf) {
  auto it = vars_.find(buf->data.get());
  if (it == vars_.end()) throw BuildError("buffer " + buf->name + " is used outside its allocation");
  return it->second;
}

// Type-based alias info as TVM's codegen gives it: every buffer's memory (its data
// variable) is a type of its own, so accesses to two buffers never alias. Parallel task
// functions load their buffer pointers from a closure, which loses the parameters'
// noalias; without the tags LLVM must assume there that a store to one buffer changes
// the others (e.g. reload a tile of C accumulated in place after every store).
// A pointer bound by a let (`B_data = T.address_of(A[8])`, a packed call's result) may point
// into any buffer: accesses through it carry no tag, so LLVM assumes they may alias all.
llvm::Instruction* CodeGenLLVM::tag_access(llvm::Instruction* access, const ir::Buffer& buf) {
  if (derived_pointers_.count(buf->data.get())) return access;
  auto [it, fresh] = tbaa_tags_.try_emplace(buf->data.get(), nullptr);
  if (fresh) {
    llvm::MDBuilder md(ctx_);
    if (!tbaa_root_) tbaa_root_ = md.createTBAARoot("tsch buffers");
    auto* type = md.createTBAAScalarTypeNode(buf->name + "#" + std::to_string(tbaa_tags_.size()), tbaa_root_);
    it->second = md.createTBAAStructTagNode(type, type, 0);
  }
  access->setMetadata(llvm::LLVMContext::MD_tbaa, it->second);
  return access;
}

// Address of element `index` (scalar) of buffer `buf`.
llvm::Value* CodeGenLLVM::address(const ir::Buffer& buf, llvm::Value* index) {
  return b_.CreateInBoundsGEP(memory_type(buf->dtype), data_of(buf), index);
}

llvm::Value* CodeGenLLVM::load(const ir::BufferLoadNode& n) {
  DataType t = n.dtype;
  const PrimExpr& index = n.indices[0];
  llvm::Align align(std::max(1, t.is_bool() ? 1 : t.bits / 8));
  if (t.lanes == 1) {
    llvm::Value* v = tag_access(b_.CreateAlignedLoad(memory_type(t), address(n.buffer, emit(index)), align), n.buffer);
    return t.is_bool() ? b_.CreateTrunc(v, b_.getInt1Ty()) : v;
  }
  if (auto* ramp = ir::as<ir::RampNode>(index); ramp && ir::is_one(ramp->stride)) {
    llvm::Value* v =
        tag_access(b_.CreateAlignedLoad(memory_type(t), address(n.buffer, emit(ramp->base)), align), n.buffer);
    return t.is_bool() ? b_.CreateTrunc(v, type_of(t)) : v;
  }
  // A gather: one scalar load per lane.
  llvm::Value* idx = emit(index);
  llvm::Value* out = llvm::UndefValue::get(type_of(t));
  for (int i = 0; i < t.lanes; ++i) {
    llvm::Value* lane = b_.CreateExtractElement(idx, static_cast<uint64_t>(i));
    llvm::Value* v =
        tag_access(b_.CreateAlignedLoad(memory_type(t.element_of()), address(n.buffer, lane), align), n.buffer);
    if (t.is_bool()) v = b_.CreateTrunc(v, b_.getInt1Ty());
    out = b_.CreateInsertElement(out, v, static_cast<uint64_t>(i));
  }
  return out;
}

void CodeGenLLVM::store(const ir::BufferStoreNode& n) {
  DataType t = n.value->dtype;
  const PrimExpr& index = n.indices[0];
  llvm::Align align(std::max(1, t.is_bool() ? 1 : t.bits / 8));
  llvm::Value* value = emit(n.value);
  if (t.is_bool()) value = b_.CreateZExt(value, memory_type(t));
  if (t.lanes == 1) {
    tag_access(b_.CreateAlignedStore(value, address(n.buffer, emit(index)), align), n.buffer);
    return;
  }
  if (auto* ramp = ir::as<ir::RampNode>(index); ramp && ir::is_one(ramp->stride)) {
    tag_access(b_.CreateAlignedStore(value, address(n.buffer, emit(ramp->base)), align), n.buffer);
    return;
  }
  llvm::Value* idx = emit(index);
  for (int i = 0; i < t.lanes; ++i) {
    llvm::Value* lane = b_.CreateExtractElement(idx, static_cast<uint64_t>(i));
    tag_access(
        b_.CreateAlignedStore(b_.CreateExtractElement(value, static_cast<uint64_t>(i)), address(n.buffer, lane), align),
        n.buffer);
  }
}

void CodeGenLLVM::emit(const Stmt& s) {
  switch (s->kind) {
    case ir::StmtKind::BufferStore:
      store(*ir::as<ir::BufferStoreNode>(s));
      return;
    case ir::StmtKind::SeqStmt:
      for (const auto& x : ir::as<ir::SeqStmtNode>(s)->seq) emit(x);
      return;
    case ir::StmtKind::Evaluate:
      emit(ir::as<ir::EvaluateNode>(s)->value);
      return;
    case ir::StmtKind::LetStmt: {
      auto* n = ir::as<ir::LetStmtNode>(s);
      if (n->var->dtype.is_handle()) derived_pointers_.insert(n->var.get());
      vars_[n->var.get()] = emit(n->value);
      emit(n->body);
      vars_.erase(n->var.get());
      return;
    }
    case ir::StmtKind::IfThenElse: {
      auto* n = ir::as<ir::IfThenElseNode>(s);
      auto* then_bb = llvm::BasicBlock::Create(ctx_, "if_then", fn_);
      auto* end_bb = llvm::BasicBlock::Create(ctx_, "if_end", fn_);
      auto* else_bb = n->else_case ? llvm::BasicBlock::Create(ctx_, "if_else", fn_) : end_bb;
      b_.CreateCondBr(emit(n->condition), then_bb, else_bb);
      b_.SetInsertPoint(then_bb);
      emit(n->then_case);
      b_.CreateBr(end_bb);
      if (n->else_case) {
        b_.SetInsertPoint(else_bb);
        emit(n->else_case);
        b_.CreateBr(end_bb);
      }
      b_.SetInsertPoint(end_bb);
      return;
    }
    case ir::StmtKind::Allocate:
      emit_allocate(*ir::as<ir::AllocateNode>(s));
      return;
    case ir::StmtKind::DeclBuffer:
      emit(ir::as<ir::DeclBufferNode>(s)->body);
      return;  // same data pointer
    case ir::StmtKind::AttrStmt:
      emit(ir::as<ir::AttrStmtNode>(s)->body);
      return;  // a hint, as TVM's generator reads it
    case ir::StmtKind::AllocateConst: {
      // A private constant global holding the data, as TVM's CodeGenLLVM emits one.
      auto* n = ir::as<ir::AllocateConstNode>(s);
      llvm::Constant* array = nullptr;
      const DataType t = n->dtype;
      if (t.is_float() && t.bits == 32) {
        std::vector<float> v(n->float_data.begin(), n->float_data.end());
        array = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<float>(v));
      } else if (t.is_float() && t.bits == 64) {
        array = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<double>(n->float_data));
      } else if (t.is_integer() && t.bits == 8) {
        std::vector<uint8_t> v(n->int_data.begin(), n->int_data.end());
        array = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint8_t>(v));
      } else if (t.is_integer() && t.bits == 16) {
        std::vector<uint16_t> v(n->int_data.begin(), n->int_data.end());
        array = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint16_t>(v));
      } else if (t.is_integer() && t.bits == 32) {
        std::vector<uint32_t> v(n->int_data.begin(), n->int_data.end());
        array = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint32_t>(v));
      } else if (t.is_integer() && t.bits == 64) {
        std::vector<uint64_t> v(n->int_data.begin(), n->int_data.end());
        array = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint64_t>(v));
      } else {
        throw BuildError("not supported yet: T.allocate_const of " + t.to_string() + " in LLVM code generation");
      }
      auto* global = new llvm::GlobalVariable(mod_, array->getType(), true, llvm::GlobalValue::PrivateLinkage, array,
                                              n->buffer_var->name);
      global->setAlignment(llvm::Align(64));
      global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      vars_[n->buffer_var.get()] = global;
      emit(n->body);
      vars_.erase(n->buffer_var.get());
      return;
    }
    case ir::StmtKind::For: {
      auto* n = ir::as<ir::ForNode>(s);
      TSCH_INTERNAL_ASSERT(n->has_trivial_step())
          << "a loop step reached code generation (tir.CanonicalizeLoop removes them)";
      if (n->for_kind == ir::ForKind::ThreadBinding) {
        emit_thread_binding(*n);
        return;
      }
      if (n->for_kind == ir::ForKind::Parallel) {
        emit_parallel(*n);
        return;
      }
      // Bounds in the loop variable's type (a specialized int16 extent may reach here as
      // int32, and LLVM compares only values of one type).
      llvm::Type* t = type_of(n->loop_var->dtype);
      llvm::Value *min = b_.CreateIntCast(emit(n->min), t, true), *extent = b_.CreateIntCast(emit(n->extent), t, true);
      loop(n->loop_var, min, extent, n->body, n->for_kind == ir::ForKind::Unrolled);
      return;
    }
    case ir::StmtKind::Block:
    case ir::StmtKind::BlockRealize:
      throw BuildError("internal: blocks must be lowered before code generation");
  }
}

void CodeGenLLVM::loop(const ir::Var& var, llvm::Value* begin, llvm::Value* extent, const Stmt& body, bool unroll) {
  llvm::Value* end = b_.CreateAdd(begin, extent, "", false, true);
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(ctx_, "for_head_" + var->name, fn_);
  auto* body_bb = llvm::BasicBlock::Create(ctx_, "for_body_" + var->name, fn_);
  auto* exit = llvm::BasicBlock::Create(ctx_, "for_end_" + var->name, fn_);
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode* i = b_.CreatePHI(begin->getType(), 2, var->name);
  i->addIncoming(begin, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(i, end), body_bb, exit);
  b_.SetInsertPoint(body_bb);
  vars_[var.get()] = i;
  at_loop_head(body, unroll);
  emit(body);
  llvm::Value* next = b_.CreateAdd(i, llvm::ConstantInt::get(begin->getType(), 1), "", false, true);
  auto* back = b_.CreateBr(head);
  if (unroll) {
    llvm::MDNode* full = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")});
    llvm::MDNode* self = llvm::MDNode::getDistinct(ctx_, {nullptr, full});
    self->replaceOperandWith(0, self);
    back->setMetadata(llvm::LLVMContext::MD_loop, self);
  }
  i->addIncoming(next, b_.GetInsertBlock());
  b_.SetInsertPoint(exit);
  vars_.erase(var.get());
}

}  // namespace tsch::codegen
