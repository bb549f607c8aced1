// Generic operations on values, continued: items (subscripting, len) and iteration, with the
// string helpers they share (code points of UTF-8 text) and the built-in iterators.
#include <fmt/format.h>

#include "script/dispatch.h"
#include "script/interpreter.h"
#include "script/numbers.h"
#include "script/sequence.h"
#include "script/sets.h"
#include "script/types.h"
#include "support/checked_size.h"
#include "support/error.h"

namespace tsch::script {

namespace {

// Code-point boundaries of a UTF-8 string (size n+1), or empty when it is ASCII.
std::vector<size_t> utf8_boundaries(const std::string& s) {
  bool ascii = true;
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return {};
  std::vector<size_t> b;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) b.push_back(i);
  }
  b.push_back(s.size());
  return b;
}

int64_t str_length(const std::string& s) {
  auto b = utf8_boundaries(s);
  return b.empty() ? static_cast<int64_t>(s.size()) : static_cast<int64_t>(b.size() - 1);
}

std::string str_char(const std::string& s, const std::vector<size_t>& b, size_t i) {
  if (b.empty()) return std::string(1, s[i]);
  return s.substr(b[i], b[i + 1] - b[i]);
}

class ListIterator : public Iterator {
 public:
  explicit ListIterator(std::shared_ptr<List> l) : list_(std::move(l)) {}
  bool next(Interpreter&, Value& out) override {
    if (pos_ >= list_->items.size()) return false;
    out = list_->items[pos_++];
    return true;
  }
  const char* kind() const override { return "list_iterator"; }

 private:
  std::shared_ptr<List> list_;
  size_t pos_ = 0;
};

class VectorIterator : public Iterator {
 public:
  VectorIterator(std::vector<Value> items, const char* kind) : items_(std::move(items)), kind_(kind) {}
  bool next(Interpreter&, Value& out) override {
    if (pos_ >= items_.size()) return false;
    out = items_[pos_++];
    return true;
  }
  const char* kind() const override { return kind_; }

 private:
  std::vector<Value> items_;
  size_t pos_ = 0;
  const char* kind_;
};

class RangeIterator : public Iterator {
 public:
  explicit RangeIterator(const Range& r) : next_(r.start), step_(r.step), left_(r.length()) {}
  bool next(Interpreter&, Value& out) override {
    if (left_ <= 0) return false;
    out = Value::integer(next_);
    next_ += step_;
    --left_;
    return true;
  }
  const char* kind() const override { return "range_iterator"; }

 private:
  int64_t next_, step_, left_;
};

}  // namespace

// ---------------------------------------------------------------------------- items

Value Interpreter::get_item(const Value& obj, const Value& key) {
  if (auto* list = obj.as<List>()) {
    if (auto* s = key.as<SliceObject>())
      return make_list(take_slice(list->items, slice_bounds(*s, static_cast<int64_t>(list->items.size()))));
    return list->items[resolve_index(*this, key, static_cast<int64_t>(list->items.size()), "list")];
  }
  if (auto* tuple = obj.as<Tuple>()) {
    if (auto* s = key.as<SliceObject>())
      return make_tuple(take_slice(tuple->items, slice_bounds(*s, static_cast<int64_t>(tuple->items.size()))));
    return tuple->items[resolve_index(*this, key, static_cast<int64_t>(tuple->items.size()), "tuple")];
  }
  if (auto* str = obj.as<Str>()) {
    auto b = utf8_boundaries(str->value);
    int64_t n = b.empty() ? static_cast<int64_t>(str->value.size()) : static_cast<int64_t>(b.size() - 1);
    if (auto* s = key.as<SliceObject>()) {
      SliceBounds sb = slice_bounds(*s, n);
      std::string out;
      for (int64_t i = 0, k = sb.start; i < sb.length; ++i, k += sb.step)
        out += str_char(str->value, b, static_cast<size_t>(k));
      return make_str(out);
    }
    return make_str(str_char(str->value, b, resolve_index(*this, key, n, "string")));
  }
  if (auto* dict = obj.as<Dict>()) {
    if (Value* v = dict->find(*this, key)) return *v;
    raise_key_error(key);
  }
  if (auto* range = obj.as<Range>()) {
    if (auto* s = key.as<SliceObject>()) {
      SliceBounds sb = slice_bounds(*s, range->length());
      return Value(std::make_shared<Range>(range->start + sb.start * range->step, range->start + sb.stop * range->step,
                                           range->step * sb.step));
    }
    size_t i = resolve_index(*this, key, range->length(), "range object");
    return Value::integer(range->start + static_cast<int64_t>(i) * range->step);
  }
  Value method;
  if (type_method(obj, "__getitem__", method)) return call_method(*this, obj, method, {key});
  if (obj.as<TypeObject>()) {
    raise(ExcKind::TypeError, fmt::format("type '{}' is not subscriptable", obj.as<TypeObject>()->name()));
  }
  raise(ExcKind::TypeError, fmt::format("'{}' object is not subscriptable", type_name(obj)));
}

void Interpreter::set_item(const Value& obj, const Value& key, Value value) {
  if (auto* list = obj.as<List>()) {
    if (auto* s = key.as<SliceObject>()) {
      std::vector<Value> replacement = to_vector(value);
      SliceBounds sb = slice_bounds(*s, static_cast<int64_t>(list->items.size()));
      if (sb.step == 1) {
        auto first = list->items.begin() + sb.start;
        list->items.erase(first, first + sb.length);
        list->items.insert(list->items.begin() + sb.start, replacement.begin(), replacement.end());
        return;
      }
      if (static_cast<int64_t>(replacement.size()) != sb.length) {
        raise(ExcKind::ValueError, fmt::format("attempt to assign sequence of size {} to extended slice of size {}",
                                               replacement.size(), sb.length));
      }
      for (int64_t i = 0, k = sb.start; i < sb.length; ++i, k += sb.step)
        list->items[static_cast<size_t>(k)] = replacement[static_cast<size_t>(i)];
      return;
    }
    list->items[resolve_index(*this, key, static_cast<int64_t>(list->items.size()), "list assignment")] =
        std::move(value);
    return;
  }
  if (auto* dict = obj.as<Dict>()) {
    dict->set(*this, key, std::move(value));
    return;
  }
  Value method;
  if (type_method(obj, "__setitem__", method)) {
    call_method(*this, obj, method, {key, value});
    return;
  }
  raise(ExcKind::TypeError, fmt::format("'{}' object does not support item assignment", type_name(obj)));
}

void Interpreter::del_item(const Value& obj, const Value& key) {
  if (auto* list = obj.as<List>()) {
    if (auto* s = key.as<SliceObject>()) {
      SliceBounds sb = slice_bounds(*s, static_cast<int64_t>(list->items.size()));
      std::vector<bool> drop(list->items.size(), false);
      for (int64_t i = 0, k = sb.start; i < sb.length; ++i, k += sb.step) drop[static_cast<size_t>(k)] = true;
      std::vector<Value> kept;
      for (size_t i = 0; i < list->items.size(); ++i) {
        if (!drop[i]) kept.push_back(list->items[i]);
      }
      list->items = std::move(kept);
      return;
    }
    size_t i = resolve_index(*this, key, static_cast<int64_t>(list->items.size()), "list assignment");
    list->items.erase(list->items.begin() + static_cast<long>(i));
    return;
  }
  if (auto* dict = obj.as<Dict>()) {
    if (!dict->erase(*this, key)) raise_key_error(key);
    return;
  }
  Value method;
  if (type_method(obj, "__delitem__", method)) {
    call_method(*this, obj, method, {key});
    return;
  }
  raise(ExcKind::TypeError, fmt::format("'{}' object does not support item deletion", type_name(obj)));
}

int64_t Interpreter::len(const Value& v) {
  if (auto* s = v.as<Str>()) return str_length(s->value);
  if (auto* l = v.as<List>()) return static_cast<int64_t>(l->items.size());
  if (auto* t = v.as<Tuple>()) return static_cast<int64_t>(t->items.size());
  if (auto* d = v.as<Dict>()) return static_cast<int64_t>(d->size());
  if (auto* s = v.as<Set>()) return static_cast<int64_t>(s->table.size());
  if (auto* r = v.as<Range>()) return r->length();
  Value method;
  if (type_method(v, "__len__", method)) {
    Value n = call_method(*this, v, method, {});
    if (!n.is_integral())
      raise(ExcKind::TypeError, "'" + type_name(n) + "' object cannot be interpreted as an integer");
    return n.as_int();
  }
  raise(ExcKind::TypeError, "object of type '" + type_name(v) + "' has no len()");
}

// ---------------------------------------------------------------------------- iteration

std::shared_ptr<Iterator> Interpreter::iter(const Value& iterable) {
  if (auto it = iterable.as_ref<Iterator>()) return it;
  if (auto list = iterable.as_ref<List>()) return std::make_shared<ListIterator>(list);
  if (auto* t = iterable.as<Tuple>()) return std::make_shared<VectorIterator>(t->items, "tuple_iterator");
  if (auto* r = iterable.as<Range>()) return std::make_shared<RangeIterator>(*r);
  if (auto s = iterable.as_ref<Set>()) return set_iter(s);
  if (auto* s = iterable.as<Str>()) {
    std::vector<Value> chars;
    auto b = utf8_boundaries(s->value);
    int64_t n = str_length(s->value);
    for (int64_t i = 0; i < n; ++i) chars.push_back(make_str(str_char(s->value, b, static_cast<size_t>(i))));
    return std::make_shared<VectorIterator>(std::move(chars), "str_iterator");
  }
  if (auto* d = iterable.as<Dict>()) {
    std::vector<Value> keys;
    d->for_each([&](const Value& k, const Value&) { keys.push_back(k); });
    return std::make_shared<VectorIterator>(std::move(keys), "dict_keyiterator");
  }
  Value method;
  if (type_method(iterable, "__iter__", method)) {
    Value it = call_method(*this, iterable, method, {});
    if (auto native = it.as_ref<Iterator>()) return native;
    Value next;
    if (!type_method(it, "__next__", next))
      raise(ExcKind::TypeError, "iter() returned non-iterator of type '" + type_name(it) + "'");
    return std::make_shared<NativeIterator>("iterator", [it, next](Interpreter& interp, Value& out) {
      try {
        out = call_method(interp, it, next, {});
        return true;
      } catch (const ScriptError& e) {
        if (e.exception.type()->is_subtype_of(exception_type(ExcKind::StopIteration))) return false;
        throw;
      }
    });
  }
  raise(ExcKind::TypeError, "'" + type_name(iterable) + "' object is not iterable");
}

void Interpreter::for_each(const Value& iterable, const std::function<bool(const Value&)>& f) {
  if (auto* l = iterable.as<List>()) {
    for (size_t i = 0; i < l->items.size(); ++i) {
      Value item = l->items[i];
      if (!f(item)) return;
    }
    return;
  }
  std::shared_ptr<Iterator> it = iter(iterable);
  Value item;
  while (it->next(*this, item)) {
    if (!f(item)) return;
  }
}

std::vector<Value> Interpreter::to_vector(const Value& iterable) {
  if (auto* l = iterable.as<List>()) return l->items;
  if (auto* t = iterable.as<Tuple>()) return t->items;
  std::vector<Value> out;
  for_each(iterable, [&](const Value& v) {
    out.push_back(v);
    return true;
  });
  return out;
}

}  // namespace tsch::script
