// An IndexMap in TVM's JSON object-graph form (what tvm.ir.save_json / node.SaveJSON write,
// and what a TransformLayout instruction carries in a trace's JSON): {"root_index": n,
// "nodes": [{"type": "tir.IndexMap", "data": {...}}, ...], "metadata": {...}}. Objects are
// nodes whose fields are inline values (ints, floats, dtype strings) or indices of other
// nodes; tsch writes and reads the expression subset index maps use.
#pragma once

#include <string>

#include "schedule/instruction.h"

namespace tsch::schedule {

// `map` (TraceArg::Kind::IndexMap) as TVM's JSON graph text, indented as TVM writes it.
std::string index_map_to_json_graph(const TraceArg& map);

// An expression (an argument computed from ExprRVs, `v0 * v1`) in the same form, its root
// the expression's node. TVM cannot write these; tsch writes them as it writes index maps.
std::string expr_to_json_graph(const ir::PrimExpr& e);

// Reads an IndexMap written by TVM or by index_map_to_json_graph (or an expression written by
// expr_to_json_graph: a TraceArg of kind Expr). Malformed text is a ValueError; a node kind
// an index map does not use here is NotImplementedError.
TraceArg index_map_from_json_graph(const std::string& text);

}  // namespace tsch::schedule
