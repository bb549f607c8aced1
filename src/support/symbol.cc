#include "support/symbol.h"

#include <deque>
#include <mutex>
#include <unordered_map>

namespace tsch {
namespace {

struct SymbolTable {
  // Symbol 0 is the empty name: the AST uses 0 for "no name", so no real name may get it.
  SymbolTable() {
    names.emplace_back();
    ids.emplace(names.back(), 0);
  }
  std::mutex mu;
  std::deque<std::string> names;  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, Symbol> ids;
};

SymbolTable& table() {
  static SymbolTable* t = new SymbolTable();  // never destroyed: used during static teardown
  return *t;
}

}  // namespace

Symbol intern(std::string_view name) {
  SymbolTable& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  t.names.emplace_back(name);
  Symbol sym = static_cast<Symbol>(t.names.size() - 1);
  t.ids.emplace(t.names.back(), sym);
  return sym;
}

const std::string& symbol_name(Symbol sym) {
  SymbolTable& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.names.at(sym);
}

}  // namespace tsch
