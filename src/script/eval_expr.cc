// Expression evaluation.
#include <fmt/format.h>

#include "script/evaluator.h"
#include "script/format.h"
#include "script/sets.h"
#include "script/types.h"
#include "support/stack_guard.h"

namespace tsch::script {

using namespace ast;

namespace {

class EllipsisObject : public Object {
 public:
  TypeObject* type() const override { return builtin_types().ellipsis.get(); }
  std::string repr_hook(Interpreter&) override { return "Ellipsis"; }
};

}  // namespace

namespace {

// IR-building values combine logically through these methods instead of Python truthiness.
bool ir_method(const Value& v, const char* name, Value& out) {
  if (!v.is_object()) return false;
  Value* m = v.type()->lookup(intern(name));
  if (!m) return false;
  out = *m;
  return true;
}

}  // namespace

Value ellipsis_value() {
  static Value v(std::make_shared<EllipsisObject>());
  return v;
}

Value Evaluator::eval(const Expr& e) {
  try {
    if (stack_nearly_exhausted()) raise(ExcKind::RecursionError, "maximum recursion depth exceeded during evaluation");
    return eval_inner(e);
  } catch (ScriptError& error) {
    // The innermost expression that saw the error is where the caret goes.
    if (!error.pending.valid()) error.pending = e.loc;
    throw;
  }
}

Value Evaluator::lookup(const Name& n) {
  if (Value* v = scope.locals->find(n.id)) return *v;
  for (const auto& ns : scope.enclosing) {
    if (Value* v = ns->find(n.id)) return *v;
  }
  if (!scope.is_module) {
    if (Value* v = scope.globals->find(n.id)) return *v;
  }
  if (Value* v = interp.builtins()->find(n.id)) return *v;
  // CPython's candidates: the frame's locals, globals and builtins (here also the enclosing
  // scopes, which CPython's locals include as free variables).
  std::vector<std::string> candidates;
  auto add = [&](const Namespace& ns) {
    for (const auto& [k, v] : ns.values()) candidates.push_back(symbol_name(k));
  };
  add(*scope.locals);
  for (const auto& ns : scope.enclosing) add(*ns);
  if (!scope.is_module) add(*scope.globals);
  add(*interp.builtins());
  Value ignored;
  Value* self = scope.is_module ? nullptr : scope.locals->find(intern("self"));
  raise_name_error(symbol_name(n.id), candidates, self && interp.try_get_attr(*self, n.id, ignored));
}

std::vector<Value> Evaluator::eval_sequence(const std::vector<ExprPtr>& elts) {
  std::vector<Value> out;
  out.reserve(elts.size());
  for (const auto& e : elts) {
    if (e->kind == ExprKind::Starred) {
      std::vector<Value> more = interp.to_vector(eval(*static_cast<const Starred&>(*e).value));
      out.insert(out.end(), more.begin(), more.end());
    } else {
      out.push_back(eval(*e));
    }
  }
  return out;
}

Value Evaluator::eval_index(const Expr& e) {
  if (e.kind == ExprKind::Slice) {
    const auto& s = static_cast<const Slice&>(e);
    auto slice = std::make_shared<SliceObject>();
    if (s.lower) slice->start = eval(*s.lower);
    if (s.upper) slice->stop = eval(*s.upper);
    if (s.step) slice->step = eval(*s.step);
    return Value(slice);
  }
  if (e.kind == ExprKind::Tuple && !static_cast<const ast::Tuple&>(e).parenthesized) {
    std::vector<Value> items;
    for (const auto& elt : static_cast<const ast::Tuple&>(e).elts) items.push_back(eval_index(*elt));
    return make_tuple(std::move(items));
  }
  return eval(e);
}

Value Evaluator::eval_inner(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
      return lookup(static_cast<const Name&>(e));
    case ExprKind::Constant: {
      const auto& c = static_cast<const Constant&>(e);
      switch (c.type) {
        case Constant::Type::None:
          return Value();
        case Constant::Type::Bool:
          return Value::boolean(c.bool_value);
        case Constant::Type::Int:
          if (!c.str_value.empty())
            raise(ExcKind::OverflowError, "integer literal too large: tsch integers are 64-bit");
          return Value::integer(c.int_value);
        case Constant::Type::Float:
          return Value::real(c.float_value);
        case Constant::Type::Str:
        case Constant::Type::Bytes:
          return make_str(c.str_value);
        case Constant::Type::Ellipsis:
          return ellipsis_value();
      }
      return Value();
    }
    case ExprKind::FString:
      return eval_fstring(static_cast<const FString&>(e));
    case ExprKind::List:
      return make_list(eval_sequence(static_cast<const ast::List&>(e).elts));
    case ExprKind::Tuple:
      return make_tuple(eval_sequence(static_cast<const ast::Tuple&>(e).elts));
    case ExprKind::Dict: {
      const auto& d = static_cast<const ast::Dict&>(e);
      auto dict = std::make_shared<script::Dict>();
      for (size_t i = 0; i < d.keys.size(); ++i) {
        if (!d.keys[i]) {
          Value other = eval(*d.values[i]);
          auto* src = other.as<script::Dict>();
          if (!src) raise(ExcKind::TypeError, "'" + Interpreter::type_name(other) + "' object is not a mapping");
          for (auto& [k, v] : src->items()) dict->set(interp, k, v);
          continue;
        }
        Value key = eval(*d.keys[i]);
        dict->set(interp, key, eval(*d.values[i]));
      }
      return Value(dict);
    }
    case ExprKind::Set:
      return eval_set_display(static_cast<const ast::Set&>(e));
    case ExprKind::SetComp:
      return eval_set_comp(static_cast<const SetComp&>(e));
    case ExprKind::ListComp:
      return eval_list_comp(static_cast<const ListComp&>(e));
    case ExprKind::DictComp:
      return eval_dict_comp(static_cast<const DictComp&>(e));
    case ExprKind::Attribute: {
      const auto& a = static_cast<const Attribute&>(e);
      Value obj = eval(*a.value);
      return interp.get_attr(obj, a.attr);
    }
    case ExprKind::Subscript: {
      const auto& s = static_cast<const Subscript&>(e);
      Value obj = eval(*s.value);
      Value key = eval_index(*s.index);
      return interp.get_item(obj, key);
    }
    case ExprKind::Slice:
      return eval_index(e);
    case ExprKind::Call:
      return eval_call(static_cast<const Call&>(e));
    case ExprKind::BinOp: {
      const auto& b = static_cast<const BinOp&>(e);
      Value left = eval(*b.left);
      Value right = eval(*b.right);
      return interp.binary_op(b.op, left, right);
    }
    case ExprKind::UnaryOp: {
      const auto& u = static_cast<const UnaryOp&>(e);
      Value operand = eval(*u.operand);
      Value method;
      if (u.op == UnaryOpKind::Not && tvmscript && ir_method(operand, "__tsch_not__", method)) {
        return interp.call(method, std::vector<Value>{operand});
      }
      return interp.unary_op(u.op, operand);
    }
    case ExprKind::BoolOp: {
      const auto& b = static_cast<const BoolOp&>(e);
      const char* combine = b.is_and ? "__tsch_and__" : "__tsch_or__";
      Value v;
      for (size_t i = 0; i < b.values.size(); ++i) {
        Value next = eval(*b.values[i]);
        Value method;
        if (!tvmscript) {
          v = next;
          if (interp.truthy(v) != b.is_and) return v;
          continue;
        }
        if (i > 0 && ir_method(v, combine, method)) {
          v = interp.call(method, std::vector<Value>{v, next});
          continue;
        }
        if (i > 0 && ir_method(next, combine, method)) {
          v = interp.call(method, std::vector<Value>{next, v});
          continue;
        }
        v = next;
        if (ir_method(v, combine, method)) continue;
        if (interp.truthy(v) != b.is_and) return v;
      }
      return v;
    }
    case ExprKind::Compare:
      return eval_compare(static_cast<const Compare&>(e));
    case ExprKind::IfExp: {
      const auto& i = static_cast<const IfExp&>(e);
      Value test = eval(*i.test);
      Value method;
      if (tvmscript && ir_method(test, "__tsch_select__", method)) {
        Value t = eval(*i.body);
        Value f = eval(*i.orelse);
        return interp.call(method, std::vector<Value>{test, t, f});
      }
      return interp.truthy(test) ? eval(*i.body) : eval(*i.orelse);
    }
    case ExprKind::Lambda: {
      const auto& l = static_cast<const Lambda&>(e);
      return make_function("<lambda>", l.params, nullptr, &l);
    }
    case ExprKind::Starred:
      raise(ExcKind::TypeError, "can't use starred expression here");
  }
  return Value();
}

Value Evaluator::eval_compare(const Compare& c) {
  Value left = eval(*c.left);
  Value result;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    Value right = eval(*c.comparators[i]);
    Value r;
    Value written;
    try {
      if (tvmscript && left.is_number() && c.ops[i] <= CmpOpKind::NotEq &&
          ir_method(right, "__tsch_rcompare__", written)) {
        r = interp.call(written, std::vector<Value>{right, left, make_str(cmpop_symbol(c.ops[i]))});
      } else {
        r = interp.rich_compare(c.ops[i], left, right);
      }
    } catch (ScriptError& error) {
      if (!error.pending.valid()) error.pending = c.op_locs[i];
      throw;
    }
    Value method;
    if (i == 0) {
      result = r;
    } else if (tvmscript && ir_method(result, "__tsch_and__", method)) {
      result = interp.call(method, std::vector<Value>{result, r});
    } else {
      result = r;
    }
    // Chains stop at the first false link; the last result is returned as is (an array of
    // bools from numpy, for instance, is never asked for its truth value).
    if (i + 1 < c.ops.size() && !(tvmscript && ir_method(result, "__tsch_and__", method)) && !interp.truthy(result))
      return result;
    left = std::move(right);
  }
  return result;
}

void Evaluator::eval_args(const std::vector<Arg>& args, CallArgs& out) {
  for (const auto& arg : args) {
    switch (arg.kind) {
      case Arg::Kind::Positional:
        out.positional.push_back(eval(*arg.value));
        break;
      case Arg::Kind::Keyword:
        out.keywords.emplace_back(arg.name, eval(*arg.value));
        break;
      case Arg::Kind::Star: {
        std::vector<Value> more = interp.to_vector(eval(*arg.value));
        out.positional.insert(out.positional.end(), more.begin(), more.end());
        break;
      }
      case Arg::Kind::DoubleStar: {
        Value mapping = eval(*arg.value);
        auto* d = mapping.as<script::Dict>();
        if (!d)
          raise(ExcKind::TypeError, "argument after ** must be a mapping, not " + Interpreter::type_name(mapping));
        for (auto& [k, v] : d->items()) {
          auto* key = k.as<Str>();
          if (!key) raise(ExcKind::TypeError, "keywords must be strings");
          out.keywords.emplace_back(intern(key->value), v);
        }
        break;
      }
    }
  }
}

Value Evaluator::eval_call(const Call& c) {
  Value func = eval(*c.func);
  CallArgs args;
  eval_args(c.args, args);
  interp.check_interrupt();
  return interp.call(func, std::move(args));
}

Value Evaluator::eval_fstring(const FString& f) {
  std::string out;
  for (const auto& part : f.parts) {
    if (!part.value) {
      out += part.literal;
      continue;
    }
    Value v = eval(*part.value);
    out += part.debug_text;
    if (part.conversion == 'r' || part.conversion == 'a')
      v = make_str(interp.repr(v));
    else if (part.conversion == 's')
      v = make_str(interp.str(v));
    std::string spec;
    if (part.spec) spec = interp.str(eval_fstring(*part.spec));
    out += format_value(interp, v, spec);
  }
  return make_str(out);
}

void Evaluator::run_comprehension(const std::vector<Comprehension>& gens, size_t level, Evaluator& inner,
                                  const std::function<void()>& emit) {
  if (level == gens.size()) {
    emit();
    return;
  }
  const Comprehension& gen = gens[level];
  // The first iterable is evaluated in the enclosing scope, the rest inside.
  Value iterable = level == 0 ? eval(*gen.iter) : inner.eval(*gen.iter);
  interp.for_each(iterable, [&](const Value& item) {
    inner.assign(*gen.target, item);
    for (const auto& cond : gen.ifs) {
      if (!interp.truthy(inner.eval(*cond))) return true;
    }
    run_comprehension(gens, level + 1, inner, emit);
    return true;
  });
}

namespace {

Scope comprehension_scope(const Scope& outer) {
  Scope s;
  s.locals = std::make_shared<Namespace>();
  s.globals = outer.globals;
  if (!outer.is_module) s.enclosing.push_back(outer.locals);
  s.enclosing.insert(s.enclosing.end(), outer.enclosing.begin(), outer.enclosing.end());
  s.owner = outer.owner;
  s.qualname_prefix = outer.qualname_prefix;
  return s;
}

}  // namespace

Value Evaluator::eval_list_comp(const ListComp& c) {
  Scope scope_inner = comprehension_scope(scope);
  Evaluator inner(interp, scope_inner);
  std::vector<Value> out;
  run_comprehension(c.generators, 0, inner, [&] { out.push_back(inner.eval(*c.elt)); });
  return make_list(std::move(out));
}

Value Evaluator::eval_set_comp(const SetComp& c) {
  Scope scope_inner = comprehension_scope(scope);
  Evaluator inner(interp, scope_inner);
  SetRef set = make_set(interp, false);
  run_comprehension(c.generators, 0, inner, [&] { set_add(interp, *set, inner.eval(*c.elt)); });
  return Value(set);
}

namespace {

// What CPython's compiler folds to a constant: literals, and operators and tuples over them.
bool is_constant(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Constant:
      return true;
    case ExprKind::UnaryOp:
      return is_constant(*static_cast<const ast::UnaryOp&>(e).operand);
    case ExprKind::BinOp: {
      const auto& b = static_cast<const ast::BinOp&>(e);
      return is_constant(*b.left) && is_constant(*b.right);
    }
    case ExprKind::Tuple:
      for (const auto& elt : static_cast<const ast::Tuple&>(e).elts) {
        if (!is_constant(*elt)) return false;
      }
      return true;
    default:
      return false;
  }
}

}  // namespace

// As CPython 3.11 compiles a set display: three or more constants become a frozenset merged
// into the new set; otherwise the items are added in order and `*x` updates from x.
Value Evaluator::eval_set_display(const ast::Set& d) {
  bool constants = d.elts.size() > 2;
  for (const auto& elt : d.elts) constants = constants && is_constant(*elt);
  if (constants) {
    std::vector<Value> items;
    for (const auto& elt : d.elts) items.push_back(eval(*elt));
    return make_set_from_constants(interp, items);
  }
  SetRef set = make_set(interp, false);
  for (const auto& elt : d.elts) {
    if (elt->kind == ExprKind::Starred) {
      set_update(interp, *set, eval(*static_cast<const Starred&>(*elt).value));
    } else {
      set_add(interp, *set, eval(*elt));
    }
  }
  return Value(set);
}

Value Evaluator::eval_dict_comp(const DictComp& c) {
  Scope scope_inner = comprehension_scope(scope);
  Evaluator inner(interp, scope_inner);
  auto dict = std::make_shared<script::Dict>();
  run_comprehension(c.generators, 0, inner, [&] {
    Value key = inner.eval(*c.key);
    dict->set(interp, key, inner.eval(*c.value));
  });
  return Value(dict);
}

Value Evaluator::make_function(const std::string& name, const std::vector<Param>& params, const FunctionDef* def,
                               const Lambda* lambda) {
  auto fn = std::make_shared<Function>();
  fn->name = name;
  fn->qualname = scope.qualname_prefix + name;
  fn->owner = scope.owner;
  fn->def = def;
  fn->lambda = lambda;
  fn->params = &params;
  for (const auto& p : params) {
    fn->has_default.push_back(p.default_value != nullptr);
    fn->defaults.push_back(p.default_value ? eval(*p.default_value) : Value());
  }
  fn->globals = scope.globals;
  if (!scope.is_module && !scope.is_class_body) fn->enclosing.push_back(scope.locals);
  fn->enclosing.insert(fn->enclosing.end(), scope.enclosing.begin(), scope.enclosing.end());
  return Value(fn);
}

}  // namespace tsch::script
