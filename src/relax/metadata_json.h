// Relax constants as TVM's metadata JSON graph (what `metadata = tvm.ir.load_json("""...""")`
// holds in a module printed with show_meta=True).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/printer_base.h"
#include "relax/expr.h"

namespace tsch::relax {

// Objects by type key ("relax.expr.Constant"), in index order, as TVM's JSON graph text.
std::string metadata_to_json_graph(const std::vector<std::pair<std::string, Expr>>& objects);
// The groups of a graph written by TVM or by metadata_to_json_graph. Malformed text is a
// ValueError; objects other than Relax constants are NotImplementedError.
std::vector<std::pair<std::string, std::vector<Expr>>> metadata_from_json_graph(const std::string& text);
// Installs the writer the printer uses for show_meta (idempotent).
void register_metadata_writer();

}  // namespace tsch::relax
