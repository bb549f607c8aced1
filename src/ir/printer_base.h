// What the TVMScript printers of every dialect share: the output lines (with ^^^ under
// highlighted nodes), the scoped name table (`A`, `A_1` ...), the dialects used (the header
// imports only those), and literal spelling.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/function.h"

namespace tsch::ir {

struct PrintOptions {
  // Print `global_symbol` even when it equals the function name, as TVM before 0.13 did
  // (seed note 001). Current TVM, which tsch follows by default, leaves it out (note 002).
  bool keep_global_symbol = false;
  // Loops and blocks to underline with ^^^ (schedule error reports), by node.
  std::vector<const StmtNode*> highlight;
  // Loops and blocks named in a `# name` comment line above them (TVM's obj_to_annotate:
  // "tir.For#0" in schedule error reports).
  std::vector<std::pair<const StmtNode*, std::string>> annotate;
  // TVM's syntax sugar: T.grid, T.axis.remap, buffers declared in the signature, the implicit
  // root block. Schedule error reports print without it, as TVM's do.
  bool syntax_sugar = true;
  // TVM's show_meta: constants the text refers to as metadata["..."][i] are printed first as
  // `metadata = tvm.ir.load_json("""...""")`, so the text reads back; otherwise a comment
  // says they are omitted.
  bool show_meta = false;
};

// The dialects a printed text may import, in TVM's header order.
enum class Dialect { IR, TIR, Relax };

class PrintContext {
 public:
  explicit PrintContext(const PrintOptions& options) : options(options) {}

  const PrintOptions& options;
  std::string out;
  // Objects printed as metadata["<type key>"][i] (Relax's array constants), in index order.
  std::vector<std::pair<std::string, std::shared_ptr<const void>>> metadata;
  // The index of `object` in metadata under `type_key`, added when new.
  size_t metadata_index(const std::string& type_key, const std::shared_ptr<const void>& object);

  void line(int indent, const std::string& text);
  // Underlines the line just printed when `node` is highlighted (schedule error reports).
  void mark(int indent, const std::string& text, const StmtNode* node);
  // The `# name` comment line above `node` when it is annotated.
  void annotation(int indent, const StmtNode* node);

  // Names are scoped: a frame's names are released when it is popped, so a later sibling
  // may reuse them; within the open frames every name is distinct.
  void push_frame() { frames_.emplace_back(); }
  void pop_frame();
  std::string define(const void* key, const std::string& hint);
  // The same in the outermost frame (a free variable of a statement printed alone).
  std::string define_outermost(const void* key, const std::string& hint);
  // The name `key` was defined with, else `hint` made a valid identifier.
  std::string name_of(const void* key, const std::string& hint) const;
  bool is_defined(const void* key) const { return names_.count(key) > 0; }

  void use(Dialect d) { dialects_.insert(d); }
  // `# from tvm.script import ... as ...` for the dialects used, then a blank line.
  std::string header() const;

 private:
  std::vector<std::vector<const void*>> frames_;
  std::unordered_map<const void*, std::string> names_;
  std::set<std::string> used_;
  std::set<Dialect> dialects_;
};

std::string quote(const std::string& s);
// A float literal as TVM prints it (`1.0`, `0.10000000000000001`, `T.float32("inf")`).
std::string float_text(double v);
// `hint` made a valid Python identifier.
std::string sanitize(const std::string& hint);

// Printers of the other function kinds (Relax functions), registered by their dialect:
// print `func` as a definition named `name` at `indent`.
using FunctionPrinter =
    std::function<void(PrintContext& ctx, const BaseFunc& func, const std::string& name, int indent)>;
std::map<FuncKind, FunctionPrinter>& function_printer_table();

// Writes the metadata a printed text refers to as TVM's JSON graph (registered by the dialect
// whose objects go there: Relax); empty when none is registered.
using MetadataWriter =
    std::function<std::string(const std::vector<std::pair<std::string, std::shared_ptr<const void>>>&)>;
MetadataWriter& metadata_writer();
// What follows and precedes the printed text for its metadata: the load_json line (show_meta)
// or TVM's closing comment.
std::string metadata_prefix(const PrintContext& ctx);
std::string metadata_suffix(const PrintContext& ctx);

}  // namespace tsch::ir
