// TVM's CacheLocDetector, shared by cache_read and reindex_cache_read / reindex_cache_write:
// where a copy goes once a block (the writer) has run and before the first of the related
// blocks (its consumers).
#pragma once

#include <cstdint>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/stmt.h"

namespace tsch::schedule {

// TVM's CacheLocDetector for cache_read: where the copy goes once the buffer's writer has
// run and before the first of its consumers — the statement sequence where both have been
// seen, inside the innermost loop around it (or the scope block), at the position of the
// statement holding that first consumer.
class CacheLocDetector {
 public:
  CacheLocDetector(BlockSid writer, BlockSid scope, std::unordered_set<BlockSid> related)
      : writer_(writer), scope_(scope), related_(std::move(related)) {}

  StmtSid loc;                           // a loop's sid, or the scope block's
  int64_t pos = -1;                      // index in `seq` (or before / after a lone body)
  const ir::SeqStmtNode* seq = nullptr;  // the sequence `pos` indexes (null: the scope's start)
  bool holds_both = false;               // a container block holds the writer and a related block

  void visit(const ir::Stmt& st) {
    if (!st) return;
    switch (st->kind) {
      case ir::StmtKind::SeqStmt: {
        auto* sq = ir::as<ir::SeqStmtNode>(st);
        bool previous = visited_block_;
        visited_block_ = false;
        for (size_t i = 0; i < sq->seq.size(); ++i) {
          if (pos != -1) break;
          visit(sq->seq[i]);
          if (visited_block_ && visited_related_ && pos == -1) {
            pos = static_cast<int64_t>(i);
            seq = sq;
            break;
          }
          if (visited_related_) break;
        }
        visited_block_ = visited_block_ || previous;
        return;
      }
      case ir::StmtKind::BlockRealize:
        visit(ir::Stmt(ir::as<ir::BlockRealizeNode>(st)->block));
        return;
      case ir::StmtKind::Block: {
        auto* b = ir::as<ir::BlockNode>(st);
        if (sid_of(*b) == scope_) {
          visit(b->body);
          if (visited_related_ && !loc) {
            loc = scope_;
            if (!visited_block_ && pos == -1) pos = 0;
          }
          return;
        }
        bool writer = sid_of(*b) == writer_, related = related_.count(sid_of(*b)) > 0;
        if (!writer && !related) {
          // A container (loop_partition's blocks) runs what the blocks nested in it do.
          ir::for_each_stmt(b->body, [&](const ir::Stmt& x) {
            if (x->kind != ir::StmtKind::Block) return;
            BlockSid sid = sid_of(*ir::as<ir::BlockNode>(x));
            writer = writer || sid == writer_;
            related = related || related_.count(sid) > 0;
          });
          // The writer and a consumer inside one container: no place between them out here.
          if (writer && related) {
            holds_both = true;
            return;
          }
        }
        if (writer)
          visited_block_ = true;
        else if (related)
          visited_related_ = true;
        return;
      }
      case ir::StmtKind::For: {
        auto* f = ir::as<ir::ForNode>(st);
        visit(f->body);
        if (visited_block_ && visited_related_ && !loc && pos != -1) loc = sid_of(*f);
        return;
      }
      case ir::StmtKind::IfThenElse: {
        auto* branch = ir::as<ir::IfThenElseNode>(st);
        visit(branch->then_case);
        visit(branch->else_case);
        return;
      }
      case ir::StmtKind::LetStmt:
        visit(ir::as<ir::LetStmtNode>(st)->body);
        return;
      case ir::StmtKind::DeclBuffer:
        visit(ir::as<ir::DeclBufferNode>(st)->body);
        return;
      case ir::StmtKind::AllocateConst:
        visit(ir::as<ir::AllocateConstNode>(st)->body);
        return;
      case ir::StmtKind::BufferStore:
      case ir::StmtKind::Evaluate:
      case ir::StmtKind::Allocate:
      case ir::StmtKind::AttrStmt:
        return;
    }
  }

 private:
  BlockSid writer_, scope_;
  std::unordered_set<BlockSid> related_;
  bool visited_block_ = false, visited_related_ = false;
};

}  // namespace tsch::schedule
