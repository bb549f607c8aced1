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

// The symbol of the signature table in an exported library, and of its checksum (the
// table's FNV-1a hash in hex): a library whose table was changed after export is refused
// rather than trusted with the shapes its code writes.
constexpr const char* kSignatureSymbol = "__tsch_signatures";
constexpr const char* kSignatureChecksumSymbol = "__tsch_signatures_fnv1a";

// Whether `name` can be a function's exported symbol: a C identifier ([A-Za-z_][A-Za-z0-9_]*),
// as the C and CUDA generators paste it into source and libraries export it.
bool is_c_identifier(const std::string& name);
// Whether `name` is a C keyword (a function so named is exported under an assembler label).
bool is_c_keyword(const std::string& name);
// ValueError (a user error) unless every function of `mod` is named by a C identifier that
// does not take tsch's own tsch_ prefix.
void check_symbol_names(const ir::IRModule& mod);
// The checksum kSignatureChecksumSymbol holds for `table`.
std::string signature_checksum(const std::string& table);

// `f`'s parameters (buffers and scalars) and the scalar slots its entry point reads: shape
// variables first, then scalar parameters. BuildError for a buffer dtype the runtime lacks.
FunctionSignature collect_signature(const std::string& name, const ir::PrimFunc& f);
// Whether arrays of `t` exist at run time (scalar ints, floats, bool).
bool runtime_dtype(ir::DataType t);

// The table as text (one line per slot and parameter; every name percent-escaped, so a word
// never holds a space or a line break), and back: decode checks every line, since a library
// can come from anywhere, and throws BuildError naming the defect (a function named twice
// included).
std::string encode_signatures(const std::vector<FunctionSignature>& sigs);
std::vector<FunctionSignature> decode_signatures(const std::string& text);

}  // namespace tsch::codegen
