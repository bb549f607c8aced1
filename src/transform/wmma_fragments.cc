#include "transform/wmma_fragments.h"

#include <vector>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tsch::transform {

using namespace ir;

int64_t WmmaFragment::rows() const { return scope == "wmma.matrix_b" ? k : m; }
int64_t WmmaFragment::cols() const { return scope == "wmma.matrix_a" ? k : n; }
int64_t WmmaFragment::count() const {
  int64_t size = 1;
  for (const auto& d : buffer->shape) {
    int64_t c = 0;
    as_const_int(d, &c);
    size *= c;
  }
  return size / (rows() * cols());
}

bool is_wmma_scope(const std::string& scope) {
  return scope == "wmma.matrix_a" || scope == "wmma.matrix_b" || scope == "wmma.accumulator";
}

bool is_wmma_call(const CallNode& c) {
  return c.op == "tvm_fill_fragment" || c.op == "tvm_load_matrix_sync" || c.op == "tvm_store_matrix_sync" ||
         c.op == "tvm_mma_sync" || c.op == "tvm_bmma_sync";
}

namespace {

class Inference {
 public:
  explicit Inference(const Stmt& kernel) {
    for_each_stmt(kernel, [&](const Stmt& s) {
      auto* a = as<AllocateNode>(s);
      if (!a || !is_wmma_scope(a->buffer->scope)) return;
      check_allocation(*a->buffer);
      WmmaFragment f;
      f.buffer = a->buffer.get();
      f.scope = a->buffer->scope;
      frags_[a->buffer->data.get()] = f;
    });
    // Element-wise accesses first: they are the likely mistake (a block left untensorized).
    auto elementwise = [&](const Buffer& b, const char* what) {
      TSCH_USER_ASSERT(!frags_.count(b->data.get()), ValueError)
          << "the " << b->scope << " buffer " << b->name << " is " << what
          << " element by element; a tensor-core fragment is reached only "
          << "through T.tvm_load_matrix_sync, T.tvm_store_matrix_sync, T.tvm_fill_fragment and T.tvm_mma_sync "
             "(tensorize the blocks that "
          << "access it with the wmma intrinsics of tvm.tir.tensor_intrin.cuda)";
    };
    for_each_stmt(kernel, [&](const Stmt& s) {
      if (auto* st = as<BufferStoreNode>(s)) elementwise(st->buffer, "written");
    });
    std::vector<const CallNode*> mmas;
    for_each_expr(kernel, [&](const PrimExpr& e) {
      if (auto* l = as<BufferLoadNode>(e)) elementwise(l->buffer, "read");
      auto* c = as<CallNode>(e);
      if (!c || !is_wmma_call(*c)) return;
      TSCH_USER_ASSERT(c->op != "tvm_bmma_sync", NotImplementedError)
          << "not supported yet: T.tvm_bmma_sync (1-bit tensor-core products)";
      if (c->op == "tvm_mma_sync") {
        TSCH_USER_ASSERT(c->args.size() == 8, ValueError)
            << "T.tvm_mma_sync takes 8 arguments (d, d_index, a, a_index, b, b_index, c, c_index), got "
            << c->args.size();
        mmas.push_back(c);
        return;
      }
      shaped_call(*c);
    });
    for (const CallNode* c : mmas) mma(*c);
    for (auto& [var, f] : frags_) {
      TSCH_USER_ASSERT(f.m > 0, ValueError)
          << "the " << f.scope << " buffer " << f.buffer->name
          << " is never loaded, filled or stored, so its fragment shape (m, n, k) is unknown";
      TSCH_USER_ASSERT(f.scope == "wmma.accumulator" || !f.layout.empty(), ValueError)
          << "the " << f.scope << " buffer " << f.buffer->name
          << " is never loaded with T.tvm_load_matrix_sync, so its layout is unknown";
      int64_t size = 1;
      for (const auto& d : f.buffer->shape) {
        int64_t c = 0;
        as_const_int(d, &c);
        size *= c;
      }
      TSCH_USER_ASSERT(size % (f.rows() * f.cols()) == 0, ValueError)
          << "the " << f.scope << " buffer " << f.buffer->name << " holds " << size
          << " elements, not a whole number of " << f.rows() << "x" << f.cols() << " fragments";
    }
  }

  std::unordered_map<const VarNode*, WmmaFragment> take() { return std::move(frags_); }

 private:
  static void check_allocation(const BufferNode& b) {
    for (const auto& d : b.shape) {
      int64_t c = 0;
      TSCH_USER_ASSERT(as_const_int(d, &c), NotImplementedError)
          << "not supported yet: the " << b.scope << " buffer " << b.name << " of a symbolic size";
    }
    DataType t = b.dtype;
    bool half = t.is_float() && t.bits == 16 && t.lanes == 1;
    bool byte = (t.is_int() || t.is_uint()) && t.bits == 8 && t.lanes == 1;
    if (b.scope == "wmma.accumulator") {
      bool ok = half || (t.is_float() && t.bits == 32 && t.lanes == 1) || (t.is_int() && t.bits == 32 && t.lanes == 1);
      TSCH_USER_ASSERT(ok, NotImplementedError)
          << "not supported yet: a wmma.accumulator buffer of " << t.to_string() << " (" << b.name
          << "); tensor-core accumulators are float16, float32 or int32";
    } else {
      TSCH_USER_ASSERT(half || byte, NotImplementedError)
          << "not supported yet: a " << b.scope << " buffer of " << t.to_string() << " (" << b.name
          << "); tensor-core operands are float16, int8 or uint8";
    }
  }

  WmmaFragment& fragment_of(const PrimExpr& data, const CallNode& c) {
    auto* v = as<VarNode>(data);
    auto it = v ? frags_.find(v) : frags_.end();
    TSCH_USER_ASSERT(it != frags_.end(), ValueError)
        << "T." << c.op << ": " << script(data)
        << " is not a buffer allocated in a wmma.* scope in this kernel (pass the fragment buffer's .data)";
    return it->second;
  }

  void set_shape(WmmaFragment& f, int64_t m, int64_t n, int64_t k, const std::string& what) {
    if (f.m == 0) {
      bool known = (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) || (m == 8 && n == 32 && k == 16);
      TSCH_USER_ASSERT(known, NotImplementedError)
          << "not supported yet: the tensor-core shape m" << m << "n" << n << "k" << k << " (" << what
          << "); tsch runs m16n16k16, m32n8k16 and m8n32k16";
      f.m = m, f.n = n, f.k = k;
      return;
    }
    TSCH_USER_ASSERT(f.m == m && f.n == n && f.k == k, ValueError)
        << "the fragment buffer " << f.buffer->name << " is used with the shapes m" << f.m << "n" << f.n << "k" << f.k
        << " and m" << m << "n" << n << "k" << k << " (" << what << "); one buffer holds fragments of one shape";
  }

  void shaped_call(const CallNode& c) {
    size_t arity = c.op == "tvm_fill_fragment" ? 6 : 8;
    TSCH_USER_ASSERT(c.args.size() == arity, ValueError)
        << "T." << c.op << " takes " << arity << " arguments, got " << c.args.size();
    WmmaFragment& f = fragment_of(c.args[0], c);
    int64_t mnk[3];
    for (int i = 0; i < 3; ++i) {
      TSCH_USER_ASSERT(as_const_int(c.args[1 + i], &mnk[i]), ValueError)
          << "T." << c.op << ": the fragment shape (m, n, k) must be constants, got " << script(c.args[1 + i]);
    }
    set_shape(f, mnk[0], mnk[1], mnk[2], "T." + c.op + " of " + f.buffer->name);
    if (c.op == "tvm_fill_fragment") {
      TSCH_USER_ASSERT(f.scope == "wmma.accumulator", ValueError)
          << "T.tvm_fill_fragment fills an accumulator; " << f.buffer->name << " is " << f.scope;
      return;
    }
    auto* layout = as<StringImmNode>(c.args[7]);
    TSCH_USER_ASSERT(layout && (layout->value == "row_major" || layout->value == "col_major"), ValueError)
        << "T." << c.op << ": the layout is \"row_major\" or \"col_major\", got " << script(c.args[7]);
    auto* ptr = as<CallNode>(c.args[5]);
    TSCH_USER_ASSERT(ptr && ptr->op == "tvm_access_ptr" && ptr->args.size() == 5, ValueError)
        << "T." << c.op << ": the memory operand is a buffer's access_ptr (T.tvm_access_ptr), got "
        << script(c.args[5]);
    if (c.op == "tvm_store_matrix_sync") {
      TSCH_USER_ASSERT(f.scope == "wmma.accumulator", ValueError)
          << "T.tvm_store_matrix_sync stores an accumulator; " << f.buffer->name << " is " << f.scope;
      return;
    }
    if (f.scope == "wmma.accumulator") return;  // the layout is the load's, not the fragment's
    TSCH_USER_ASSERT(f.layout.empty() || f.layout == layout->value, ValueError)
        << "the fragment buffer " << f.buffer->name << " is loaded both " << f.layout << " and " << layout->value
        << "; one buffer has one layout";
    f.layout = layout->value;
  }

  void mma(const CallNode& c) {
    static const char* roles[] = {"wmma.accumulator", "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator"};
    WmmaFragment* ops[4];
    for (int i = 0; i < 4; ++i) {
      ops[i] = &fragment_of(c.args[2 * i], c);
      TSCH_USER_ASSERT(ops[i]->scope == roles[i], ValueError)
          << "T.tvm_mma_sync: operand " << i + 1 << " (" << ops[i]->buffer->name << ") is " << ops[i]->scope
          << "; it must be " << roles[i];
    }
    WmmaFragment* known = nullptr;
    for (auto* f : ops)
      if (f->m) known = f;
    TSCH_USER_ASSERT(known, ValueError)
        << "T.tvm_mma_sync of fragments never loaded, filled or stored: their shape is unknown";
    for (auto* f : ops) set_shape(*f, known->m, known->n, known->k, "T.tvm_mma_sync");
    DataType in = ops[1]->buffer->dtype, acc = ops[0]->buffer->dtype;
    TSCH_USER_ASSERT(in == ops[2]->buffer->dtype, ValueError)
        << "T.tvm_mma_sync multiplies " << in.to_string() << " by " << ops[2]->buffer->dtype.to_string()
        << "; a and b must have one dtype";
    TSCH_USER_ASSERT(acc == ops[3]->buffer->dtype, ValueError)
        << "T.tvm_mma_sync: d is " << acc.to_string() << " but c is " << ops[3]->buffer->dtype.to_string();
    TSCH_USER_ASSERT(in.is_float() == acc.is_float(), ValueError)
        << "T.tvm_mma_sync: " << in.to_string() << " operands accumulate into "
        << (in.is_float() ? "float16 or float32" : "int32") << ", not " << acc.to_string();
  }

  std::unordered_map<const VarNode*, WmmaFragment> frags_;
};

}  // namespace

std::unordered_map<const VarNode*, WmmaFragment> infer_wmma_fragments(const Stmt& kernel) {
  return Inference(kernel).take();
}

}  // namespace tsch::transform
