// Typed statement ids (sids) of a schedule, as TVM separates LoopRV / BlockRV and StmtSRef:
// a LoopSid names a loop, a BlockSid a block, and a StmtSid either. Each wraps the uint64_t
// the IR node carries (ForNode::sid, BlockNode::sid; 0 names nothing). A LoopSid or BlockSid
// converts implicitly to a StmtSid; the way back is explicit: ScheduleState::as_loop /
// as_block (checked against the state) or sid_of(node) from a node whose kind is known. So a
// block passed where a primitive expects a loop does not compile.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

#include "ir/stmt.h"

namespace tsch::schedule {

struct StmtSid {
  uint64_t value = 0;
  constexpr StmtSid() = default;
  constexpr explicit StmtSid(uint64_t v) : value(v) {}
  constexpr explicit operator bool() const { return value != 0; }
  friend constexpr bool operator==(StmtSid, StmtSid) = default;
  friend constexpr auto operator<=>(StmtSid, StmtSid) = default;
};

struct LoopSid {
  uint64_t value = 0;
  constexpr LoopSid() = default;
  constexpr explicit LoopSid(uint64_t v) : value(v) {}
  constexpr explicit operator bool() const { return value != 0; }
  constexpr operator StmtSid() const { return StmtSid(value); }  // NOLINT: a loop is a statement
  friend constexpr bool operator==(LoopSid, LoopSid) = default;
  friend constexpr auto operator<=>(LoopSid, LoopSid) = default;
};

struct BlockSid {
  uint64_t value = 0;
  constexpr BlockSid() = default;
  constexpr explicit BlockSid(uint64_t v) : value(v) {}
  constexpr explicit operator bool() const { return value != 0; }
  constexpr operator StmtSid() const { return StmtSid(value); }  // NOLINT: a block is a statement
  friend constexpr bool operator==(BlockSid, BlockSid) = default;
  friend constexpr auto operator<=>(BlockSid, BlockSid) = default;
};

// The sid of a node whose kind is known.
inline LoopSid sid_of(const ir::ForNode& loop) { return LoopSid(loop.sid); }
inline BlockSid sid_of(const ir::BlockNode& block) { return BlockSid(block.sid); }

// Typed sids as a list of statements (a ScheduleError's locations).
template <typename Sid>
std::vector<StmtSid> stmt_sids(const std::vector<Sid>& sids) {
  return std::vector<StmtSid>(sids.begin(), sids.end());
}

inline std::ostream& operator<<(std::ostream& os, StmtSid s) { return os << s.value; }
inline std::ostream& operator<<(std::ostream& os, LoopSid s) { return os << s.value; }
inline std::ostream& operator<<(std::ostream& os, BlockSid s) { return os << s.value; }

}  // namespace tsch::schedule

template <>
struct std::hash<tsch::schedule::StmtSid> {
  size_t operator()(tsch::schedule::StmtSid s) const noexcept { return std::hash<uint64_t>()(s.value); }
};
template <>
struct std::hash<tsch::schedule::LoopSid> {
  size_t operator()(tsch::schedule::LoopSid s) const noexcept { return std::hash<uint64_t>()(s.value); }
};
template <>
struct std::hash<tsch::schedule::BlockSid> {
  size_t operator()(tsch::schedule::BlockSid s) const noexcept { return std::hash<uint64_t>()(s.value); }
};
