// Statement execution and script function calls (module runs and imports: exec_module.cc).
#include <fmt/format.h>

#include <filesystem>

#include "script/evaluator.h"
#include "script/modules.h"
#include "script/suggestions.h"
#include "script/types.h"
#include "support/checked_size.h"
#include "support/stack_guard.h"
#include "syntax/parser.h"

namespace tsch::script {

using namespace ast;

std::vector<std::shared_ptr<ScriptError>>& handled_exceptions() {
  static thread_local std::vector<std::shared_ptr<ScriptError>> stack;
  return stack;
}

Flow Evaluator::exec_body(const Body& body) {
  for (const auto& stmt : body) {
    Flow f = exec(*stmt);
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

void Evaluator::store_name(Symbol name, const Value& value) {
  if (const FunctionDef* fn = scope.function) {
    for (Symbol g : fn->global_names) {
      if (g == name) {
        scope.globals->set(name, value);
        return;
      }
    }
    for (Symbol n : fn->nonlocal_names) {
      if (n != name) continue;
      for (const auto& ns : scope.enclosing) {
        if (ns->find(name)) {
          ns->set(name, value);
          return;
        }
      }
      raise(ExcKind::NameError, fmt::format("no binding for nonlocal '{}' found", symbol_name(name)));
    }
  }
  scope.locals->set(name, value);
}

void Evaluator::assign(const Expr& target, const Value& value) {
  switch (target.kind) {
    case ExprKind::Name:
      store_name(static_cast<const Name&>(target).id, value);
      return;
    case ExprKind::Attribute: {
      const auto& a = static_cast<const Attribute&>(target);
      Value obj = eval(*a.value);
      try {
        interp.set_attr(obj, a.attr, value);
      } catch (ScriptError& e) {
        if (!e.pending.valid()) e.pending = a.loc;
        throw;
      }
      return;
    }
    case ExprKind::Subscript: {
      const auto& s = static_cast<const Subscript&>(target);
      Value obj = eval(*s.value);
      Value key = eval_index(*s.index);
      try {
        interp.set_item(obj, key, value);
      } catch (ScriptError& e) {
        if (!e.pending.valid()) e.pending = s.loc;
        throw;
      }
      return;
    }
    case ExprKind::Tuple:
    case ExprKind::List: {
      const auto& elts = target.kind == ExprKind::Tuple ? static_cast<const ast::Tuple&>(target).elts
                                                        : static_cast<const ast::List&>(target).elts;
      std::vector<Value> items;
      try {
        items = interp.to_vector(value);
      } catch (ScriptError& e) {
        if (e.exception.type()->is_subtype_of(exception_type(ExcKind::TypeError)) && !e.pending.valid()) {
          raise_at(ExcKind::TypeError, "cannot unpack non-iterable " + Interpreter::type_name(value) + " object",
                   target.loc);
        }
        throw;
      }
      size_t star = elts.size();
      for (size_t i = 0; i < elts.size(); ++i) {
        if (elts[i]->kind == ExprKind::Starred) star = i;
      }
      if (star == elts.size()) {
        if (items.size() != elts.size()) {
          std::string message =
              items.size() > elts.size()
                  ? fmt::format("too many values to unpack (expected {})", elts.size())
                  : fmt::format("not enough values to unpack (expected {}, got {})", elts.size(), items.size());
          raise_at(ExcKind::ValueError, message, target.loc);
        }
        for (size_t i = 0; i < elts.size(); ++i) assign(*elts[i], items[i]);
        return;
      }
      size_t after = elts.size() - star - 1;
      if (items.size() < star + after) {
        raise_at(ExcKind::ValueError,
                 fmt::format("not enough values to unpack (expected at least {}, got {})", star + after, items.size()),
                 target.loc);
      }
      for (size_t i = 0; i < star; ++i) assign(*elts[i], items[i]);
      std::vector<Value> middle(items.begin() + static_cast<long>(star), items.end() - static_cast<long>(after));
      assign(*static_cast<const Starred&>(*elts[star]).value, make_list(std::move(middle)));
      for (size_t i = 0; i < after; ++i) assign(*elts[star + 1 + i], items[items.size() - after + i]);
      return;
    }
    case ExprKind::Starred:
      assign(*static_cast<const Starred&>(target).value, make_list(interp.to_vector(value)));
      return;
    default:
      raise_at(ExcKind::TypeError, "cannot assign to this expression", target.loc);
  }
}

void Evaluator::delete_target(const Expr& target) {
  switch (target.kind) {
    case ExprKind::Name: {
      Symbol id = static_cast<const Name&>(target).id;
      if (!scope.locals->erase(id)) {
        std::vector<std::string> candidates;
        for (const auto& [k, v] : scope.locals->values()) candidates.push_back(symbol_name(k));
        raise_name_error(symbol_name(id), candidates, false, &target.loc);
      }
      return;
    }
    case ExprKind::Subscript: {
      const auto& s = static_cast<const Subscript&>(target);
      Value obj = eval(*s.value);
      interp.del_item(obj, eval_index(*s.index));
      return;
    }
    case ExprKind::Attribute: {
      const auto& a = static_cast<const Attribute&>(target);
      Value obj = eval(*a.value);
      if (auto* inst = obj.as<Instance>(); inst && inst->attrs().erase(a.attr)) return;
      raise_attribute_error(
          fmt::format("'{}' object has no attribute '{}'", Interpreter::type_name(obj), symbol_name(a.attr)), obj,
          symbol_name(a.attr), &a.loc);
    }
    case ExprKind::Tuple:
      for (const auto& e : static_cast<const ast::Tuple&>(target).elts) delete_target(*e);
      return;
    case ExprKind::List:
      for (const auto& e : static_cast<const ast::List&>(target).elts) delete_target(*e);
      return;
    default:
      raise_at(ExcKind::TypeError, "cannot delete this expression", target.loc);
  }
}

Flow Evaluator::exec(const Stmt& s) {
  if (interp.stdout_unflushed) {
    interp.stdout_unflushed = false;
    std::fflush(stdout);
  }
  try {
    switch (s.kind) {
      case StmtKind::Expr: {
        Value v = eval(*static_cast<const ExprStmt&>(s).value);
        if (scope.echo && !v.is_none()) interp.write_stdout(interp.repr(v) + "\n");
        return Flow::Normal;
      }
      case StmtKind::Assign: {
        const auto& a = static_cast<const Assign&>(s);
        Value v = eval(*a.value);
        for (const auto& target : a.targets) assign(*target, v);
        return Flow::Normal;
      }
      case StmtKind::AugAssign: {
        const auto& a = static_cast<const AugAssign&>(s);
        // Evaluate the target's container once, as Python does for a[i] += x.
        Value result;
        auto combine = [&](const Value& current) {
          Value rhs = eval(*a.value);
          try {
            // Lists extend in place, like list.__iadd__.
            if (auto* l = current.as<script::List>(); l && a.op == BinOpKind::Add) {
              std::vector<Value> more = interp.to_vector(rhs);
              l->items.insert(l->items.end(), more.begin(), more.end());
              return current;
            }
            return interp.inplace_op(a.op, current, rhs);
          } catch (ScriptError& e) {
            if (!e.pending.valid()) e.pending = a.op_loc;
            throw;
          }
        };
        if (a.target->kind == ExprKind::Name) {
          Value current = eval(*a.target);
          store_name(static_cast<const Name&>(*a.target).id, combine(current));
        } else if (a.target->kind == ExprKind::Attribute) {
          const auto& t = static_cast<const Attribute&>(*a.target);
          Value obj = eval(*t.value);
          Value current = interp.get_attr(obj, t.attr);
          interp.set_attr(obj, t.attr, combine(current));
        } else {
          const auto& t = static_cast<const Subscript&>(*a.target);
          Value obj = eval(*t.value);
          Value key = eval_index(*t.index);
          Value current;
          try {
            current = interp.get_item(obj, key);
          } catch (ScriptError& e) {
            if (!e.pending.valid()) e.pending = t.loc;
            throw;
          }
          interp.set_item(obj, key, combine(current));
        }
        return Flow::Normal;
      }
      case StmtKind::AnnAssign: {
        const auto& a = static_cast<const AnnAssign&>(s);
        // Annotations are not evaluated (as with `from __future__ import annotations`).
        if (a.value) assign(*a.target, eval(*a.value));
        return Flow::Normal;
      }
      case StmtKind::Return: {
        if (scope.is_module || scope.is_class_body) raise(ExcKind::RuntimeError, "'return' outside function");
        const auto& r = static_cast<const Return&>(s);
        return_value = r.value ? eval(*r.value) : Value();
        return Flow::Return;
      }
      case StmtKind::If: {
        const auto& i = static_cast<const If&>(s);
        return interp.truthy(eval(*i.test)) ? exec_body(i.body) : exec_body(i.orelse);
      }
      case StmtKind::For:
        return exec_for(static_cast<const For&>(s));
      case StmtKind::While:
        return exec_while(static_cast<const While&>(s));
      case StmtKind::Break:
        return Flow::Break;
      case StmtKind::Continue:
        return Flow::Continue;
      case StmtKind::Pass:
      case StmtKind::Global:
      case StmtKind::Nonlocal:
        return Flow::Normal;
      case StmtKind::FunctionDef:
        exec_def(static_cast<const FunctionDef&>(s));
        return Flow::Normal;
      case StmtKind::ClassDef:
        exec_class(static_cast<const ClassDef&>(s));
        return Flow::Normal;
      case StmtKind::Import:
        exec_import(static_cast<const Import&>(s));
        return Flow::Normal;
      case StmtKind::ImportFrom:
        exec_import_from(static_cast<const ImportFrom&>(s));
        return Flow::Normal;
      case StmtKind::Try:
        return exec_try(static_cast<const Try&>(s));
      case StmtKind::Raise:
        exec_raise(static_cast<const Raise&>(s));
        return Flow::Normal;
      case StmtKind::With:
        return exec_with(static_cast<const With&>(s));
      case StmtKind::Assert: {
        const auto& a = static_cast<const Assert&>(s);
        if (!interp.truthy(eval(*a.test))) {
          std::vector<Value> args;
          if (a.msg) args.push_back(eval(*a.msg));
          ScriptError e(make_exception(exception_type(ExcKind::AssertionError), std::move(args)));
          e.pending = a.test->loc;
          throw e;
        }
        return Flow::Normal;
      }
      case StmtKind::Delete:
        for (const auto& t : static_cast<const Delete&>(s).targets) delete_target(*t);
        return Flow::Normal;
    }
  } catch (ScriptError& e) {
    if (!e.pending.valid()) e.pending = s.loc;
    throw;
  } catch (const SizeOverflow& e) {
    raise_at(ExcKind::ValueError, e.what(), s.loc);
  } catch (const OutOfMemory& e) {
    raise_at(ExcKind::MemoryError, e.what(), s.loc);
  } catch (const std::bad_alloc&) {
    raise_at(ExcKind::MemoryError, "out of memory", s.loc);
  }
  return Flow::Normal;
}

Flow Evaluator::exec_for(const For& s) {
  Value iterable = eval(*s.iter);
  Flow result = Flow::Normal;
  bool broke = false;
  auto body = [&](const Value& item) {
    interp.check_interrupt();
    assign(*s.target, item);
    Flow f = exec_body(s.body);
    if (f == Flow::Break) {
      broke = true;
      return false;
    }
    if (f == Flow::Return) {
      result = Flow::Return;
      return false;
    }
    return true;
  };
  std::shared_ptr<Iterator> it;
  try {
    it = interp.iter(iterable);
  } catch (ScriptError& e) {
    if (!e.pending.valid()) e.pending = s.iter->loc;
    throw;
  }
  Value item;
  while (it->next(interp, item)) {
    if (!body(item)) break;
  }
  if (result == Flow::Return) return result;
  if (!broke) return exec_body(s.orelse);
  return Flow::Normal;
}

Flow Evaluator::exec_while(const While& s) {
  while (interp.truthy(eval(*s.test))) {
    interp.check_interrupt();
    Flow f = exec_body(s.body);
    if (f == Flow::Break) return Flow::Normal;
    if (f == Flow::Return) return f;
  }
  return exec_body(s.orelse);
}

Flow Evaluator::exec_try(const Try& s) {
  Flow flow = Flow::Normal;
  std::exception_ptr pending;
  try {
    bool raised = false;
    try {
      flow = exec_body(s.body);
    } catch (ScriptError& error) {
      raised = true;
      Value exc = error.exception;
      const ExceptHandler* chosen = nullptr;
      for (const auto& handler : s.handlers) {
        if (!handler.type) {
          chosen = &handler;
          break;
        }
        Value types = eval(*handler.type);
        std::vector<Value> candidates =
            types.as<script::Tuple>() ? types.as<script::Tuple>()->items : std::vector<Value>{types};
        for (const auto& c : candidates) {
          auto* cls = c.as<TypeObject>();
          if (!cls || !cls->is_exception) {
            raise_at(ExcKind::TypeError, "catching classes that do not inherit from BaseException is not allowed",
                     handler.type->loc);
          }
          if (exc.type()->is_subtype_of(cls)) chosen = &handler;
        }
        if (chosen) break;
      }
      if (!chosen) throw;
      handled_exceptions().push_back(std::make_shared<ScriptError>(error));
      try {
        if (chosen->has_name) store_name(chosen->name, exc);
        flow = exec_body(chosen->body);
      } catch (...) {
        handled_exceptions().pop_back();
        throw;
      }
      handled_exceptions().pop_back();
    }
    if (!raised && flow == Flow::Normal) flow = exec_body(s.orelse);
  } catch (ScriptError&) {
    if (s.finalbody.empty()) throw;
    pending = std::current_exception();
  }
  if (!s.finalbody.empty()) {
    Value saved = return_value;
    Flow f = exec_body(s.finalbody);
    if (f != Flow::Normal) return f;  // return/break/continue in finally drops the error
    return_value = saved;
  }
  if (pending) std::rethrow_exception(pending);
  return flow;
}

Flow Evaluator::exec_with(const With& s) {
  // Nested items behave like nested with statements.
  std::function<Flow(size_t)> run = [&](size_t index) -> Flow {
    if (index == s.items.size()) return exec_body(s.body);
    const WithItem& item = s.items[index];
    Value manager = eval(*item.context);
    Value exit_method;
    if (!interp.try_get_attr(manager, intern("__exit__"), exit_method)) {
      raise_at(
          ExcKind::TypeError,
          fmt::format("'{}' object does not support the context manager protocol", Interpreter::type_name(manager)),
          item.context->loc);
    }
    Value entered = interp.call(interp.get_attr(manager, intern("__enter__")), std::vector<Value>{});
    if (item.target) assign(*item.target, entered);
    Flow f;
    try {
      f = run(index + 1);
    } catch (ScriptError& error) {
      Value exc = error.exception;
      Value suppress =
          interp.call(exit_method, std::vector<Value>{Value(exc.type()->shared_from_this()), exc, Value()});
      if (interp.truthy(suppress)) return Flow::Normal;
      throw;
    }
    interp.call(exit_method, std::vector<Value>{Value(), Value(), Value()});
    return f;
  };
  return run(0);
}

void Evaluator::exec_raise(const Raise& s) {
  if (!s.exc) {
    if (handled_exceptions().empty()) raise_at(ExcKind::RuntimeError, "No active exception to reraise", s.loc);
    throw ScriptError(*handled_exceptions().back());
  }
  Value exc = eval(*s.exc);
  if (auto* cls = exc.as<TypeObject>()) {
    if (!cls->is_exception) raise_at(ExcKind::TypeError, "exceptions must derive from BaseException", s.exc->loc);
    exc = interp.call(exc, std::vector<Value>{});
  }
  if (!exc.is_object() || !exc.type()->is_exception) {
    raise_at(ExcKind::TypeError, "exceptions must derive from BaseException", s.exc->loc);
  }
  if (s.cause) {
    Value cause = eval(*s.cause);
    exc.as<Instance>()->attrs().set(intern("__cause__"), cause);
  }
  ScriptError error(exc);
  error.pending = s.exc->loc;
  throw error;
}

void Evaluator::exec_def(const FunctionDef& s) {
  // Decorators are evaluated before the function is created and applied innermost first.
  std::vector<Value> decorators;
  for (const auto& d : s.decorators) decorators.push_back(eval(*d));
  Value fn;
  bool handled = false;
  if (!decorators.empty()) {
    for (auto& hook : interp.decorator_hooks()) {
      if (hook.on_function && hook.on_function(*this, decorators.back(), s, fn)) {
        handled = true;
        decorators.pop_back();
        break;
      }
    }
  }
  if (!handled) {
    fn = make_function(symbol_name(s.name), s.params, &s, nullptr);
    if (!scope.is_module) {
      auto* f = fn.as<Function>();
      f->qualname = scope.is_class_body ? scope.qualname_prefix + f->name : scope.qualname_prefix + f->name;
    }
  }
  for (size_t i = decorators.size(); i-- > 0;) {
    try {
      fn = interp.call(decorators[i], std::vector<Value>{fn});
    } catch (ScriptError& e) {
      if (!e.pending.valid()) e.pending = s.decorators[i]->loc;
      throw;
    }
  }
  store_name(s.name, fn);
}

// Python's type.__new__ ends with super(cls, cls).__init_subclass__(**kwargs): the first
// definition after the new class in its MRO runs, implicitly a classmethod; object's own
// accepts no keywords.
void Evaluator::init_subclass(const TypeRef& cls, CallArgs kwargs, SourceLoc loc) {
  static const Symbol kInitSubclass = intern("__init_subclass__");
  const auto& mro = cls->mro();
  for (size_t i = 1; i < mro.size(); ++i) {
    Value* hook = mro[i]->dict().find(kInitSubclass);
    if (!hook) continue;
    Value fn = *hook;
    if (auto* cm = fn.as<ClassMethod>()) fn = cm->func;
    if (auto* sm = fn.as<StaticMethod>()) {
      fn = sm->func;
    } else {
      kwargs.positional.insert(kwargs.positional.begin(), Value(cls));
    }
    try {
      interp.call(fn, std::move(kwargs));
    } catch (ScriptError& e) {
      if (!e.pending.valid()) e.pending = loc;
      throw;
    }
    return;
  }
  if (!kwargs.keywords.empty())
    raise_at(ExcKind::TypeError, cls->name() + ".__init_subclass__() takes no keyword arguments", loc);
}

void Evaluator::exec_class(const ClassDef& s) {
  std::vector<Value> decorators;
  for (const auto& d : s.decorators) decorators.push_back(eval(*d));
  std::vector<TypeRef> bases;
  CallArgs class_kwargs;  // `class C(Base, key=value)`: passed to the bases' __init_subclass__
  for (const auto& arg : s.bases) {
    if (arg.kind == Arg::Kind::Keyword) {
      if (symbol_name(arg.name) == "metaclass") raise_at(ExcKind::TypeError, "not supported yet: metaclasses", arg.loc);
      class_kwargs.keywords.emplace_back(arg.name, eval(*arg.value));
      continue;
    }
    if (arg.kind != Arg::Kind::Positional)
      raise_at(ExcKind::TypeError, "not supported yet: * and ** in class bases", arg.loc);
    Value base = eval(*arg.value);
    auto cls = base.as_ref<TypeObject>();
    if (!cls)
      raise_at(ExcKind::TypeError, "class bases must be classes, not " + Interpreter::type_name(base), arg.value->loc);
    bases.push_back(cls);
  }
  if (bases.empty()) bases.push_back(builtin_types().object);
  std::vector<std::shared_ptr<void>> frames;
  for (const Value& d : decorators) {
    for (auto& hook : interp.decorator_hooks()) {
      if (!hook.on_class) continue;
      if (auto frame = hook.on_class(*this, d, s)) frames.push_back(std::move(frame));
    }
  }
  std::string name = symbol_name(s.name);
  Scope body_scope;
  body_scope.locals = std::make_shared<Namespace>();
  body_scope.globals = scope.globals;
  if (!scope.is_module && !scope.is_class_body) body_scope.enclosing.push_back(scope.locals);
  body_scope.enclosing.insert(body_scope.enclosing.end(), scope.enclosing.begin(), scope.enclosing.end());
  body_scope.is_class_body = true;
  body_scope.owner = scope.owner;
  body_scope.qualname_prefix = scope.qualname_prefix + name + ".";
  Evaluator body(interp, body_scope);
  body.exec_body(s.body);
  auto cls = std::make_shared<TypeObject>(name, std::move(bases));
  cls->is_builtin = false;
  for (const auto& [k, v] : body_scope.locals->values()) cls->dict().set(k, v);
  Value result(cls);
  init_subclass(cls, class_kwargs, s.loc);
  for (size_t i = decorators.size(); i-- > 0;) {
    try {
      result = interp.call(decorators[i], std::vector<Value>{result});
    } catch (ScriptError& e) {
      if (!e.pending.valid()) e.pending = s.decorators[i]->loc;
      throw;
    }
  }
  store_name(s.name, result);
}

// ---------------------------------------------------------------------------- functions

Value Interpreter::call_function(Function& fn, CallArgs& args) {
  const auto& params = *fn.params;
  auto locals = std::make_shared<Namespace>();
  // Step 1: bind arguments to parameters, with Python's error messages.
  std::vector<bool> bound(params.size(), false);
  size_t next_positional = 0;
  std::vector<Value> extra_positional;
  bool keyword_only = false;
  size_t positional_count = 0;
  int varargs = -1, varkw = -1;
  for (size_t i = 0; i < params.size(); ++i) {
    switch (params[i].kind) {
      case ast::Param::Kind::Normal:
        if (!keyword_only) ++positional_count;
        break;
      case ast::Param::Kind::VarArgs:
        varargs = static_cast<int>(i);
        keyword_only = true;
        break;
      case ast::Param::Kind::KwOnlyMarker:
        keyword_only = true;
        break;
      case ast::Param::Kind::VarKw:
        varkw = static_cast<int>(i);
        break;
      case ast::Param::Kind::PosOnlyMarker:
        break;
    }
  }
  // Python 3.10+ names the function by its qualified name: "Shape.make() missing ...".
  const std::string& name = fn.qualname.empty() ? fn.name : fn.qualname;
  for (auto& value : args.positional) {
    while (next_positional < params.size() && params[next_positional].kind != ast::Param::Kind::Normal) {
      if (params[next_positional].kind == ast::Param::Kind::VarArgs ||
          params[next_positional].kind == ast::Param::Kind::KwOnlyMarker) {
        next_positional = params.size();
        break;
      }
      ++next_positional;
    }
    if (next_positional < params.size()) {
      locals->set(params[next_positional].name, value);
      bound[next_positional] = true;
      ++next_positional;
    } else if (varargs >= 0) {
      extra_positional.push_back(value);
    } else {
      raise_type_error(fmt::format("{}() takes {} positional argument{} but {} {} given", name, positional_count,
                                   positional_count == 1 ? "" : "s", args.positional.size(),
                                   args.positional.size() == 1 ? "was" : "were"));
    }
  }
  std::shared_ptr<Dict> kwargs;
  if (varkw >= 0) kwargs = std::make_shared<Dict>();
  for (auto& [key, value] : args.keywords) {
    bool matched = false;
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].kind != ast::Param::Kind::Normal || params[i].name != key) continue;
      if (bound[i]) raise_type_error(fmt::format("{}() got multiple values for argument '{}'", name, symbol_name(key)));
      locals->set(key, value);
      bound[i] = true;
      matched = true;
      break;
    }
    if (matched) continue;
    if (!kwargs) {
      std::vector<std::string> names;
      for (const auto& p : params) {
        if (p.kind == ast::Param::Kind::Normal) names.push_back(symbol_name(p.name));
      }
      raise_type_error(unexpected_keyword_message(name, symbol_name(key), names));
    }
    kwargs->set(*this, make_str(symbol_name(key)), value);
  }
  // Python reports missing positional parameters first, then keyword-only ones.
  std::vector<std::string> missing, missing_keyword_only;
  bool after_star = false;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind == ast::Param::Kind::VarArgs || params[i].kind == ast::Param::Kind::KwOnlyMarker)
      after_star = true;
    if (params[i].kind != ast::Param::Kind::Normal || bound[i]) continue;
    if (fn.has_default[i]) {
      locals->set(params[i].name, fn.defaults[i]);
    } else {
      (after_star ? missing_keyword_only : missing).push_back("'" + symbol_name(params[i].name) + "'");
    }
  }
  for (const auto* list : {&missing, &missing_keyword_only}) {
    if (list->empty()) continue;
    std::string names;
    for (size_t i = 0; i < list->size(); ++i) {
      if (i > 0) names += (i + 1 == list->size()) ? (list->size() > 2 ? ", and " : " and ") : ", ";
      names += (*list)[i];
    }
    raise_type_error(fmt::format("{}() missing {} required {} argument{}: {}", name, list->size(),
                                 list == &missing ? "positional" : "keyword-only", list->size() == 1 ? "" : "s",
                                 names));
  }
  if (varargs >= 0) locals->set(params[static_cast<size_t>(varargs)].name, make_tuple(std::move(extra_positional)));
  if (varkw >= 0) locals->set(params[static_cast<size_t>(varkw)].name, Value(kwargs));

  // Step 2: run the body in a fresh scope.
  if (depth_ >= kMaxDepth || stack_nearly_exhausted())
    raise(ExcKind::RecursionError, "maximum recursion depth exceeded");
  Scope scope;
  scope.locals = std::move(locals);
  scope.globals = fn.globals;
  scope.enclosing = fn.enclosing;
  scope.function = fn.def;
  scope.owner = fn.owner;
  scope.qualname_prefix = fn.qualname + ".<locals>.";
  Evaluator evaluator(*this, scope);
  ++depth_;
  function_names_.push_back(fn.qualname);
  try {
    Value result;
    if (fn.lambda) {
      result = evaluator.eval(*fn.lambda->body);
    } else {
      evaluator.exec_body(fn.def->body);
      result = evaluator.return_value;
    }
    --depth_;
    function_names_.pop_back();
    return result;
  } catch (ScriptError& e) {
    --depth_;
    function_names_.pop_back();
    e.traceback.push_back(TracebackEntry{e.pending, fn.qualname});
    e.pending = SourceLoc{};
    throw;
  } catch (...) {
    --depth_;
    function_names_.pop_back();
    throw;
  }
}

}  // namespace tsch::script
