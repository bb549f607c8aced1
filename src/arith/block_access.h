// The regions a block reads and writes, inferred from its body as TVM does when TVMScript
// omits T.reads/T.writes: loops inside the block are relaxed to their full range, nested
// blocks contribute their declared regions, an access through a match_buffer is one of its
// source region, and with an init the written buffers are not
// counted as reads.
#pragma once

#include <vector>

#include "ir/stmt.h"

namespace tsch::arith {

struct AccessRegions {
  std::vector<ir::BufferRegion> reads, writes;
  // The buffers accessed opaquely (also appended to both reads and writes): TVMScript's
  // inference refuses a block with any (TVM's ScriptCompleter).
  std::vector<ir::BufferRegion> opaques;
};

// `allocated`: the block's own alloc_buffers, which are not part of its signature;
// `matches`: its match_buffers, whose accesses count as accesses of their source regions;
// `data_owners`: buffers whose data pointer the body may use directly (TVM's buffer_var_map):
// `T.tvm_access_ptr` of one reads and/or writes the whole buffer as its mask says, any other
// use of the pointer is an opaque access, which counts as a read and a write (appended last).
// A match_buffer among them stands for its source region, as its loads do.
AccessRegions infer_access_regions(const ir::Stmt& body, const ir::Stmt& init,
                                   const std::vector<ir::Buffer>& allocated = {},
                                   const std::vector<ir::MatchBufferRegion>& matches = {},
                                   const std::vector<ir::Buffer>& data_owners = {});

// Whether `block` declares neither reads nor writes but holds blocks, as TVM's loop_partition
// leaves its `_common` and `_partition` blocks: what runs inside is then known only from the
// body, which the schedule's analyses look into (see effective_access_regions).
bool is_undeclared_container(const ir::BlockNode& block);

// The regions a block accesses as the analyses of its scope see them: what it declares, or
// for an undeclared container, what its body accesses, inferred with nested undeclared
// containers looked into the same way (their own allocations left out).
AccessRegions effective_access_regions(const ir::BlockNode& block);

}  // namespace tsch::arith
