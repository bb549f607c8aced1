// Module runs (a parsed module or source text in a namespace; the __main__ namespace) and
// the import statements.
#include <fmt/format.h>

#include <filesystem>

#include "script/evaluator.h"
#include "script/modules.h"
#include "syntax/parser.h"

namespace tsch::script {

using namespace ast;

std::string Evaluator::importer_dir() const {
  Value* file = scope.globals->find(intern("__file__"));
  if (!file || !file->as<Str>()) return "";
  return std::filesystem::path(file->as<Str>()->value).parent_path().string();
}

void Evaluator::exec_import(const Import& s) {
  for (const auto& alias : s.names) {
    std::shared_ptr<Module> leaf;
    try {
      leaf = interp.modules().import(interp, alias.name, importer_dir());
    } catch (ScriptError& e) {
      if (!e.pending.valid()) e.pending = alias.loc;
      throw;
    }
    if (alias.has_asname) {
      store_name(alias.asname, Value(leaf));
    } else {
      std::string top = alias.name.substr(0, alias.name.find('.'));
      store_name(intern(top), Value(interp.modules().import(interp, top, importer_dir())));
    }
  }
}

void Evaluator::exec_import_from(const ImportFrom& s) {
  if (s.level > 0) raise_at(ExcKind::ImportError, "not supported yet: relative imports", s.loc);
  std::shared_ptr<Module> module;
  try {
    module = interp.modules().import(interp, s.module, importer_dir());
  } catch (ScriptError& e) {
    if (!e.pending.valid()) e.pending = s.loc;
    throw;
  }
  if (s.star) {
    for (const auto& [k, v] : module->globals->values()) {
      if (!symbol_name(k).empty() && symbol_name(k)[0] != '_') store_name(k, v);
    }
    return;
  }
  for (const auto& alias : s.names) {
    Symbol name = intern(alias.name);
    Value value;
    if (!interp.try_get_attr(Value(module), name, value)) {
      // `from a import b` may name a submodule.
      try {
        value = Value(interp.modules().import(interp, s.module + "." + alias.name, importer_dir()));
      } catch (ScriptError&) {
        const std::string* gap = ModuleLoader::not_supported(s.module + "." + alias.name);
        raise_at(ExcKind::ImportError,
                 gap ? *gap : fmt::format("cannot import name '{}' from '{}'", alias.name, s.module), alias.loc);
      }
    }
    store_name(alias.has_asname ? alias.asname : name, value);
  }
}

// ---------------------------------------------------------------------------- modules

void Interpreter::exec_module(const std::shared_ptr<ast::Module>& module, const NamespaceRef& globals, bool echo) {
  Scope scope;
  scope.locals = globals;
  scope.globals = globals;
  scope.is_module = true;
  scope.echo = echo;
  scope.owner = module;
  Evaluator evaluator(*this, scope);
  try {
    evaluator.exec_body(module->body);
  } catch (ScriptError& e) {
    e.traceback.push_back(TracebackEntry{e.pending, "<module>"});
    e.pending = SourceLoc{};
    throw;
  }
}

void Interpreter::exec_source(const SourceFile* source, const NamespaceRef& globals, bool echo) {
  exec_module(parse_module(source), globals, echo);
}

NamespaceRef Interpreter::make_main_globals(const std::string& file) {
  auto globals = std::make_shared<Namespace>();
  globals->set(intern("__name__"), make_str("__main__"));
  if (!file.empty()) globals->set(intern("__file__"), make_str(file));
  auto main = std::make_shared<Module>("__main__");
  main->globals = globals;
  main->file = file;
  modules_->add("__main__", main);
  return globals;
}

}  // namespace tsch::script
