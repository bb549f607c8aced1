// IRModule lookups and edits; BaseFunc helpers.
#include "ir/module.h"

#include <algorithm>

namespace tsch::ir {

std::string global_symbol(const BaseFuncNode& f) {
  const AttrValue* symbol = find_attr(f.attrs, "global_symbol");
  return symbol && symbol->kind == AttrValue::Kind::Str ? symbol->s : std::string();
}

BaseFunc with_attr(const BaseFunc& f, const std::string& key, AttrValue value) {
  std::shared_ptr<BaseFuncNode> g = f->copy();
  set_attr(g->attrs, key, std::move(value));
  return g;
}

BaseFunc without_attr(const BaseFunc& f, const std::string& key) {
  if (!find_attr(f->attrs, key)) return f;
  std::shared_ptr<BaseFuncNode> g = f->copy();
  erase_attr(g->attrs, key);
  return g;
}

Buffer PrimFuncNode::buffer_of(const Var& param) const {
  for (const auto& [v, b] : buffer_map) {
    if (v == param) return b;
  }
  return nullptr;
}

BaseFunc IRModuleNode::lookup(const std::string& name) const {
  for (const auto& [n, f] : functions) {
    if (n == name) return f;
  }
  return nullptr;
}

PrimFunc IRModuleNode::prim_func(const std::string& name) const { return as_prim_func(lookup(name)); }

std::vector<std::pair<std::string, PrimFunc>> IRModuleNode::prim_funcs() const {
  std::vector<std::pair<std::string, PrimFunc>> out;
  for (const auto& [n, f] : functions) {
    if (PrimFunc p = as_prim_func(f)) out.emplace_back(n, std::move(p));
  }
  return out;
}

bool IRModuleNode::has_only_prim_funcs() const {
  return std::all_of(functions.begin(), functions.end(),
                     [](const auto& nf) { return as_prim_func(nf.second) != nullptr; });
}

void IRModuleNode::set(const std::string& name, BaseFunc func) {
  for (auto& [n, f] : functions) {
    if (n == name) {
      f = std::move(func);
      return;
    }
  }
  functions.emplace_back(name, std::move(func));
}

bool IRModuleNode::remove(const std::string& name) {
  auto it = std::find_if(functions.begin(), functions.end(), [&](const auto& nf) { return nf.first == name; });
  if (it == functions.end()) return false;
  functions.erase(it);
  return true;
}

IRModule module_of(const std::string& name, PrimFunc func) {
  auto mod = std::make_shared<IRModuleNode>();
  mod->functions.emplace_back(name, std::move(func));
  return mod;
}

}  // namespace tsch::ir
