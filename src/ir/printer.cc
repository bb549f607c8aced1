// The module printer (TVM's src/script/printer/ir/ir.cc): `@I.ir_module class Module:` with
// module attributes first and the functions in TVM's order — PrimFuncs, then other kinds,
// each group by name, `main` last — each printed by its dialect; the header imports only the
// dialects the text uses.
#include "ir/printer.h"

#include <algorithm>

#include "ir/tir_printer.h"
#include "support/error.h"

namespace tsch::ir {
namespace {

// TVM's SortableFunction priority.
int print_priority(const std::string& name, const BaseFunc& f) {
  if (name == "main") return 1000;
  switch (f->func_kind()) {
    case FuncKind::PrimFunc:
      return 1;
    case FuncKind::ExternFunc:
      return 2;
    case FuncKind::RelaxFunction:
      return 3;
  }
  return 4;
}

void print_function(PrintContext& ctx, const BaseFunc& f, const std::string& name, int indent) {
  if (PrimFunc p = as_prim_func(f)) return print_prim_func(ctx, p, name, indent);
  auto& table = function_printer_table();
  auto it = table.find(f->func_kind());
  TSCH_INTERNAL_ASSERT(it != table.end()) << "no printer for " << f->type_key();
  it->second(ctx, f, name, indent);
}

}  // namespace

std::string script(const IRModule& mod, const PrintOptions& options) {
  PrintContext ctx(options);
  ctx.use(Dialect::IR);
  ctx.line(0, "@I.ir_module");
  ctx.line(0, "class Module:");
  if (!mod->attrs.empty()) ctx.line(1, "I.module_attrs(" + script(mod->attrs) + ")");
  std::vector<std::pair<std::string, BaseFunc>> functions = mod->functions;
  std::stable_sort(functions.begin(), functions.end(), [](const auto& a, const auto& b) {
    int pa = print_priority(a.first, a.second), pb = print_priority(b.first, b.second);
    return pa != pb ? pa < pb : a.first < b.first;
  });
  bool first = true;
  for (const auto& [name, func] : functions) {
    if (!first) ctx.out += "\n";
    // An ExternFunc declaration is one line, printed without a blank line after it (as TVM).
    first = func->func_kind() == FuncKind::ExternFunc;
    print_function(ctx, func, name, 1);
  }
  if (functions.empty() && mod->attrs.empty()) ctx.line(1, "pass");
  return metadata_prefix(ctx) + ctx.header() + ctx.out + metadata_suffix(ctx);
}

std::string script(const BaseFunc& func, const std::string& name, const PrintOptions& options) {
  PrintContext ctx(options);
  print_function(ctx, func, name, 0);
  return metadata_prefix(ctx) + ctx.header() + ctx.out + metadata_suffix(ctx);
}

}  // namespace tsch::ir
