// Module import: built-in modules registered from C++ (tvm, numpy, sys, math, ...), then
// stdlib/, the importing script's folder, and the folders in TSCH_PATH. Script modules are
// run once and cached.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "script/object.h"

namespace tsch::script {

class Interpreter;

class ModuleLoader {
 public:
  // Builds a built-in module's contents into `module`.
  using Builder = std::function<void(Interpreter&, Module& module)>;

  // Registers a built-in module under its dotted name (e.g. "tvm.tir"). Call before use,
  // typically from a static registrar in the binding's file.
  static void register_builtin(const std::string& name, Builder builder);
  static bool has_builtin(const std::string& name);

  // Names a script may reach (a module, or a module's attribute: "tvm.dlight", "numpy.einsum")
  // that TVM or NumPy has and tsch does not yet: importing or reading one fails with
  // "not supported yet: <dotted> (<what>)" instead of "No module named ...".
  static void register_not_supported(const std::string& dotted, const std::string& what);
  // The message for `dotted`, or nullptr when it is not a registered gap.
  static const std::string* not_supported(const std::string& dotted);

  // Imports `dotted` (loading parents first) and returns the leaf module. `importer_dir` is
  // the folder of the importing script ("" for REPL input: the current directory).
  std::shared_ptr<Module> import(Interpreter& interp, const std::string& dotted, const std::string& importer_dir);

  // Folders searched after the built-ins, in order, for a given importer.
  std::vector<std::string> search_path(const std::string& importer_dir) const;
  // The stdlib folder in use (TSCH_STDLIB, next to the executable, or the source tree).
  static std::string stdlib_dir();

  // Registers a module object under a name (used for __main__).
  void add(const std::string& name, std::shared_ptr<Module> module) { loaded_[name] = std::move(module); }

 private:
  std::shared_ptr<Module> load_one(Interpreter& interp, const std::string& dotted, const std::string& leaf,
                                   const std::shared_ptr<Module>& parent, const std::string& importer_dir);
  std::map<std::string, std::shared_ptr<Module>> loaded_;
  std::vector<std::string> loading_;  // import cycle detection
};

}  // namespace tsch::script
