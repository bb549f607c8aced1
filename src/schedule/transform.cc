#include "schedule/transform.h"

#include <unordered_map>

#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/analysis.h"

namespace tsch::schedule {

using namespace ir;

Stmt make_loop_nest(ScheduleState& s, const std::vector<LoopSpec>& loops, Stmt body, std::vector<LoopSid>* sids) {
  std::vector<LoopSid> fresh;
  for (size_t k = 0; k < loops.size(); ++k) fresh.push_back(LoopSid(s.fresh_sid()));
  for (size_t k = loops.size(); k-- > 0;) {
    const LoopSpec& l = loops[k];
    PrimExpr min = l.min ? l.min : make_int(0, l.var->dtype);
    auto f = std::make_shared<ForNode>(l.var, min, l.extent, ForKind::Serial, body);
    f->sid = fresh[k].value;
    body = f;
  }
  if (sids) *sids = fresh;
  return body;
}

Stmt wrap_in_loops(Stmt body, const std::vector<const ForNode*>& loops) {
  for (size_t k = loops.size(); k-- > 0;) {
    auto copy = std::make_shared<ForNode>(*loops[k]);
    copy->body = body;
    body = copy;
  }
  return body;
}

PeeledBody peel_decls(const Stmt& body) {
  PeeledBody out;
  out.inner = body;
  while (true) {
    if (auto* c = as<AllocateConstNode>(out.inner)) {
      out.wrappers.push_back(out.inner);
      out.inner = c->body;
    } else if (auto* d = as<DeclBufferNode>(out.inner)) {
      out.wrappers.push_back(out.inner);
      out.inner = d->body;
    } else {
      return out;
    }
  }
}

Stmt rewrap(const std::vector<Stmt>& wrappers, Stmt body) {
  for (size_t k = wrappers.size(); k-- > 0;) {
    if (auto* c = as<AllocateConstNode>(wrappers[k])) {
      auto copy = std::make_shared<AllocateConstNode>(*c);
      copy->body = body;
      body = copy;
    } else if (auto* d = as<DeclBufferNode>(wrappers[k])) {
      body = std::make_shared<DeclBufferNode>(d->buffer, body);
    }
  }
  return body;
}

std::vector<Stmt> body_items(const Stmt& body) {
  Stmt inner = peel_decls(body).inner;
  if (auto* seq = as<SeqStmtNode>(inner)) return seq->seq;
  return {inner};
}

Stmt insert_into_body(const Stmt& body, size_t pos, const Stmt& stmt) {
  PeeledBody peeled = peel_decls(body);
  std::vector<Stmt> items = body_items(peeled.inner);
  items.insert(items.begin() + static_cast<long>(std::min(pos, items.size())), stmt);
  return rewrap(peeled.wrappers, make_seq(items));
}

void rebuild_scope(ScheduleState& s, BlockSid scope, const std::function<void(BlockNode&)>& edit) {
  auto copy = std::make_shared<BlockNode>(s.block_at(scope));
  edit(*copy);
  const BlockRealizeNode* r = s.info(scope)->realize;
  s.replace(scope, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, copy));
}

void remove_from_scope(ScheduleState& s, BlockSid block, const Buffer& drop) {
  // The statement to drop (the block with the loops holding nothing else) and its holder.
  bool top_level = false;
  const StmtNode* subtree = block_subtree(s, block, top_level);
  BlockSid scope = s.scope_block(block);
  StmtSid top = block;
  while (s.info(top)->node != subtree && s.info(top)->realize != subtree) top = s.info(top)->parent;
  StmtSid holder = s.info(top)->parent;
  const StmtNode* holder_node = s.info(holder)->node;
  bool holder_is_loop = holder_node->kind == StmtKind::For;
  const Stmt& body = holder_is_loop ? static_cast<const ForNode*>(holder_node)->body
                                    : static_cast<const BlockNode*>(holder_node)->body;
  // The subtree is an item of the holder's sequence, under the AllocateConst / DeclBuffer
  // statements leading a scope's body (TVM's LeafBlockRemovalPlan peels them likewise).
  PeeledBody peeled = peel_decls(body);
  std::vector<Stmt> kept;
  if (auto* seq = as<SeqStmtNode>(peeled.inner)) {
    for (const auto& st : seq->seq) {
      if (st.get() != subtree) kept.push_back(st);
    }
  }
  Stmt new_body = make_seq(kept);
  if (!new_body) new_body = std::make_shared<EvaluateNode>(make_int(0));
  new_body = rewrap(peeled.wrappers, new_body);
  if (holder_is_loop) {
    auto copy = std::make_shared<ForNode>(*static_cast<const ForNode*>(holder_node));
    copy->body = new_body;
    s.replace(holder, copy);
    if (!drop) return;
  }
  // The scope loses the dropped buffer's allocation (and, when it held the subtree, the subtree).
  auto scope_copy = std::make_shared<BlockNode>(s.block_at(scope));
  if (!holder_is_loop) scope_copy->body = new_body;
  std::vector<Buffer> allocs;
  for (const auto& b : scope_copy->alloc_buffers) {
    if (b != drop) allocs.push_back(b);
  }
  scope_copy->alloc_buffers = allocs;
  const BlockRealizeNode* r = s.info(scope)->realize;
  s.replace(scope, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, scope_copy));
}

namespace {

class BufferReplacer : public IRMutator {
 public:
  BufferReplacer(const Buffer& from, const Buffer& to, const BufferReindex* reindex)
      : from_(from), to_(to), reindex_(reindex) {}

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr out = IRMutator::mutate_BufferLoad(n, self);
    if (auto* load = as<BufferLoadNode>(out); load && load->buffer == from_) {
      return std::make_shared<BufferLoadNode>(load->dtype, to_, indices(load->indices));
    }
    return out;
  }
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BufferStore(n, self);
    if (auto* store = as<BufferStoreNode>(out); store && store->buffer == from_) {
      return std::make_shared<BufferStoreNode>(to_, store->value, indices(store->indices));
    }
    return out;
  }
  Stmt mutate_Block(const BlockNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_Block(n, self);
    auto* block = as<BlockNode>(out);
    bool touched = false;
    auto copy = std::make_shared<BlockNode>(*block);
    auto move = [&](BufferRegion& r) {
      if (r.buffer != from_) return;
      r = BufferRegion{to_, reindex_ ? reindex_->region(r.region) : r.region};
      touched = true;
    };
    for (auto* regions : {&copy->reads, &copy->writes}) {
      for (auto& r : *regions) move(r);
    }
    for (auto& m : copy->match_buffers) move(m.source);
    for (auto& b : copy->alloc_buffers) {
      if (b == from_) {
        b = to_;
        touched = true;
      }
    }
    return touched ? Stmt(copy) : out;
  }

 private:
  std::vector<PrimExpr> indices(const std::vector<PrimExpr>& in) const { return reindex_ ? reindex_->indices(in) : in; }
  const Buffer& from_;
  const Buffer& to_;
  const BufferReindex* reindex_;
};

Buffer changed(const Buffer& b, const BufferChange& change, size_t source_rank) {
  if (change.axis_separators && !change.scope && !change.dtype) {
    auto out = std::make_shared<BufferNode>(*b);
    out->axis_separators = b->shape.size() == source_rank ? *change.axis_separators
                                                          : std::vector<int64_t>(change.axis_separators->size(), 0);
    return out;
  }
  Buffer out = buffer_with(b, b->name, b->shape, change.scope ? *change.scope : b->scope);
  if (change.dtype) std::const_pointer_cast<BufferNode>(out)->dtype = *change.dtype;
  return out;
}

// Replaces the buffer (and the buffers matched to parts of it) by changed copies; with
// another type, a cast at every store and load.
class BufferChanger : public IRMutator {
 public:
  BufferChanger(const Buffer& from, const BufferChange& change) : change_(change) {
    replaced_[from.get()] = changed(from, change, from->shape.size());
  }
  Buffer replacement(const Buffer& from) const { return *find(from); }

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr out = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(out);
    if (const Buffer* to = find(load->buffer)) {
      if (!change_.dtype) return std::make_shared<BufferLoadNode>(load->dtype, *to, load->indices);
      DataType loaded = change_.dtype->with_lanes(load->dtype.lanes);
      return std::make_shared<CastNode>(load->dtype, std::make_shared<BufferLoadNode>(loaded, *to, load->indices));
    }
    return out;
  }

  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BufferStore(n, self);
    auto* store = as<BufferStoreNode>(out);
    if (const Buffer* to = find(store->buffer)) {
      if (!change_.dtype) return std::make_shared<BufferStoreNode>(*to, store->value, store->indices);
      DataType stored = change_.dtype->with_lanes(store->value->dtype.lanes);
      return std::make_shared<BufferStoreNode>(*to, std::make_shared<CastNode>(stored, store->value), store->indices);
    }
    return out;
  }

  Stmt mutate_Block(const BlockNode& n, const Stmt& self) override {
    // A block's match buffers first: the matched buffers change type before its body is seen.
    for (const auto& m : n.match_buffers) {
      if (find(m.source.buffer)) replaced_[m.buffer.get()] = changed(m.buffer, change_, m.source.buffer->shape.size());
    }
    Stmt out = IRMutator::mutate_Block(n, self);
    auto* block = as<BlockNode>(out);
    auto copy = std::make_shared<BlockNode>(*block);
    bool touched = false;
    auto move = [&](BufferRegion& r) {
      if (const Buffer* to = find(r.buffer)) {
        r.buffer = *to;
        touched = true;
      }
    };
    for (auto* regions : {&copy->reads, &copy->writes}) {
      for (auto& r : *regions) move(r);
    }
    for (auto& m : copy->match_buffers) {
      move(m.source);
      if (const Buffer* to = find(m.buffer)) {
        m.buffer = *to;
        touched = true;
      }
    }
    for (auto& b : copy->alloc_buffers) {
      if (const Buffer* to = find(b)) {
        b = *to;
        touched = true;
      }
    }
    if (touched) return copy;
    return out;
  }

 private:
  const Buffer* find(const Buffer& b) const {
    auto it = replaced_.find(b.get());
    return it == replaced_.end() ? nullptr : &it->second;
  }
  const BufferChange& change_;
  std::unordered_map<const BufferNode*, Buffer> replaced_;
};

}  // namespace

Stmt replace_buffer(const Stmt& s, const Buffer& from, const Buffer& to, const BufferReindex* reindex) {
  BufferReplacer r(from, to, reindex);
  return r.mutate(s);
}

Stmt change_buffer(const Stmt& s, const Buffer& from, const BufferChange& change, Buffer* replacement) {
  BufferChanger changer(from, change);
  if (replacement) *replacement = changer.replacement(from);
  return changer.mutate(s);
}

}  // namespace tsch::schedule
