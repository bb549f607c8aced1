#include "frontend/tir_builder.h"

#include "script/exceptions.h"

namespace tsch::frontend {

namespace {
thread_local TirBuilder* g_current = nullptr;
}

TirBuilder::TirBuilder() : previous_(g_current) { g_current = this; }
TirBuilder::~TirBuilder() { g_current = previous_; }

TirBuilder* TirBuilder::current() { return g_current; }

BlockFrame& TirBuilder::block(const std::string& what) {
  if (blocks.empty()) script::raise(script::ExcKind::ValueError, what + " must be used inside a `with T.block(...)`");
  return blocks.back();
}

}  // namespace tsch::frontend
