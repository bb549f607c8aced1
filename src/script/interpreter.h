// The tree-walking interpreter of the .tsch language, and the generic operations (calls,
// attributes, items, arithmetic, comparison, iteration, str/repr) that built-ins and
// bindings use so that every value behaves the same from C++ and from scripts.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "script/exceptions.h"
#include "script/object.h"
#include "syntax/ast.h"

namespace tsch::script {

class ModuleLoader;
struct Evaluator;

// Hooks other layers install to take over decorated definitions (the TVMScript front end
// turns `@T.prim_func def f(...)` into IR instead of a script function). `defining` is
// the evaluator of the scope the definition appears in (for TVMScript meta-programming).
struct DecoratorHook {
  // Returns true and sets `result` when the hook handles the decorated function definition.
  std::function<bool(Evaluator& defining, const Value& decorator, const ast::FunctionDef&, Value& result)> on_function;
  // For class decorators that build IR from the class body (@I.ir_module): called before the
  // body runs; what it returns stays alive until the decorators have been applied (a frame
  // the body's calls such as I.module_attrs record into). Null when not its decorator.
  std::function<std::shared_ptr<void>(Evaluator& defining, const Value& decorator, const ast::ClassDef&)> on_class;
};

class Interpreter {
 public:
  Interpreter();
  ~Interpreter();

  // ---- running code
  // Runs a parsed module in `globals`. Errors propagate as ScriptError / SyntaxError.
  void exec_module(const std::shared_ptr<ast::Module>& module, const NamespaceRef& globals, bool echo = false);
  // Runs text as the body of module `globals` (REPL input, -c); expression statements
  // echo their value when `echo` is set.
  void exec_source(const SourceFile* source, const NamespaceRef& globals, bool echo = false);
  NamespaceRef make_main_globals(const std::string& file);
  const NamespaceRef& builtins() const { return builtins_; }
  ModuleLoader& modules() { return *modules_; }

  // Set asynchronously (SIGINT); checked at loop back-edges and calls.
  std::atomic<bool> interrupt_requested{false};
  void check_interrupt();

  // Output of print(); tests may redirect it.
  std::function<void(const std::string&)> write_stdout;
  bool stdout_unflushed = false;  // written to a non-terminal stdout since the last flush

  // ---- generic operations
  Value call(const Value& callee, CallArgs args);
  Value call(const Value& callee, std::vector<Value> positional) {
    CallArgs a;
    a.positional = std::move(positional);
    return call(callee, std::move(a));
  }
  Value get_attr(const Value& obj, Symbol name);
  bool try_get_attr(const Value& obj, Symbol name, Value& out);
  void set_attr(const Value& obj, Symbol name, Value value);
  Value get_item(const Value& obj, const Value& key);
  void set_item(const Value& obj, const Value& key, Value value);
  void del_item(const Value& obj, const Value& key);

  Value binary_op(ast::BinOpKind op, const Value& a, const Value& b);
  // `augmented`: the operation of `a op= b`, which names `op=` in its TypeError.
  Value binary_op(ast::BinOpKind op, const Value& a, const Value& b, bool augmented);
  // `a op= b`: the type's in-place method (`__iadd__`, ...) when it has one, else binary_op.
  Value inplace_op(ast::BinOpKind op, const Value& a, const Value& b);
  Value unary_op(ast::UnaryOpKind op, const Value& a);
  bool compare(ast::CmpOpKind op, const Value& a, const Value& b);
  // A comparison as Python evaluates it: a type's rich comparison method (e.g. PrimExpr's,
  // which builds IR) decides the result; otherwise a bool.
  Value rich_compare(ast::CmpOpKind op, const Value& a, const Value& b);
  bool equals(const Value& a, const Value& b);
  bool less(const Value& a, const Value& b);
  bool contains(const Value& container, const Value& item);
  bool truthy(const Value& v);
  size_t hash(const Value& v);
  int64_t len(const Value& v);

  std::string str(const Value& v);
  std::string repr(const Value& v);

  std::shared_ptr<Iterator> iter(const Value& iterable);
  // Calls f for each item; stops early when f returns false.
  void for_each(const Value& iterable, const std::function<bool(const Value&)>& f);
  std::vector<Value> to_vector(const Value& iterable);

  // Script-visible type name ("int", "list", "Schedule") for messages.
  static std::string type_name(const Value& v);
  // Python's callable(v).
  static bool is_callable(const Value& v);

  // Registration point for front ends (see DecoratorHook); shared by all interpreters.
  static std::vector<DecoratorHook>& decorator_hooks();

  // Expires when this interpreter is destroyed: callbacks that can outlive their script (a
  // function in the process-wide registry) check it before calling back.
  std::weak_ptr<const void> lifetime() const { return alive_; }

  // Current call depth (RecursionError past max_depth).
  int depth() const { return depth_; }
  static constexpr int kMaxDepth = 1000;

  // Name of the function whose body is running ("<module>" at top level).
  const std::string& current_function() const { return function_names_.back(); }

 private:
  friend class Frame;
  friend struct Evaluator;
  NamespaceRef builtins_;
  std::unique_ptr<ModuleLoader> modules_;
  int depth_ = 0;
  std::vector<std::string> function_names_{"<module>"};
  std::vector<std::vector<Value>> repr_stack_;  // guards repr of self-containing lists
  std::shared_ptr<const int> alive_ = std::make_shared<const int>(0);

 public:
  // Used by the evaluator: call a script function.
  Value call_function(Function& fn, CallArgs& args);
  void push_function_name(const std::string& n) { function_names_.push_back(n); }
  void pop_function_name() { function_names_.pop_back(); }
  bool repr_enter(const Value& v);
  void repr_leave();
};

// The NotImplemented singleton (returned by binary dunders that do not apply).
Value not_implemented_value();

// A Python-style message for a failed call binding: "f() takes 2 positional arguments but 3
// were given", raised as TypeError.
[[noreturn]] void raise_type_error(const std::string& message);

}  // namespace tsch::script
