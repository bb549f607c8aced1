// Interned identifiers: names compare and hash as integers in scopes and attribute tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tsch {

using Symbol = uint32_t;

// Returns the symbol for `name`, creating it on first use. Thread-safe.
Symbol intern(std::string_view name);
// The text of a symbol; the reference stays valid for the whole process.
const std::string& symbol_name(Symbol sym);

}  // namespace tsch
