// TVM's ScheduleState.replace, the copy-on-write replace scripts call (ScheduleStateNode::
// Replace): a node on the way from the replaced loop or block up to the module is written in
// place when nothing else holds it, else copied together with everything above it, so that
// whoever still holds the old IR sees it unchanged. Holding is what it is in TVM: the number
// of references to the node (shared_ptr use counts; script values hold real references).
// Primitives use ScheduleState::replace, which always copies the path.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "schedule/state.h"
#include "support/error.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// The statements directly under `node`, with how many references each has.
template <typename F>
void for_each_child(const StmtNode* node, F&& f) {
  auto visit = [&](const auto& child) {
    if (child) f(static_cast<const StmtNode*>(child.get()), child.use_count());
  };
  switch (node->kind) {
    case StmtKind::For:
      return visit(static_cast<const ForNode*>(node)->body);
    case StmtKind::Block: {
      auto* b = static_cast<const BlockNode*>(node);
      visit(b->init);
      return visit(b->body);
    }
    case StmtKind::BlockRealize:
      return visit(static_cast<const BlockRealizeNode*>(node)->block);
    case StmtKind::SeqStmt:
      for (const Stmt& s : static_cast<const SeqStmtNode*>(node)->seq) visit(s);
      return;
    case StmtKind::IfThenElse: {
      auto* n = static_cast<const IfThenElseNode*>(node);
      visit(n->then_case);
      return visit(n->else_case);
    }
    case StmtKind::LetStmt:
      return visit(static_cast<const LetStmtNode*>(node)->body);
    case StmtKind::Allocate:
      return visit(static_cast<const AllocateNode*>(node)->body);
    case StmtKind::DeclBuffer:
      return visit(static_cast<const DeclBufferNode*>(node)->body);
    case StmtKind::AllocateConst:
      return visit(static_cast<const AllocateConstNode*>(node)->body);
    case StmtKind::BufferStore:
    case StmtKind::Evaluate:
    case StmtKind::AttrStmt:
      return;
  }
}

struct Link {
  const StmtNode* node;
  long use_count;
};

// The statements from `node` down to `target`, each with its reference count.
bool find_chain(const StmtNode* node, long use_count, const StmtNode* target, std::vector<Link>& chain) {
  chain.push_back({node, use_count});
  if (node == target) return true;
  bool found = false;
  for_each_child(node, [&](const StmtNode* c, long n) {
    if (!found) found = find_chain(c, n, target, chain);
  });
  if (!found) chain.pop_back();
  return found;
}

bool is_sref_node(const StmtNode* n) { return n->kind == StmtKind::For || n->kind == StmtKind::Block; }

template <typename Node>
Node* writable(const Node* n) {
  return const_cast<Node*>(n);  // nodes are created non-const; only unreferenced-elsewhere ones get here
}

// TVM's ChildReplacer: `parent` (a loop or block of the path) with its child `src` replaced by
// `tgt`. With `in_place` the parent is written in place (the result is null) and so is each
// node between them that only its holder references; otherwise the parent is copied.
class ChildReplacer {
 public:
  ChildReplacer(const StmtNode* src, const Stmt& tgt) : src_(src), tgt_(tgt) {}

  Stmt replace(const StmtNode* parent, bool in_place) {
    if (parent->kind == StmtKind::For) {
      auto* f = static_cast<const ForNode*>(parent);
      Stmt body = visit(f->body, in_place);
      if (in_place) {
        writable(f)->body = body;
        return nullptr;
      }
      auto copy = std::make_shared<ForNode>(*f);
      copy->body = body;
      return copy;
    }
    auto* b = static_cast<const BlockNode*>(parent);
    Stmt init = b->init ? visit(b->init, in_place) : nullptr;
    Stmt body = visit(b->body, in_place);
    if (in_place) {
      writable(b)->init = init;
      writable(b)->body = body;
      return nullptr;
    }
    auto copy = std::make_shared<BlockNode>(*b);
    copy->init = init;
    copy->body = body;
    return copy;
  }

 private:
  // `s` with the child replaced; written in place when `in_place` and `s` has one holder
  // (below a node with several holders nothing is written in place: TVM's StmtMutator).
  Stmt visit(const Stmt& s, bool in_place) {
    if (s.get() == src_) return tgt_;
    in_place = in_place && s.use_count() == 1;
    switch (s->kind) {
      case StmtKind::BlockRealize: {
        auto* r = as<BlockRealizeNode>(s);
        if (r->block.get() != src_) return s;
        auto block = std::static_pointer_cast<const BlockNode>(tgt_);
        if (in_place) {
          writable(r)->block = block;
          return s;
        }
        return std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, block);
      }
      case StmtKind::SeqStmt: {
        auto* n = as<SeqStmtNode>(s);
        std::vector<Stmt> seq = n->seq;
        bool changed = false;
        for (Stmt& c : seq) {
          Stmt out = visit(c, in_place);
          changed |= out != c;
          c = out;
        }
        if (!changed) return s;
        if (in_place) {
          writable(n)->seq = std::move(seq);
          return s;
        }
        return std::make_shared<SeqStmtNode>(std::move(seq));
      }
      case StmtKind::IfThenElse: {
        auto* n = as<IfThenElseNode>(s);
        Stmt then_case = visit(n->then_case, in_place);
        Stmt else_case = n->else_case ? visit(n->else_case, in_place) : nullptr;
        if (then_case == n->then_case && else_case == n->else_case) return s;
        if (in_place) {
          writable(n)->then_case = then_case;
          writable(n)->else_case = else_case;
          return s;
        }
        return std::make_shared<IfThenElseNode>(n->condition, then_case, else_case);
      }
      case StmtKind::LetStmt:
        return with_body<LetStmtNode>(s, in_place);
      case StmtKind::Allocate:
        return with_body<AllocateNode>(s, in_place);
      case StmtKind::DeclBuffer:
        return with_body<DeclBufferNode>(s, in_place);
      case StmtKind::AllocateConst:
        return with_body<AllocateConstNode>(s, in_place);
      case StmtKind::BufferStore:
      case StmtKind::For:
      case StmtKind::Block:
      case StmtKind::Evaluate:
      case StmtKind::AttrStmt:
        break;
    }
    return s;  // loops and blocks beside the path, leaves
  }

  template <typename Node>
  Stmt with_body(const Stmt& s, bool in_place) {
    auto* n = as<Node>(s);
    Stmt body = visit(n->body, in_place);
    if (body == n->body) return s;
    if (in_place) {
      writable(n)->body = body;
      return s;
    }
    auto copy = std::make_shared<Node>(*n);
    copy->body = body;
    return copy;
  }

  const StmtNode* src_;
  const Stmt& tgt_;
};

// Gives the loops and blocks of the replacement their sids, as TVM's ReuseCollector /
// SRefTreePruner / SRefUpdater give them srefs: a node of the replaced subtree kept as it is
// keeps its sid; a loop over a loop variable of a replaced loop takes that loop's sid, a block
// that block_sref_reuse maps a replaced block to takes that block's; the rest get sids of
// their own. A sid names one node of the module: a node that would share one is copied.
class SidAssigner : public IRMutator {
 public:
  SidAssigner(const ScheduleState& state, const std::unordered_set<StmtSid>& replaced,
              std::unordered_map<const VarNode*, LoopSid> loop_reuse,
              std::unordered_map<const BlockNode*, BlockSid> block_reuse)
      : state_(state), replaced_(replaced), loop_reuse_(std::move(loop_reuse)), block_reuse_(std::move(block_reuse)) {}

  using IRMutator::mutate;

 protected:
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    return assign(&f, self, take(loop_reuse_, f.loop_var.get()));
  }
  Stmt mutate_Block(const BlockNode& b, const Stmt& self) override { return assign(&b, self, take(block_reuse_, &b)); }

 private:
  // The node's children, mutated (the base methods: the overrides above would assign again).
  Stmt mutate_children_of(const ForNode* f, const Stmt& s) { return IRMutator::mutate_For(*f, s); }
  Stmt mutate_children_of(const BlockNode* b, const Stmt& s) { return IRMutator::mutate_Block(*b, s); }

  template <typename Key, typename Sid>
  StmtSid take(std::unordered_map<Key, Sid>& reuse, Key key) {
    auto it = reuse.find(key);
    if (it == reuse.end() || used_.count(it->second)) return StmtSid();
    return it->second;
  }

  template <typename Node>
  Stmt assign(const Node* n, const Stmt& s, StmtSid reused) {
    // Loops and blocks alike: the node's own sid, untyped until the node's kind names it.
    StmtSid own = sid_of(*n);
    const NodeInfo* info = state_.info(own);
    bool intact = replaced_.count(own) && info && info->node == n && !used_.count(own);
    StmtSid sid = own;
    if (!intact) {
      if (reused)
        sid = reused;
      else if (!sid || used_.count(sid) || (state_.info(sid) && !replaced_.count(sid)))
        sid = StmtSid(ScheduleState::fresh_sid());
    }
    used_.insert(sid);
    Stmt out = mutate_children_of(n, s);
    if (out == s && own == sid) return s;
    if (out == s && !own) {
      n->sid = sid.value;  // a node no schedule has seen: named in place, as Identify names them
      return s;
    }
    auto copy = std::make_shared<Node>(*static_cast<const Node*>(out.get()));
    copy->sid = sid.value;
    return copy;
  }

  const ScheduleState& state_;
  const std::unordered_set<StmtSid>& replaced_;
  std::unordered_map<const VarNode*, LoopSid> loop_reuse_;
  std::unordered_map<const BlockNode*, BlockSid> block_reuse_;
  std::unordered_set<StmtSid> used_;
};

// TVM's type key of a statement, as its Replace names them.
const char* stmt_type_key(const StmtNode* s) {
  switch (s->kind) {
    case StmtKind::For:
      return "tir.For";
    case StmtKind::Block:
      return "tir.Block";
    case StmtKind::BlockRealize:
      return "tir.BlockRealize";
    case StmtKind::SeqStmt:
      return "tir.SeqStmt";
    default:
      return "tir.Stmt";
  }
}

}  // namespace

ReplaceCheck ScheduleState::check_replacement(StmtSid sid, const Stmt& tgt) const {
  const NodeInfo* src = info(sid);
  StmtKind from = src->node->kind, to = tgt->kind;
  bool correct = (from == StmtKind::For && (to == StmtKind::For || to == StmtKind::BlockRealize)) ||
                 (from == StmtKind::Block && to == StmtKind::Block);
  if (!correct) {
    return {true, fmt::format("src_stmt has type: {}. tgt_stmt has type: {}. A loop is replaced by a loop or a "
                              "BlockRealize, a block by a block",
                              stmt_type_key(src->node), stmt_type_key(tgt.get()))};
  }
  if (from == StmtKind::Block) {
    // To change the iterators, replace the loop above with a BlockRealize.
    size_t bound = src->realize ? src->realize->iter_values.size() : 0;
    size_t iters = as<BlockNode>(tgt)->iter_vars.size();
    if (bound != iters) {
      return {false, fmt::format("the block has {} iterator(s) but the BlockRealize of the replaced block \"{}\" binds "
                                 "{}; replace the loop above it with a BlockRealize to change the iterators",
                                 iters, static_cast<const BlockNode*>(src->node)->name, bound)};
    }
  }
  return {};
}

void ScheduleState::replace_copy_on_write(StmtSid src_sid, const Stmt& tgt_stmt,
                                          const std::vector<std::pair<const BlockNode*, Block>>& block_sref_reuse,
                                          long other_module_holders) {
  const NodeInfo* src = info(src_sid);
  TSCH_INTERNAL_CHECK(src != nullptr, "replace of a node that is not in the state");
  if (src->node == tgt_stmt.get()) return;
  const std::string func = src->func;
  // The replaced subtree's loops and blocks, and which of them the replacement reuses.
  std::unordered_set<StmtSid> replaced;
  std::unordered_map<const VarNode*, LoopSid> loop_reuse;
  std::unordered_map<const BlockNode*, BlockSid> block_reuse;
  for (const auto& [sid, i] : index_) {
    StmtSid p = sid;
    while (p && p != src_sid) p = info(p)->parent;
    if (!p) continue;
    replaced.insert(sid);
    if (i.node->kind == StmtKind::For) {
      auto* loop = static_cast<const ForNode*>(i.node);
      loop_reuse[loop->loop_var.get()] = sid_of(*loop);
    }
  }
  for (const auto& [old_block, new_block] : block_sref_reuse) {
    if (old_block && new_block && replaced.count(sid_of(*old_block)) && info(sid_of(*old_block))->node == old_block) {
      block_reuse[new_block.get()] = sid_of(*old_block);
    }
  }
  Stmt tgt = SidAssigner(*this, replaced, std::move(loop_reuse), std::move(block_reuse)).mutate(tgt_stmt);

  // The path from the replaced node up to the function, and who holds each of its nodes.
  auto entry =
      std::find_if(mod_->functions.begin(), mod_->functions.end(), [&](const auto& f) { return f.first == func; });
  TSCH_INTERNAL_CHECK(entry != mod_->functions.end(), "replace in a function the module lacks");
  PrimFunc f = as_prim_func(entry->second);
  long func_holders = entry->second.use_count() - 1;  // less `f`
  std::vector<Link> chain;
  TSCH_INTERNAL_CHECK(find_chain(f->body.get(), f->body.use_count(), src->node, chain),
                      "replace did not find its source");
  // A replacement holding a statement that encloses the source would, written in place, hold
  // itself (SidAssigner has copied the loops and blocks kept elsewhere, not the others).
  std::unordered_set<const StmtNode*> enclosing;
  for (size_t k = 0; k + 1 < chain.size(); ++k) enclosing.insert(chain[k].node);
  bool encloses = false;
  for_each_stmt(tgt, [&](const Stmt& s) { encloses |= enclosing.count(s.get()) > 0; });
  TSCH_USER_ASSERT(!encloses, ValueError) << "the replacement holds a statement that encloses the replaced one";
  // path[i]: the i-th loop or block above the source (path[0] is the source); unique[i]: it,
  // and the statements between it and path[i + 1], have one holder each.
  std::vector<const StmtNode*> path;
  std::vector<bool> unique;
  bool between_unique = true;
  for (const Link& l : chain) {
    if (is_sref_node(l.node)) {
      path.insert(path.begin(), l.node);
      unique.insert(unique.begin(), between_unique && l.use_count == 1);
      between_unique = true;
    } else {
      between_unique = between_unique && l.use_count == 1;
    }
  }
  unique[0] = false;  // as TVM's, which holds the source while it replaces it
  // Nodes up to num_copy_steps are copied; the loop or block above them is written in place
  // unless the function itself must change (replacing the root, or a shared function/module).
  int last = static_cast<int>(path.size()) - 1;
  int num_copy_steps = -1;
  for (int i = 0; i <= last; ++i) {
    if (!unique[i]) num_copy_steps = i;
  }
  bool need_module_copy = num_copy_steps == last || mod_.use_count() != 1 + other_module_holders || func_holders != 1;
  Stmt child_tgt = tgt;
  for (int i = 0; (need_module_copy || i <= num_copy_steps) && i < last; ++i) {
    bool in_place = !need_module_copy && i == num_copy_steps;
    Stmt parent = ChildReplacer(path[i], child_tgt).replace(path[i + 1], in_place);
    if (in_place) break;
    child_tgt = parent;
  }
  if (need_module_copy) {
    TSCH_INTERNAL_CHECK(child_tgt->kind == StmtKind::Block, "the root of a function must be a block");
    auto* realize = as<BlockRealizeNode>(f->body);
    auto body = std::make_shared<BlockRealizeNode>(realize->iter_values, realize->predicate,
                                                   std::static_pointer_cast<const BlockNode>(child_tgt));
    f.reset();
    std::shared_ptr<IRModuleNode> mod = mod_.use_count() == 1 + other_module_holders
                                            ? std::const_pointer_cast<IRModuleNode>(mod_)
                                            : std::make_shared<IRModuleNode>(*mod_);
    for (auto& [name, base] : mod->functions) {
      if (name != func) continue;
      if (base.use_count() == 1) {
        writable(static_cast<const PrimFuncNode*>(base.get()))->body = body;
      } else {
        auto copy = std::make_shared<PrimFuncNode>(*as_prim_func(base));
        copy->body = body;
        base = copy;
      }
    }
    mod_ = mod;
  }
  rebuild_index();
}

}  // namespace tsch::schedule
