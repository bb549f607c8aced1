#include "codegen/source/codegen_c_host.h"

#include <cctype>
#include <cstdio>

#include "codegen/interrupt_chunks.h"
#include "codegen/loop_facts.h"
#include "codegen/signature.h"
#include "ir/op.h"
#include "runtime/packed_call.h"

namespace tsch::codegen {

using namespace ir;

runtime::FunctionSignature CodeGenCHost::add_function(const std::string& name, const PrimFunc& f) {
  runtime::FunctionSignature sig = collect_signature(name, f);
  out_.str("");
  indent_ = 0;
  // The implementation: buffer data pointers (never aliasing, as TVM's tir.noalias) and the
  // scalar slots, in the entry point's order.
  std::vector<std::string> params, args;
  size_t n_buffers = 0;
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (!sig.buffers[i]) continue;
    Buffer buf = f->buffer_of(f->params[i]);
    std::string t = memory_type_of(buf->dtype);
    params.push_back(t + "* restrict " + define(buf->data.get(), buf->name));
    args.push_back("(" + t + "*)buffers[" + std::to_string(n_buffers++) + "]");
  }
  for (size_t k = 0; k < sig.scalar_slots.size(); ++k) {
    const Var& v = sig.scalar_slots[k];
    std::string t = type_of(v->dtype);
    params.push_back(t + " " + define(v.get(), v->name));
    std::string slot = "scalars[" + std::to_string(k) + "]";
    // Float slots hold the bits of a double.
    args.push_back(v->dtype.is_float() ? "(" + t + ")tsch_slot_as_double(" + slot + ")" : "(" + t + ")" + slot);
  }
  bool any_float_slot = false;
  for (const auto& v : sig.scalar_slots) any_float_slot |= v->dtype.is_float();
  if (any_float_slot) {
    helpers_.emplace(
        "tsch_slot_as_double",
        "static inline double tsch_slot_as_double(int64_t bits) { double d; memcpy(&d, &bits, sizeof d); return d; }");
  }
  std::string joined;
  for (size_t i = 0; i < params.size(); ++i) joined += (i ? ", " : "") + params[i];
  // tsch_ names are the generator's own (check_symbol_names refuses them as symbols), so the
  // implementation cannot collide with another function's entry point (f and f_compute).
  open_scope("static int32_t tsch_compute_" + name + "(" + (joined.empty() ? "void" : joined) + ")");
  stmt(interrupt_checks_ ? chunk_for_interrupts(f->body) : f->body);
  line("return 0;");
  close_scope();
  line("");
  std::string call;
  for (size_t i = 0; i < args.size(); ++i) call += (i ? ", " : "") + args[i];
  // A C keyword (a function named `double`) cannot name a C function: the entry point takes
  // another name and exports the symbol through an assembler label.
  std::string entry = is_c_keyword(name) ? "tsch_entry_" + name : name;
  if (entry != name) line("int32_t " + entry + "(void** buffers, int64_t* scalars) __asm__(\"" + name + "\");");
  open_scope("int32_t " + entry + "(void** buffers, int64_t* scalars)");
  line("(void)buffers;");
  line("(void)scalars;");
  line("return tsch_compute_" + name + "(" + call + ");");
  close_scope();
  line("");
  functions_ += out_.str();
  return sig;
}

void CodeGenCHost::emit_allocate(const AllocateNode& n) {
  const Buffer& buf = n.buffer;
  std::string t = memory_type_of(buf->dtype);
  int64_t elem_bytes = buf->dtype.is_bool() ? 1 : buf->dtype.bits / 8;
  int64_t count = 1;
  bool constant = true, overflow = false;
  for (const auto& d : buf->shape) {
    int64_t c;
    if (as_const_int(d, &c))
      overflow |= c < 0 || __builtin_mul_overflow(count, c, &count);
    else
      constant = false;
  }
  int64_t bytes = 0;
  overflow |= __builtin_mul_overflow(count, elem_bytes, &bytes);
  line("{");
  ++indent_;
  std::string name = define(buf->data.get(), buf->name);
  if (constant && !overflow && bytes <= kMaxStackBytes) {
    line(t + " " + name + "[" + std::to_string(std::max<int64_t>(count, 1)) + "] __attribute__((aligned(64)));");
    if (poison_allocations_) line("memset(" + name + ", 0xFF, sizeof " + name + ");");
    stmt(n.body);
  } else {
    // The byte count, checked for overflow at run time: an overflowing size fails as out of
    // memory instead of wrapping to a small buffer the kernel then overruns.
    std::string size = fresh(name + "_bytes");
    std::string bad = fresh(name + "_overflow");
    line("int64_t " + size + " = " + std::to_string(elem_bytes) + ";");
    line("bool " + bad + " = false;");
    for (const auto& d : buf->shape)
      line(bad + " |= __builtin_mul_overflow(" + size + ", (int64_t)" + expr(d) + ", &" + size + ");");
    use_workspace_helpers();
    line(t + "* restrict " + name + " = " + bad + " || " + size + " < 0 ? NULL : (" + t + "*)tsch_workspace_take(" +
         size + ");");
    open_scope("if (" + name + " == NULL)");
    return_status(runtime::kStatusOutOfMemory);
    close_scope();
    if (poison_allocations_) line("memset(" + name + ", 0xFF, (size_t)" + size + ");");
    live_heap_.push_back(name);
    stmt(n.body);
    live_heap_.pop_back();
    line("tsch_workspace_give_back(" + name + ");");
  }
  forget(buf->data.get());
  --indent_;
  line("}");
}

namespace {

// `text` as a C string literal (every byte but letters, digits and '_' octal-escaped).
std::string c_literal(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && (std::isalnum(u) || c == '_')) {
      out += c;
    } else {
      char esc[5];
      std::snprintf(esc, sizeof esc, "\\%03o", u);
      out += esc;
    }
  }
  return out + "\"";
}

}  // namespace

// Heap buffers come from the runtime's workspace once the loader bound it (always, when tsch
// loads the library); malloc until then.
void CodeGenCHost::use_workspace_helpers() {
  helpers_.emplace("tsch_workspace",
                   "static void* (*tsch_workspace_alloc_fn)(int64_t) = NULL;\n"
                   "static void (*tsch_workspace_free_fn)(void*) = NULL;\n"
                   "void " +
                       std::string(kBindWorkspace) +
                       "(void* (*take)(int64_t), void (*give_back)(void*)) {\n"
                       "  tsch_workspace_alloc_fn = take;\n"
                       "  tsch_workspace_free_fn = give_back;\n"
                       "}\n"
                       "static void* tsch_workspace_take(int64_t n) {\n"
                       "  return tsch_workspace_alloc_fn ? tsch_workspace_alloc_fn(n) : malloc((size_t)n);\n"
                       "}\n"
                       "static void tsch_workspace_give_back(void* p) {\n"
                       "  if (tsch_workspace_free_fn) tsch_workspace_free_fn(p); else free(p);\n"
                       "}");
}

// T.call_packed(name, scalars and strings...) as a statement: through the runtime's
// tsch_call_packed, which the loader binds; a failure returns its status, freeing what the
// function holds (the runtime then raises the function's error).
bool CodeGenCHost::emit_call_stmt(const CallNode& n) {
  if (n.op != "call_packed") return false;
  auto* name = n.args.empty() ? nullptr : as<StringImmNode>(n.args[0]);
  if (!name) throw BuildError("T.call_packed: the first argument must be the function's name as a string");
  helpers_.emplace(
      "tsch_call_packed_fn",
      "typedef struct { int32_t type_code; int32_t reserved; int64_t value; } TschPackedArg;\n"
      "static int32_t (*tsch_call_packed_fn)(const char*, const TschPackedArg*, int32_t, int64_t*) = NULL;\n"
      "void " +
          std::string(kBindCallPacked) +
          "(int32_t (*f)(const char*, const TschPackedArg*, int32_t, int64_t*)) { tsch_call_packed_fn = f; }");
  std::vector<std::string> items;
  for (size_t i = 1; i < n.args.size(); ++i) {
    const PrimExpr& a = n.args[i];
    if (auto* s = as<StringImmNode>(a)) {
      items.push_back("{2, 0, (int64_t)(intptr_t)" + c_literal(s->value) + "}");
    } else if (a->dtype.lanes == 1 && (a->dtype.is_int() || a->dtype.is_uint() || a->dtype.is_bool())) {
      items.push_back("{0, 0, (int64_t)" + expr(a) + "}");
    } else if (a->dtype.lanes == 1 && a->dtype.is_float()) {
      items.push_back("{1, 0, ((union { double d; int64_t i; }){.d = (double)" + expr(a) + "}).i}");
    } else {
      throw BuildError("not supported yet: a " + a->dtype.to_string() +
                       " argument to T.call_packed in C code generation");
    }
  }
  std::string args = fresh("packed_args"), result = fresh("packed_result"), status = fresh("packed_status");
  line("{");
  ++indent_;
  std::string joined;
  for (size_t i = 0; i < items.size(); ++i) joined += (i ? ", " : "") + items[i];
  line("TschPackedArg " + args + "[" + std::to_string(std::max<size_t>(items.size(), 1)) + "] = {" +
       (joined.empty() ? "{0, 0, 0}" : joined) + "};");
  line("int64_t " + result + " = 0;");
  line("int32_t " + status + " = tsch_call_packed_fn == NULL ? " + std::to_string(runtime::kStatusPackedCallFailed) +
       " : tsch_call_packed_fn(" + c_literal(name->value) + ", " + args + ", " + std::to_string(items.size()) + ", &" +
       result + ");");
  line("(void)" + result + ";");
  open_scope("if (" + status + " != 0)");
  for (auto it = live_heap_.rbegin(); it != live_heap_.rend(); ++it) line("tsch_workspace_give_back(" + *it + ");");
  line("return " + status + ";");
  close_scope();
  --indent_;
  line("}");
  return true;
}

void CodeGenCHost::emit_parallel(const ForNode& n) { serial_loop(n, "/* parallel in TensorIR: runs serially in C */"); }

void CodeGenCHost::return_status(int32_t status) {
  for (auto it = live_heap_.rbegin(); it != live_heap_.rend(); ++it) line("tsch_workspace_give_back(" + *it + ");");
  line("return " + std::to_string(status) + ";");
}

// As the LLVM generator: only loops that hold long-running work poll, so innermost loops
// stay free of the volatile load and vectorize.
void CodeGenCHost::at_loop_head(const Stmt& body) {
  if (!interrupt_checks_ || !holds_heavy_loop(body)) return;
  helpers_.emplace("tsch_interrupt_flag", "static volatile int32_t* tsch_interrupt_flag = NULL;\nvoid " +
                                              std::string(kBindInterruptFlag) +
                                              "(volatile int32_t* flag) { tsch_interrupt_flag = flag; }");
  open_scope("if (tsch_interrupt_flag != NULL && *tsch_interrupt_flag != 0)");
  return_status(runtime::kStatusInterrupted);
  close_scope();
}

}  // namespace tsch::codegen
