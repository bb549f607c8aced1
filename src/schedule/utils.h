// Helpers shared by the primitives beyond analysis.h and transform.h (which it includes):
// blocks under a loop, loop-variable substitution in block bindings with simplification,
// predicates of re-created blocks, cache names and storage scopes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arith/interval.h"
#include "ir/stmt.h"
#include "schedule/analysis.h"
#include "schedule/state.h"
#include "schedule/transform.h"

namespace tsch::schedule {

// Block realizes anywhere under `s` (not descending into blocks).
std::vector<const ir::BlockRealizeNode*> realizes_under(const ir::Stmt& s);

// Whether `sid` lies (strictly) inside `ancestor`.
bool is_under(const ScheduleState& s, StmtSid sid, StmtSid ancestor);

// Whether `loop_var` feeds both a data-parallel and a reduction iterator of the block (TVM
// refuses reorder/rfactor over such loops of a block with init).
bool binds_spatial_and_reduction(const ir::BlockRealizeNode& realize, const ir::VarNode* loop_var);

// Ranges of the loops enclosing `sid` plus those in `extra`, for simplification.
arith::VarDomain loop_domain(const ScheduleState& state, StmtSid sid);

// Rewrites the block realizes under `body`: bindings get `vmap` substituted and simplified
// under `dom`; `extra_predicate`, when given, is and-ed into each predicate.
ir::Stmt substitute_bindings(const ir::Stmt& body, const std::unordered_map<const ir::VarNode*, ir::PrimExpr>& vmap,
                             const arith::VarDomain& dom, const ir::PrimExpr& extra_predicate = nullptr);

// `vmap` substituted into every expression under `s`, each integer expression that changed
// simplified under `dom` (TVM's blockize Substitute with its analyzer); with `all`, every
// integer expression, loop and block iterator ranges added to `dom` on the way (TVM's Simplify
// of a tensor intrinsic's description).
ir::Stmt substitute_simplify(const ir::Stmt& s, const std::unordered_map<const ir::VarNode*, ir::PrimExpr>& vmap,
                             const arith::VarDomain& dom, bool all = false);

// The terms of `pred`'s `and`-chain, left to right.
std::vector<ir::PrimExpr> conjuncts(const ir::PrimExpr& pred);

// The terms of `pred`'s `and`-chain that use none of the `dropped` loop variables (TVM's
// RemakePredicate): the predicate of a block re-created outside some of the loops around
// the original — decompose_reduction's init, rfactor's write-back. True when none is left.
ir::PrimExpr predicate_without(const ir::PrimExpr& pred, const std::unordered_set<const ir::VarNode*>& dropped);

// A term of `pred` that uses both a `dropped` loop variable and one of the `kept` ones, or a
// null expression. predicate_without would drop it, and with it the condition it puts on the
// kept loops (`u_0 * 8 + u_1 < 1` with u_0 dropped and u_1 kept runs the block at u_1 == 0
// only): a block re-created without it would run where the original did not.
ir::PrimExpr coupled_conjunct(const ir::PrimExpr& pred, const std::unordered_set<const ir::VarNode*>& dropped,
                              const std::unordered_set<const ir::VarNode*>& kept);

// A loop variable name that does not clash: `base` itself is fine for new names derived
// from an existing one (TVM reuses names; the printer de-duplicates).
ir::Var new_loop_var(const std::string& name, ir::DataType dtype);

// `e` as constant coefficients of variables plus a constant, when it is linear (sums,
// differences and products by constants of variables and constants).
struct LinearForm {
  std::vector<std::pair<const ir::VarNode*, int64_t>> terms;
  int64_t constant = 0;
};
bool linear_form(const ir::PrimExpr& e, int64_t scale, LinearForm& out);

// A comparison of an expression with a constant offset as the interval it allows:
// `3 <= x + 1` is x + 1 - 3 >= 0, i.e. `expr` = x with lo = 2. Null for anything else.
struct PredicateBound {
  ir::PrimExpr expr;
  std::optional<int64_t> lo, hi;  // expr >= lo, expr < hi
};
std::optional<PredicateBound> comparison_bound(const ir::PrimExpr& c);

// A buffer name for a cache in `scope`: A + "shared" -> A_shared, "shared.dyn" -> A_shared_dyn.
std::string cache_name(const std::string& buffer, const std::string& scope);

bool valid_storage_scope(const std::string& scope);
// The copy block of the cache primitives (TVM's MakeCacheStage), with its loops:
//   for ax0, ax1 in T.grid(...): with T.block(name): v0, v1 = ...; dst[v] = src[v]
// over `region` ([min, max] per dimension of src). With `compact` (a cache of the region's
// shape, TVM's cache_full_region = false) the iterators range over the region and the cache is
// indexed from 0: dst[v] = src[min + v] (dst[min + v] = src[v] when
// the cache is the source: `cache_is_dst` false). `block_sid` receives the new block's sid
// (cache.cc).
ir::Stmt copy_nest(ScheduleState& s, const std::string& name, const ir::Buffer& src, const ir::Buffer& dst,
                   const std::vector<arith::Interval>& region, BlockSid& block_sid, bool compact = false,
                   bool cache_is_dst = true);
// The top-level statement of the scope block `scope` that holds `sid`, as its index in the
// scope's body (0 when the body is one statement) (cache.cc).
size_t top_level_index(const ScheduleState& s, StmtSid sid, BlockSid scope);
// Refuses a scope valid_storage_scope rejects: TVM's InvalidStorageScopeError (cache.cc).
void check_storage_scope(const ScheduleState& s, const std::string& scope);

// Refuses a loop nest under which a block may not run in parallel: what
// parallel/vectorize check (schedule/primitive/loop_kind.cc).
void check_data_parallel(const ScheduleState& s, LoopSid loop, const char* kind);
// The same for every parallel or vectorized loop around `block`: a block that compute_at
// moves under one must be what that loop allows (a reduction there would race).
void check_parallel_loops_above(const ScheduleState& s, BlockSid block);

}  // namespace tsch::schedule
