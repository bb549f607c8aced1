// The regions a block reads and writes, inferred from its body as TVM does when TVMScript
// omits T.reads/T.writes: loops inside the block are relaxed to their full range, nested
// blocks contribute their declared regions, and with an init the written buffers are not
// counted as reads.
#pragma once

#include <vector>

#include "ir/stmt.h"

namespace tsch::arith {

struct AccessRegions {
  std::vector<ir::BufferRegion> reads, writes;
};

AccessRegions infer_access_regions(const ir::Stmt& body, const ir::Stmt& init);

}  // namespace tsch::arith
