// What every code generator and module loader shares about a compiled function's
// signature: the parameters and scalar slots the runtime binds (collect_signature), and
// the text form an exported library carries them in (symbol __tsch_signatures).
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "runtime/module.h"

namespace tsch::codegen {

using runtime::BuildError;
using runtime::FunctionSignature;

// The symbol of the signature table in an exported library.
constexpr const char* kSignatureSymbol = "__tsch_signatures";

// `f`'s parameters (buffers and scalars) and the scalar slots its entry point reads: shape
// variables first, then scalar parameters. BuildError for a buffer dtype the runtime lacks.
FunctionSignature collect_signature(const std::string& name, const ir::PrimFunc& f);
// Whether arrays of `t` exist at run time (scalar ints, floats, bool).
bool runtime_dtype(ir::DataType t);

// The table as text (one line per slot and parameter), and back: decode checks every line,
// since a library can come from anywhere, and throws BuildError naming the defect.
std::string encode_signatures(const std::vector<FunctionSignature>& sigs);
std::vector<FunctionSignature> decode_signatures(const std::string& text);

}  // namespace tsch::codegen
