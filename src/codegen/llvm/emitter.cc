#include "codegen/llvm/emitter.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>

#include <unordered_map>
#include <unordered_set>

#include "codegen/llvm/loop_facts.h"
#include "codegen/llvm/packed_call.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"

namespace tsch::codegen {

using runtime::BufferParam;
using runtime::CompiledModule;
using runtime::EntryPoint;
namespace {

using ir::DataType;
using ir::ExprKind;
using ir::PrimExpr;
using ir::Stmt;

// Buffers up to this size live on the stack; larger ones on the heap.
constexpr int64_t kMaxStackBytes = 256 * 1024;

class Emitter {
 public:
  Emitter(llvm::Module& m, bool interrupt_checks) : mod_(m), ctx_(m.getContext()), b_(ctx_), interrupt_checks_(interrupt_checks) {}

  FunctionSignature emit(const std::string& name, const ir::PrimFunc& f) {
    FunctionSignature sig;
    sig.name = name;
    collect_signature(f, sig);
    // The implementation takes typed, noalias parameters; the entry point unpacks arrays.
    std::vector<llvm::Type*> params;
    std::vector<const ir::VarNode*> bound;
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (sig.buffers[i]) {
        params.push_back(b_.getPtrTy());
        bound.push_back(f->buffer_of(f->params[i])->data.get());
      }
    }
    for (const auto& v : sig.scalar_slots) {
      params.push_back(type_of(v->dtype));
      bound.push_back(v.get());
    }
    // Every generated function returns a status: 0, or runtime::kStatusOutOfMemory.
    auto* impl_type = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
    fn_ = llvm::Function::Create(impl_type, llvm::Function::InternalLinkage, name + "_compute", mod_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    size_t n_buffers = 0;
    for (size_t i = 0; i < params.size(); ++i) {
      llvm::Argument* arg = fn_->getArg(static_cast<unsigned>(i));
      vars_[bound[i]] = arg;
      if (params[i]->isPointerTy()) {
        ++n_buffers;
        // Parameters never alias (TVM's tir.noalias): the key to vectorized loops.
        arg->addAttr(llvm::Attribute::NoAlias);
        arg->addAttr(llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
      }
    }
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry);
    emit(f->body);
    b_.CreateRet(b_.getInt32(0));

    // Entry point: status fn(void** buffers, int64_t* scalars).
    auto* entry_type = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getPtrTy()}, false);
    auto* wrapper = llvm::Function::Create(entry_type, llvm::Function::ExternalLinkage, name, mod_);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", wrapper));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < n_buffers; ++i) {
      llvm::Value* slot = b_.CreateConstGEP1_64(b_.getPtrTy(), wrapper->getArg(0), i);
      args.push_back(b_.CreateLoad(b_.getPtrTy(), slot));
    }
    for (size_t i = 0; i < sig.scalar_slots.size(); ++i) {
      llvm::Value* slot = b_.CreateConstGEP1_64(b_.getInt64Ty(), wrapper->getArg(1), i);
      DataType t = sig.scalar_slots[i]->dtype;
      llvm::Value* raw = b_.CreateLoad(b_.getInt64Ty(), slot);
      if (t.is_float()) raw = b_.CreateFPCast(b_.CreateBitCast(raw, b_.getDoubleTy()), type_of(t));
      else raw = b_.CreateIntCast(raw, type_of(t), true);
      args.push_back(raw);
    }
    b_.CreateRet(b_.CreateCall(fn_, args));
    return sig;
  }

 private:
  // ---- signature ----
  void collect_signature(const ir::PrimFunc& f, FunctionSignature& sig) {
    std::unordered_set<const ir::VarNode*> seen;
    auto slot = [&](const ir::Var& v) {
      if (seen.insert(v.get()).second) sig.scalar_slots.push_back(v);
    };
    for (const auto& p : f->params) {
      sig.param_names.push_back(p->name);
      ir::Buffer buf = f->buffer_of(p);
      if (buf) {
        if (!runtime_dtype(buf->dtype)) throw BuildError("not supported yet: buffer " + buf->name + " of dtype " + buf->dtype.to_string());
        sig.buffers.push_back(BufferParam{buf->name, buf->dtype, buf->shape});
        sig.scalar_params.push_back(nullptr);
      } else {
        sig.buffers.push_back(std::nullopt);
        sig.scalar_params.push_back(p);
      }
    }
    // Shape variables first (bound from arrays), then scalar parameters, then any other free
    // variable the body reads from a shape (e.g. strides): all become slots.
    for (const auto& [p, buf] : f->buffer_map)
      for (const auto& d : buf->shape)
        ir::for_each_expr(d, [&](const PrimExpr& e) {
          if (ir::as<ir::VarNode>(e)) slot(std::static_pointer_cast<const ir::VarNode>(e));
        });
    for (const auto& p : f->params)
      if (!f->buffer_of(p)) slot(p);
  }

  static bool runtime_dtype(DataType t) {
    if (t.lanes != 1) return false;
    if (t.is_bool()) return true;
    if (t.is_float()) return t.bits == 16 || t.bits == 32 || t.bits == 64;
    return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  }

  // ---- types ----
  llvm::Type* scalar_type(DataType t) {
    switch (t.code) {
      case DataType::Code::Int: case DataType::Code::UInt:
        return llvm::Type::getIntNTy(ctx_, t.bits);
      case DataType::Code::Float:
        if (t.bits == 16) return b_.getHalfTy();
        if (t.bits == 32) return b_.getFloatTy();
        if (t.bits == 64) return b_.getDoubleTy();
        break;
      case DataType::Code::BFloat: return b_.getBFloatTy();
      case DataType::Code::Handle: return b_.getPtrTy();
      case DataType::Code::Void: return b_.getVoidTy();
    }
    throw BuildError("not supported yet: dtype " + t.to_string() + " in LLVM code generation");
  }
  llvm::Type* type_of(DataType t) {
    llvm::Type* s = scalar_type(t.element_of());
    return t.lanes == 1 ? s : llvm::FixedVectorType::get(s, t.lanes);
  }
  // In memory, bool takes one byte.
  llvm::Type* memory_type(DataType t) {
    llvm::Type* s = t.is_bool() ? b_.getInt8Ty() : scalar_type(t.element_of());
    return t.lanes == 1 ? s : llvm::FixedVectorType::get(s, t.lanes);
  }

  llvm::FastMathFlags contract() {
    llvm::FastMathFlags f;
    f.setAllowContract(true);  // lets the backend fuse multiply-add (as TVM does)
    return f;
  }

  // ---- expressions ----
  llvm::Value* emit(const PrimExpr& e) {
    switch (e->kind) {
      case ExprKind::IntImm: {
        auto* n = ir::as<ir::IntImmNode>(e);
        return llvm::ConstantInt::get(type_of(e->dtype), static_cast<uint64_t>(n->value), e->dtype.is_int());
      }
      case ExprKind::FloatImm: return llvm::ConstantFP::get(type_of(e->dtype), ir::as<ir::FloatImmNode>(e)->value);
      case ExprKind::StringImm: return b_.CreateGlobalStringPtr(ir::as<ir::StringImmNode>(e)->value);
      case ExprKind::Var: {
        auto it = vars_.find(static_cast<const ir::VarNode*>(e.get()));
        if (it == vars_.end()) throw BuildError("variable " + ir::as<ir::VarNode>(e)->name + " is used outside its scope");
        return it->second;
      }
      case ExprKind::Not: return b_.CreateNot(emit(ir::as<ir::NotNode>(e)->a));
      case ExprKind::Select: {
        auto* n = ir::as<ir::SelectNode>(e);
        return b_.CreateSelect(emit(n->condition), emit(n->true_value), emit(n->false_value));
      }
      case ExprKind::Cast: return cast(ir::as<ir::CastNode>(e)->value, e->dtype);
      case ExprKind::BufferLoad: return load(*ir::as<ir::BufferLoadNode>(e));
      case ExprKind::Call: return call(*ir::as<ir::CallNode>(e));
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
        vars_[n->var.get()] = emit(n->value);
        return emit(n->body);
      }
      default: break;
    }
    if (ir::is_binary(e->kind)) return binary(e->kind, ir::binary_a(e), ir::binary_b(e));
    throw BuildError("not supported yet: expression " + ir::script(e) + " in LLVM code generation");
  }

  llvm::Value* binary(ExprKind kind, const PrimExpr& pa, const PrimExpr& pb) {
    DataType t = pa->dtype;
    llvm::Value* a = emit(pa);
    llvm::Value* b = emit(pb);
    bool fl = t.is_float(), sgn = t.is_int();
    bool division = kind == ExprKind::Div || kind == ExprKind::Mod || kind == ExprKind::FloorDiv || kind == ExprKind::FloorMod;
    int64_t divisor;
    if (division && !fl && !(ir::as_const_int(pb, &divisor) && divisor != 0)) {
      // An integer division by a value that may be zero gives 0 (as NumPy does) instead of
      // trapping the whole process.
      llvm::Value* zero = llvm::Constant::getNullValue(b->getType());
      llvm::Value* is_zero = b_.CreateICmpEQ(b, zero);
      llvm::Value* safe = b_.CreateSelect(is_zero, llvm::ConstantInt::get(b->getType(), 1), b);
      llvm::Value* q = divide(kind, a, safe, sgn);
      return b_.CreateSelect(is_zero, llvm::Constant::getNullValue(q->getType()), q);
    }
    if (division && !fl) return divide(kind, a, b, sgn);
    llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
    b_.setFastMathFlags(contract());
    switch (kind) {
      case ExprKind::Add: return fl ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b, "", false, sgn);
      case ExprKind::Sub: return fl ? b_.CreateFSub(a, b) : b_.CreateSub(a, b, "", false, sgn);
      case ExprKind::Mul: return fl ? b_.CreateFMul(a, b) : b_.CreateMul(a, b, "", false, sgn);
      case ExprKind::Div: return b_.CreateFDiv(a, b);  // integer divisions returned above
      case ExprKind::Mod: return b_.CreateFRem(a, b);
      case ExprKind::FloorDiv: return floor_of(b_.CreateFDiv(a, b));
      case ExprKind::FloorMod: return b_.CreateFSub(a, b_.CreateFMul(floor_of(b_.CreateFDiv(a, b)), b));
      case ExprKind::Min: return b_.CreateSelect(less(a, b, t), a, b);
      case ExprKind::Max: return b_.CreateSelect(less(b, a, t), a, b);
      case ExprKind::EQ: return fl ? b_.CreateFCmpOEQ(a, b) : b_.CreateICmpEQ(a, b);
      case ExprKind::NE: return fl ? b_.CreateFCmpUNE(a, b) : b_.CreateICmpNE(a, b);
      case ExprKind::LT: return less(a, b, t);
      case ExprKind::LE: return fl ? b_.CreateFCmpOLE(a, b) : sgn ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
      case ExprKind::GT: return less(b, a, t);
      case ExprKind::GE: return fl ? b_.CreateFCmpOGE(a, b) : sgn ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
      case ExprKind::And: return b_.CreateAnd(a, b);
      case ExprKind::Or: return b_.CreateOr(a, b);
      default: break;
    }
    throw BuildError("not supported yet: binary operator in LLVM code generation");
  }

  // Integer Div/Mod (truncating) and FloorDiv/FloorMod.
  llvm::Value* divide(ExprKind kind, llvm::Value* a, llvm::Value* b, bool sgn) {
    switch (kind) {
      case ExprKind::Div: return sgn ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
      case ExprKind::Mod: return sgn ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
      case ExprKind::FloorDiv: {
        if (!sgn) return b_.CreateUDiv(a, b);
        // q = a / b rounded toward zero, minus one when the remainder's sign differs from b's.
        llvm::Value* q = b_.CreateSDiv(a, b);
        llvm::Value* r = b_.CreateSRem(a, b);
        llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
        llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
        return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
      }
      default: {  // FloorMod
        if (!sgn) return b_.CreateURem(a, b);
        llvm::Value* r = b_.CreateSRem(a, b);
        llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
        llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
        return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
      }
    }
  }

  llvm::Value* less(llvm::Value* a, llvm::Value* b, DataType t) {
    if (t.is_float()) return b_.CreateFCmpOLT(a, b);
    return t.is_int() ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
  }

  llvm::Value* floor_of(llvm::Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x); }

  llvm::Value* cast(const PrimExpr& value, DataType to) {
    DataType from = value->dtype;
    llvm::Value* v = emit(value);
    llvm::Type* t = type_of(to);
    if (from == to) return v;
    if (to.is_bool()) {
      if (from.is_float()) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
      return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    }
    if (from.is_float() && to.is_float()) return b_.CreateFPCast(v, t);
    if (from.is_float()) return to.is_int() ? b_.CreateFPToSI(v, t) : b_.CreateFPToUI(v, t);
    if (to.is_float()) return from.is_int() ? b_.CreateSIToFP(v, t) : b_.CreateUIToFP(v, t);
    return b_.CreateIntCast(v, t, from.is_int());
  }

  // ---- memory ----
  llvm::Value* data_of(const ir::Buffer& buf) {
    auto it = vars_.find(buf->data.get());
    if (it == vars_.end()) throw BuildError("buffer " + buf->name + " is used outside its allocation");
    return it->second;
  }

  // Type-based alias info as TVM's codegen gives it: every buffer's memory (its data
  // variable) is a type of its own, so accesses to two buffers never alias. Parallel task
  // functions load their buffer pointers from a closure, which loses the parameters'
  // noalias; without the tags LLVM must assume there that a store to one buffer changes
  // the others (e.g. reload a tile of C accumulated in place after every store).
  llvm::Instruction* tag_access(llvm::Instruction* access, const ir::Buffer& buf) {
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
  llvm::Value* address(const ir::Buffer& buf, llvm::Value* index) {
    return b_.CreateInBoundsGEP(memory_type(buf->dtype), data_of(buf), index);
  }

  llvm::Value* load(const ir::BufferLoadNode& n) {
    DataType t = n.dtype;
    const PrimExpr& index = n.indices[0];
    llvm::Align align(std::max(1, t.is_bool() ? 1 : t.bits / 8));
    if (t.lanes == 1) {
      llvm::Value* v = tag_access(b_.CreateAlignedLoad(memory_type(t), address(n.buffer, emit(index)), align), n.buffer);
      return t.is_bool() ? b_.CreateTrunc(v, b_.getInt1Ty()) : v;
    }
    if (auto* ramp = ir::as<ir::RampNode>(index); ramp && ir::is_one(ramp->stride)) {
      llvm::Value* v = tag_access(b_.CreateAlignedLoad(memory_type(t), address(n.buffer, emit(ramp->base)), align), n.buffer);
      return t.is_bool() ? b_.CreateTrunc(v, type_of(t)) : v;
    }
    // A gather: one scalar load per lane.
    llvm::Value* idx = emit(index);
    llvm::Value* out = llvm::UndefValue::get(type_of(t));
    for (int i = 0; i < t.lanes; ++i) {
      llvm::Value* lane = b_.CreateExtractElement(idx, static_cast<uint64_t>(i));
      llvm::Value* v = tag_access(b_.CreateAlignedLoad(memory_type(t.element_of()), address(n.buffer, lane), align), n.buffer);
      if (t.is_bool()) v = b_.CreateTrunc(v, b_.getInt1Ty());
      out = b_.CreateInsertElement(out, v, static_cast<uint64_t>(i));
    }
    return out;
  }

  void store(const ir::BufferStoreNode& n) {
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
      tag_access(b_.CreateAlignedStore(b_.CreateExtractElement(value, static_cast<uint64_t>(i)), address(n.buffer, lane), align), n.buffer);
    }
  }

  // ---- calls ----
  llvm::Value* call(const ir::CallNode& n) {
    const std::string& op = n.op;
    DataType t = n.dtype;
    if (op == "if_then_else") return if_then_else(n);
    if (op == "call_packed") {
      PackedCallValues pc = emit_packed_call(b_, mod_, *fn_, n, [this](const PrimExpr& e) { return emit(e); });
      return_if_failed(b_.CreateICmpNE(pc.status, b_.getInt32(0)), pc.status, "packed_call_failed");
      return b_.CreateIntCast(pc.result, type_of(t), true);
    }
    if (op == "likely") return emit(n.args[0]);
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
        {"exp", llvm::Intrinsic::exp},   {"exp2", llvm::Intrinsic::exp2},     {"log", llvm::Intrinsic::log},
        {"log2", llvm::Intrinsic::log2}, {"log10", llvm::Intrinsic::log10},   {"sqrt", llvm::Intrinsic::sqrt},
        {"fabs", llvm::Intrinsic::fabs}, {"floor", llvm::Intrinsic::floor},   {"ceil", llvm::Intrinsic::ceil},
        {"trunc", llvm::Intrinsic::trunc}, {"round", llvm::Intrinsic::nearbyint}, {"nearbyint", llvm::Intrinsic::nearbyint},
        {"sin", llvm::Intrinsic::sin},   {"cos", llvm::Intrinsic::cos},       {"popcount", llvm::Intrinsic::ctpop},
    };
    if (auto it = unary.find(op); it != unary.end()) return b_.CreateUnaryIntrinsic(it->second, emit(n.args[0]));
    if (op == "pow") return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, emit(n.args[0]), emit(n.args[1]));
    static const std::unordered_set<std::string> libm = {"tanh", "tan", "asin", "acos", "atan", "sinh", "cosh", "erf", "log1p", "atan2", "fmod"};
    if (libm.count(op)) return libm_call(op, n.args, t);
    throw BuildError("not supported yet: the intrinsic T." + op + " in LLVM code generation");
  }

  // A C math library call, per lane for vectors; float32 uses the `f` variant.
  llvm::Value* libm_call(const std::string& op, const std::vector<PrimExpr>& args, DataType t) {
    if (!t.is_float() || (t.bits != 32 && t.bits != 64)) throw BuildError("not supported yet: T." + op + " on " + t.to_string());
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
  llvm::Value* if_then_else(const ir::CallNode& n) {
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

  // ---- statements ----
  void emit(const Stmt& s) {
    switch (s->kind) {
      case ir::StmtKind::BufferStore: store(*ir::as<ir::BufferStoreNode>(s)); return;
      case ir::StmtKind::SeqStmt:
        for (const auto& x : ir::as<ir::SeqStmtNode>(s)->seq) emit(x);
        return;
      case ir::StmtKind::Evaluate: emit(ir::as<ir::EvaluateNode>(s)->value); return;
      case ir::StmtKind::LetStmt: {
        auto* n = ir::as<ir::LetStmtNode>(s);
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
      case ir::StmtKind::Allocate: allocate(*ir::as<ir::AllocateNode>(s)); return;
      case ir::StmtKind::DeclBuffer: emit(ir::as<ir::DeclBufferNode>(s)->body); return;  // same data pointer
      case ir::StmtKind::For: {
        auto* n = ir::as<ir::ForNode>(s);
        if (n->for_kind == ir::ForKind::ThreadBinding)
          throw BuildError("loop " + n->loop_var->name + " is bound to " + n->thread_tag +
                           ", which the llvm target cannot run (build for target=\"cuda\", or remove the binding)");
        if (n->for_kind == ir::ForKind::Parallel && !in_parallel_) {
          parallel(*n);
          return;
        }
        loop(n->loop_var, emit(n->min), emit(n->extent), n->body, n->for_kind == ir::ForKind::Unrolled);
        return;
      }
      case ir::StmtKind::Block:
      case ir::StmtKind::BlockRealize:
        throw BuildError("internal: blocks must be lowered before code generation");
    }
  }

  void loop(const ir::Var& var, llvm::Value* begin, llvm::Value* extent, const Stmt& body, bool unroll) {
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
    if (interrupt_checks_ && !unroll && holds_heavy_loop(body)) return_if_interrupted();
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

  void allocate(const ir::AllocateNode& n) {
    const ir::Buffer& buf = n.buffer;
    llvm::Type* elem = memory_type(buf->dtype);
    // The element count and byte size, overflow-checked at build time for constant shapes
    // and at run time otherwise: an overflowing size asks the runtime for -1 bytes, which it
    // refuses, instead of wrapping to a small buffer that the kernel then overruns.
    auto elem_bytes = static_cast<int64_t>(mod_.getDataLayout().getTypeAllocSize(elem));
    int64_t count = 1;
    bool constant = true, overflow = false;
    llvm::Value* size = llvm::ConstantInt::get(b_.getInt64Ty(), 1);
    llvm::Value* size_overflow = b_.getFalse();
    llvm::Function* smul = llvm::Intrinsic::getDeclaration(&mod_, llvm::Intrinsic::smul_with_overflow, {b_.getInt64Ty()});
    auto multiply = [&](llvm::Value* factor) {
      llvm::Value* r = b_.CreateCall(smul, {size, factor});
      size = b_.CreateExtractValue(r, 0);
      size_overflow = b_.CreateOr(size_overflow, b_.CreateExtractValue(r, 1));
    };
    for (const auto& d : buf->shape) {
      int64_t c;
      if (ir::as_const_int(d, &c)) overflow |= c < 0 || __builtin_mul_overflow(count, c, &count);
      else constant = false;
      multiply(b_.CreateIntCast(emit(d), b_.getInt64Ty(), true));
    }
    int64_t bytes = 0;
    overflow |= __builtin_mul_overflow(count, elem_bytes, &bytes);
    if (overflow) constant = false;
    if (constant && bytes <= kMaxStackBytes) {
      // At the function's entry, so a loop around the allocation does not grow the stack.
      llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      llvm::AllocaInst* a = entry.CreateAlloca(elem, llvm::ConstantInt::get(b_.getInt64Ty(), count), buf->name);
      a->setAlignment(llvm::Align(64));
      vars_[buf->data.get()] = a;
      emit(n.body);
      vars_.erase(buf->data.get());
      return;
    }
    multiply(b_.getInt64(elem_bytes));
    llvm::Value* nbytes = b_.CreateSelect(size_overflow, b_.getInt64(-1), size);
    // From the runtime's workspace pool (runtime/workspace.h): memory stays warm across calls.
    llvm::FunctionCallee alloc = mod_.getOrInsertFunction("tsch_workspace_alloc", b_.getPtrTy(), b_.getInt64Ty());
    llvm::FunctionCallee release = mod_.getOrInsertFunction("tsch_workspace_free", b_.getVoidTy(), b_.getPtrTy());
    llvm::CallInst* p = b_.CreateCall(alloc, {nbytes});
    p->addRetAttr(llvm::Attribute::NoAlias);  // fresh memory, as malloc's
    return_if_failed(b_.CreateIsNull(p));
    vars_[buf->data.get()] = p;
    live_workspace_.push_back(p);
    emit(n.body);
    live_workspace_.pop_back();
    b_.CreateCall(release, {p});
    vars_.erase(buf->data.get());
  }

  // Returns kStatusInterrupted (releasing the workspace held) once Ctrl-C set the flag.
  void return_if_interrupted() {
    llvm::GlobalVariable* flag = mod_.getNamedGlobal("tsch_interrupt_pending");
    if (!flag) {
      flag = new llvm::GlobalVariable(mod_, b_.getInt32Ty(), false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                      "tsch_interrupt_pending");
    }
    llvm::LoadInst* pending = b_.CreateLoad(b_.getInt32Ty(), flag, "interrupt_pending");
    pending->setVolatile(true);
    return_if_failed(b_.CreateICmpNE(pending, b_.getInt32(0)), runtime::kStatusInterrupted);
  }

  // When `failed` holds, the current function releases the workspace it holds and returns
  // `status` (a parallel task returns it to tsch_parallel_for, which hands it to the
  // function that started the loop, and so on up to the caller, which raises).
  void return_if_failed(llvm::Value* failed, int32_t status = runtime::kStatusOutOfMemory) {
    return_if_failed(failed, b_.getInt32(status), status == runtime::kStatusInterrupted ? "interrupted" : "out_of_memory");
  }
  void return_if_failed(llvm::Value* failed, llvm::Value* status, const char* what) {
    auto* fail = llvm::BasicBlock::Create(ctx_, what, fn_);
    auto* go_on = llvm::BasicBlock::Create(ctx_, "go_on", fn_);
    b_.CreateCondBr(failed, fail, go_on, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(fail);
    llvm::FunctionCallee release = mod_.getOrInsertFunction("tsch_workspace_free", b_.getVoidTy(), b_.getPtrTy());
    for (auto it = live_workspace_.rbegin(); it != live_workspace_.rend(); ++it) b_.CreateCall(release, {*it});
    b_.CreateRet(status);
    b_.SetInsertPoint(go_on);
  }

  // A parallel loop: its body becomes a function run by the runtime's thread pool on chunks
  // of the iteration space; the variables it reads are passed in a closure struct.
  void parallel(const ir::ForNode& n) {
    std::vector<const ir::VarNode*> captured = free_vars(n, [&](const ir::VarNode* v) { return vars_.count(v) > 0; });
    std::vector<llvm::Type*> field_types;
    for (auto* v : captured) field_types.push_back(vars_.at(v)->getType());
    llvm::StructType* closure_type = llvm::StructType::get(ctx_, field_types);
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::Value* closure = entry.CreateAlloca(closure_type);
    for (size_t i = 0; i < captured.size(); ++i)
      b_.CreateStore(vars_.at(captured[i]), b_.CreateStructGEP(closure_type, closure, static_cast<unsigned>(i)));
    llvm::Value* begin = b_.CreateIntCast(emit(n.min), b_.getInt64Ty(), true);
    llvm::Value* extent = b_.CreateIntCast(emit(n.extent), b_.getInt64Ty(), true);
    // The task function: (task, num_tasks, closure, begin, extent).
    auto* task_type = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt64Ty(), b_.getInt64Ty(), b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
    auto* task_fn = llvm::Function::Create(task_type, llvm::Function::InternalLinkage, fn_->getName() + "_parallel_" + n.loop_var->name, mod_);
    task_fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::FunctionCallee parallel_for = mod_.getOrInsertFunction(
        "tsch_parallel_for", b_.getInt32Ty(), b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty());
    llvm::Value* status = b_.CreateCall(parallel_for, {task_fn, closure, begin, extent});
    // A failed task's own status (out of memory, interrupted, a failed packed call) goes up.
    return_if_failed(b_.CreateICmpNE(status, b_.getInt32(0)), status, "task_failed");

    // Emit the task function's body with its own variable scope.
    llvm::Function* saved_fn = fn_;
    llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
    auto saved_vars = vars_;
    auto saved_workspace = std::move(live_workspace_);
    live_workspace_.clear();  // the task releases only what it allocates itself
    fn_ = task_fn;
    in_parallel_ = true;
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", task_fn));
    llvm::Value* arg_closure = task_fn->getArg(2);
    for (size_t i = 0; i < captured.size(); ++i) {
      llvm::Value* v = b_.CreateLoad(field_types[i], b_.CreateStructGEP(closure_type, arg_closure, static_cast<unsigned>(i)));
      vars_[captured[i]] = v;
    }
    // This task's chunk: [begin + task * per, min(begin + extent, that + per)).
    llvm::Value* task = task_fn->getArg(0);
    llvm::Value* ntasks = task_fn->getArg(1);
    llvm::Value* tbegin = task_fn->getArg(3);
    llvm::Value* textent = task_fn->getArg(4);
    llvm::Value* per = b_.CreateSDiv(b_.CreateSub(b_.CreateAdd(textent, ntasks), b_.getInt64(1)), ntasks);
    llvm::Value* lo = b_.CreateAdd(tbegin, b_.CreateMul(task, per));
    llvm::Value* stop = b_.CreateAdd(tbegin, textent);
    llvm::Value* hi = b_.CreateSelect(b_.CreateICmpSLT(b_.CreateAdd(lo, per), stop), b_.CreateAdd(lo, per), stop);
    llvm::Value* count = b_.CreateSelect(b_.CreateICmpSLT(lo, hi), b_.CreateSub(hi, lo), b_.getInt64(0));
    llvm::Type* var_type = type_of(n.loop_var->dtype);
    loop(n.loop_var, b_.CreateIntCast(lo, var_type, true), b_.CreateIntCast(count, var_type, true), n.body, false);
    b_.CreateRet(b_.getInt32(0));
    fn_ = saved_fn;
    in_parallel_ = false;
    vars_ = std::move(saved_vars);
    live_workspace_ = std::move(saved_workspace);
    b_.restoreIP(saved_ip);
  }

  llvm::Module& mod_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  std::unordered_map<const ir::VarNode*, llvm::Value*> vars_;
  llvm::MDNode* tbaa_root_ = nullptr;
  std::unordered_map<const ir::VarNode*, llvm::MDNode*> tbaa_tags_;
  bool in_parallel_ = false;
  bool interrupt_checks_;
  std::vector<llvm::Value*> live_workspace_;  // heap buffers open at the insert point, outermost first
};

}  // namespace

FunctionSignature emit_function(llvm::Module& module, const std::string& name, const ir::PrimFunc& f, bool interrupt_checks) {
  return Emitter(module, interrupt_checks).emit(name, f);
}

}  // namespace tsch::codegen
