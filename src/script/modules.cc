#include "script/modules.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "script/exceptions.h"
#include "script/interpreter.h"
#include "syntax/parser.h"

namespace tsch::script {
namespace fs = std::filesystem;

namespace {

std::map<std::string, ModuleLoader::Builder>& builtin_registry() {
  static auto* registry = new std::map<std::string, ModuleLoader::Builder>();
  return *registry;
}

[[noreturn]] void raise_module_not_found(const std::string& dotted) {
  const std::string* gap = ModuleLoader::not_supported(dotted);
  raise(ExcKind::ModuleNotFoundError, gap ? *gap : "No module named '" + dotted + "'");
}

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace

void ModuleLoader::register_builtin(const std::string& name, Builder builder) {
  builtin_registry()[name] = std::move(builder);
}

bool ModuleLoader::has_builtin(const std::string& name) { return builtin_registry().count(name) > 0; }

namespace {
std::map<std::string, std::string>& not_supported_registry() {
  static auto* registry = new std::map<std::string, std::string>();
  return *registry;
}
}  // namespace

void ModuleLoader::register_not_supported(const std::string& dotted, const std::string& what) {
  not_supported_registry()[dotted] = "not supported yet: " + dotted + " (" + what + ")";
}

const std::string* ModuleLoader::not_supported(const std::string& dotted) {
  auto it = not_supported_registry().find(dotted);
  return it == not_supported_registry().end() ? nullptr : &it->second;
}

std::string ModuleLoader::stdlib_dir() {
  if (const char* env = std::getenv("TSCH_STDLIB"); env && *env) return env;
  std::error_code ec;
  std::string exe = executable_dir();
  for (const char* rel : {"../stdlib", "../../stdlib", "../share/tsch/stdlib"}) {
    fs::path candidate = fs::path(exe) / rel;
    if (!exe.empty() && fs::is_directory(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
#ifdef TSCH_SOURCE_STDLIB
  return TSCH_SOURCE_STDLIB;
#else
  return "";
#endif
}

std::vector<std::string> ModuleLoader::search_path(const std::string& importer_dir) const {
  std::vector<std::string> path;
  std::string stdlib = stdlib_dir();
  if (!stdlib.empty()) path.push_back(stdlib);
  path.push_back(importer_dir.empty() ? "." : importer_dir);
  if (const char* env = std::getenv("TSCH_PATH")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ':')) {
      if (!item.empty()) path.push_back(item);
    }
  }
  return path;
}

std::shared_ptr<Module> ModuleLoader::import(Interpreter& interp, const std::string& dotted,
                                             const std::string& importer_dir) {
  std::shared_ptr<Module> parent;
  std::string prefix;
  std::stringstream ss(dotted);
  std::string part;
  while (std::getline(ss, part, '.')) {
    prefix = prefix.empty() ? part : prefix + "." + part;
    auto it = loaded_.find(prefix);
    std::shared_ptr<Module> module;
    if (it != loaded_.end()) {
      module = it->second;
    } else if (Value* sub = parent ? parent->globals->find(intern(part)) : nullptr;
               sub && sub->as<Module>() && !has_builtin(prefix)) {
      // A submodule a built-in module created itself (tvm.tir.schedule).
      module = sub->as_ref<Module>();
      loaded_[prefix] = module;
    } else {
      module = load_one(interp, prefix, part, parent, importer_dir);
    }
    if (parent) parent->globals->set(intern(part), Value(module));
    parent = module;
  }
  return parent;
}

std::shared_ptr<Module> ModuleLoader::load_one(Interpreter& interp, const std::string& dotted, const std::string& leaf,
                                               const std::shared_ptr<Module>& parent, const std::string& importer_dir) {
  if (std::find(loading_.begin(), loading_.end(), dotted) != loading_.end()) {
    raise(ExcKind::ImportError, "cannot import module '" + dotted + "': circular import");
  }
  auto builtin = builtin_registry().find(dotted);
  if (builtin != builtin_registry().end()) {
    auto module = std::make_shared<Module>(dotted);
    loaded_[dotted] = module;
    builtin->second(interp, *module);
    return module;
  }
  // Script modules: <dir>/a/b.tsch, or a package folder <dir>/a/b/ with optional __init__.tsch.
  std::vector<std::string> roots;
  if (parent) {
    if (parent->file.empty()) raise_module_not_found(dotted);
    roots.push_back(fs::path(parent->file).parent_path().string());
  } else {
    roots = search_path(importer_dir);
  }
  std::error_code ec;
  for (const std::string& root : roots) {
    fs::path file = fs::path(root) / (leaf + ".tsch");
    fs::path package = fs::path(root) / leaf;
    fs::path init = package / "__init__.tsch";
    bool is_file = fs::is_regular_file(file, ec);
    bool is_package = !is_file && fs::is_directory(package, ec);
    if (!is_file && !is_package) continue;
    auto module = std::make_shared<Module>(dotted);
    module->file = is_file ? file.string() : init.string();
    loaded_[dotted] = module;
    module->globals->set(intern("__name__"), make_str(dotted));
    module->globals->set(intern("__file__"), make_str(module->file));
    if (is_package && !fs::is_regular_file(init, ec)) return module;  // namespace package
    std::ifstream in(module->file, std::ios::binary);
    if (!in) raise(ExcKind::ImportError, "cannot read module file '" + module->file + "'");
    std::stringstream text;
    text << in.rdbuf();
    loading_.push_back(dotted);
    try {
      const SourceFile* source = SourceFile::make(module->file, text.str());
      interp.exec_module(parse_module(source), module->globals);
    } catch (...) {
      loading_.pop_back();
      loaded_.erase(dotted);
      throw;
    }
    loading_.pop_back();
    return module;
  }
  raise_module_not_found(dotted);
}

}  // namespace tsch::script
