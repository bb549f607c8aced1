// Run-time checks of data-dependent indices (TVM's tir.InstrumentBoundCheckers): see the .cc.
// A lowering pass (before FlattenBuffer, so a check names the buffer's own axis) that does
// nothing unless the PassContext config "tir.instrument_bound_checkers" is True. tvm.lower
// leaves it off, as TVM does; tvm.build turns it on unless the config says False (benchmarks).
#pragma once

#include "transform/pass.h"

namespace tsch::transform {

// The packed function a failed check calls: (buffer name, index, extent, axis); the driver
// registers it (an IndexError).
constexpr const char* kIndexOutOfRange = "tsch.runtime.index_out_of_range";

Pass instrument_bound_checkers();

}  // namespace tsch::transform
