#include "ir/structural_hash.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "ir/functor.h"

namespace tsch::ir {
namespace {

class Hasher {
 public:
  // The state through a finalizer (MurmurHash3's fmix64), so every input bit reaches every
  // output bit (the last values mixed would otherwise only touch the low bits).
  uint64_t value() const {
    uint64_t k = h_;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
  }
  void mix(uint64_t v) { h_ ^= v + 0x9e3779b97f4a7c15ULL + (h_ << 6) + (h_ >> 2); }
  void mix(const std::string& s) { mix(std::hash<std::string>()(s)); }
  void mix(DataType t) {
    mix((static_cast<uint64_t>(t.code) << 40) ^ (static_cast<uint64_t>(t.bits) << 20) ^ static_cast<uint64_t>(t.lanes));
  }

  void expr(const PrimExpr& root) {
    if (!root) return mix(uint64_t{0x51});
    for_each_expr(root, [this](const PrimExpr& e) { node(e); });
  }
  void stmt(const Stmt& root) {
    if (!root) return mix(uint64_t{0x52});
    // The statements in pre-order, then every expression they hold (both orders are fixed by
    // the tree, so equal trees give equal sequences).
    for_each_stmt(root, [this](const Stmt& s) { node(s); });
    for_each_expr(root, [this](const PrimExpr& e) { node(e); });
  }
  void buffer(const Buffer& b) {
    mix(b->dtype);
    mix(b->scope);
    mix(static_cast<uint64_t>(b->shape.size()));
    for (const auto& d : b->shape) expr(d);
    mix(static_cast<uint64_t>(b->strides.size()));
    mix(static_cast<uint64_t>(b->offset_factor));
    mix(static_cast<uint64_t>(b->align));
    mix(static_cast<uint64_t>(b->axis_separators.size()));
    for (int64_t a : b->axis_separators) mix(static_cast<uint64_t>(a));
  }
  void function(const PrimFunc& f) {
    mix(static_cast<uint64_t>(f->params.size()));
    for (const auto& p : f->params) {
      mix(p->dtype);
      if (p->type_annotation) {
        mix(p->type_annotation->element_type);
        mix(p->type_annotation->storage_scope);
      }
      if (Buffer b = f->buffer_of(p)) buffer(b);
    }
    stmt(f->body);
  }

 private:
  void node(const PrimExpr& e) {
    mix(static_cast<uint64_t>(e->kind) + 0x100);
    mix(e->dtype);
    if (auto* i = as<IntImmNode>(e)) mix(static_cast<uint64_t>(i->value));
    if (auto* f = as<FloatImmNode>(e)) mix(std::hash<double>()(f->value));
    if (auto* s = as<StringImmNode>(e)) mix(s->value);
    if (auto* c = as<CallNode>(e)) mix(c->op);
    if (auto* l = as<BufferLoadNode>(e)) mix(static_cast<uint64_t>(l->indices.size()));
  }
  void node(const Stmt& s) {
    mix(static_cast<uint64_t>(s->kind) + 0x200);
    if (auto* f = as<ForNode>(s)) {
      mix(static_cast<uint64_t>(f->for_kind));
      mix(f->thread_tag);
      mix(static_cast<uint64_t>(f->launch_thread));
    } else if (auto* b = as<BlockNode>(s)) {
      mix(static_cast<uint64_t>(b->iter_vars.size()));
      for (const auto& iv : b->iter_vars) mix(static_cast<uint64_t>(iv.type));
      mix(static_cast<uint64_t>(b->reads.size()));
      mix(static_cast<uint64_t>(b->writes.size()));
      mix(static_cast<uint64_t>(b->alloc_buffers.size()));
      for (const auto& buf : b->alloc_buffers) buffer(buf);
      mix(uint64_t{b->init ? 1u : 0u});
    } else if (auto* st = as<BufferStoreNode>(s)) {
      mix(st->buffer->dtype);
      mix(static_cast<uint64_t>(st->indices.size()));
    } else if (auto* a = as<AllocateNode>(s)) {
      buffer(a->buffer);
    } else if (auto* c = as<AllocateConstNode>(s)) {
      mix(c->dtype);
      for (double v : c->float_data) mix(std::hash<double>()(v));
      for (int64_t v : c->int_data) mix(static_cast<uint64_t>(v));
    } else if (auto* seq = as<SeqStmtNode>(s)) {
      mix(static_cast<uint64_t>(seq->seq.size()));
    } else if (auto* attr = as<AttrStmtNode>(s)) {
      mix(attr->attr_key);
    }
  }
  uint64_t h_ = 0x6a09e667f3bcc908ULL;
};

}  // namespace

uint64_t structural_hash(const IRModule& m) {
  // Functions by name (equality matches them by name), whatever their order.
  std::vector<std::pair<std::string, BaseFunc>> functions(m->functions.begin(), m->functions.end());
  std::sort(functions.begin(), functions.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Hasher h;
  h.mix(static_cast<uint64_t>(functions.size()));
  for (const auto& [name, f] : functions) {
    h.mix(name);
    h.mix(static_cast<uint64_t>(f->func_kind()));
    if (PrimFunc pf = as_prim_func(f)) h.function(pf);
  }
  return h.value();
}

uint64_t structural_hash(const PrimFunc& f) {
  Hasher h;
  h.function(f);
  return h.value();
}

uint64_t structural_hash(const Stmt& s) {
  Hasher h;
  h.stmt(s);
  return h.value();
}

uint64_t structural_hash(const PrimExpr& e) {
  Hasher h;
  h.expr(e);
  return h.value();
}

}  // namespace tsch::ir
