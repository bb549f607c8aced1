// Methods of list, tuple and dict.
#include <fmt/format.h>

#include <algorithm>

#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/sequence.h"
#include "script/types.h"

namespace tsch::script {

namespace {

List& self_list(Args& a) { return *a[0].as<List>(); }

int64_t count_in(Interpreter& interp, const std::vector<Value>& items, const Value& x) {
  int64_t n = 0;
  for (const auto& v : items) n += interp.equals(v, x) ? 1 : 0;
  return n;
}

Value index_in(Interpreter& interp, const std::vector<Value>& items, const Value& x, const char* what) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (interp.equals(items[i], x)) return Value::integer(static_cast<int64_t>(i));
  }
  raise(ExcKind::ValueError, fmt::format("{}.index(x): x not in {}", what, what));
}

}  // namespace

void install_list_methods(TypeObject& t) {
  t.def("append", "self, object", [](Interpreter&, Args& a) {
    self_list(a).items.push_back(a[1]);
    return Value();
  });
  t.def("extend", "self, iterable", [](Interpreter& interp, Args& a) {
    std::vector<Value> more = interp.to_vector(a[1]);
    auto& items = self_list(a).items;
    items.insert(items.end(), more.begin(), more.end());
    return Value();
  });
  t.def("insert", "self, index, object", [](Interpreter&, Args& a) {
    auto& items = self_list(a).items;
    int64_t i = a.get_int(1), n = static_cast<int64_t>(items.size());
    if (i < 0) i = std::max<int64_t>(0, i + n);
    if (i > n) i = n;
    items.insert(items.begin() + i, a[2]);
    return Value();
  });
  t.def("pop", "self, index=-1", [](Interpreter& interp, Args& a) {
    auto& items = self_list(a).items;
    if (items.empty()) raise(ExcKind::IndexError, "pop from empty list");
    size_t i = resolve_index(interp, a[1], static_cast<int64_t>(items.size()), "pop");
    Value v = items[i];
    items.erase(items.begin() + static_cast<long>(i));
    return v;
  });
  t.def("remove", "self, value", [](Interpreter& interp, Args& a) {
    auto& items = self_list(a).items;
    for (size_t i = 0; i < items.size(); ++i) {
      if (interp.equals(items[i], a[1])) {
        items.erase(items.begin() + static_cast<long>(i));
        return Value();
      }
    }
    raise(ExcKind::ValueError, "list.remove(x): x not in list");
  });
  t.def("index", "self, value",
        [](Interpreter& interp, Args& a) { return index_in(interp, self_list(a).items, a[1], "list"); });
  t.def("count", "self, value",
        [](Interpreter& interp, Args& a) { return Value::integer(count_in(interp, self_list(a).items, a[1])); });
  t.def("sort", "self, *, key=None, reverse=False", [](Interpreter& interp, Args& a) {
    sort_values(interp, self_list(a).items, a[1], interp.truthy(a[2]));
    return Value();
  });
  t.def("reverse", "self", [](Interpreter&, Args& a) {
    std::reverse(self_list(a).items.begin(), self_list(a).items.end());
    return Value();
  });
  t.def("copy", "self", [](Interpreter&, Args& a) { return make_list(self_list(a).items); });
  t.def("clear", "self", [](Interpreter&, Args& a) {
    self_list(a).items.clear();
    return Value();
  });
}

void install_tuple_methods(TypeObject& t) {
  t.def("index", "self, value",
        [](Interpreter& interp, Args& a) { return index_in(interp, a[0].as<Tuple>()->items, a[1], "tuple"); });
  t.def("count", "self, value",
        [](Interpreter& interp, Args& a) { return Value::integer(count_in(interp, a[0].as<Tuple>()->items, a[1])); });
}

namespace {

Dict& self_dict(Args& a) { return *a[0].as<Dict>(); }

// dict.keys()/values()/items(): live views that iterate, count and test membership.
class DictView : public Object {
 public:
  DictView(std::shared_ptr<Dict> d, int which) : dict(std::move(d)), which(which) {}
  TypeObject* type() const override { return view_type(which).get(); }

  std::vector<Value> snapshot() const {
    std::vector<Value> out;
    dict->for_each([&](const Value& k, const Value& v) {
      out.push_back(which == 0 ? k : which == 1 ? v : make_tuple({k, v}));
    });
    return out;
  }
  std::string repr_hook(Interpreter& interp) override {
    static const char* names[] = {"dict_keys", "dict_values", "dict_items"};
    return std::string(names[which]) + "(" + interp.repr(make_list(snapshot())) + ")";
  }

  static TypeRef& view_type(int which) {
    static TypeRef types[3] = {make_type("dict_keys"), make_type("dict_values"), make_type("dict_items")};
    return types[which];
  }

  std::shared_ptr<Dict> dict;
  int which;

 private:
  static TypeRef make_type(const char* name) {
    auto t = std::make_shared<TypeObject>(name);
    t->def("__iter__", "self",
           [](Interpreter& interp, Args& a) { return Value(interp.iter(make_list(a[0].as<DictView>()->snapshot()))); });
    t->def("__len__", "self", [](Interpreter&, Args& a) {
      return Value::integer(static_cast<int64_t>(a[0].as<DictView>()->dict->size()));
    });
    t->def("__contains__", "self, item", [](Interpreter& interp, Args& a) {
      auto* view = a[0].as<DictView>();
      if (view->which == 0) return Value::boolean(view->dict->find(interp, a[1]) != nullptr);
      for (const auto& v : view->snapshot()) {
        if (interp.equals(v, a[1])) return Value::boolean(true);
      }
      return Value::boolean(false);
    });
    return t;
  }
};

Value dict_view(Args& a, int which) { return Value(std::make_shared<DictView>(a[0].as_ref<Dict>(), which)); }

}  // namespace

void install_dict_methods(TypeObject& t) {
  t.def("keys", "self", [](Interpreter&, Args& a) { return dict_view(a, 0); });
  t.def("values", "self", [](Interpreter&, Args& a) { return dict_view(a, 1); });
  t.def("items", "self", [](Interpreter&, Args& a) { return dict_view(a, 2); });
  t.def("get", "self, key, default=None", [](Interpreter& interp, Args& a) {
    Value* v = self_dict(a).find(interp, a[1]);
    return v ? *v : a[2];
  });
  t.def("pop", "self, key, *default", [](Interpreter& interp, Args& a) {
    Dict& d = self_dict(a);
    Value* v = d.find(interp, a[1]);
    if (!v) {
      if (!a.varargs().empty()) return a.varargs()[0];
      raise_key_error(a[1]);
    }
    Value result = *v;
    d.erase(interp, a[1]);
    return result;
  });
  t.def("setdefault", "self, key, default=None", [](Interpreter& interp, Args& a) {
    Dict& d = self_dict(a);
    if (Value* v = d.find(interp, a[1])) return *v;
    d.set(interp, a[1], a[2]);
    return a[2];
  });
  t.def("update", "self, other=None, **kwargs", [](Interpreter& interp, Args& a) {
    Dict& d = self_dict(a);
    if (auto* other = a[1].as<Dict>()) {
      for (auto& [k, v] : other->items()) d.set(interp, k, v);
    } else if (!a[1].is_none()) {
      interp.for_each(a[1], [&](const Value& item) {
        std::vector<Value> pair = interp.to_vector(item);
        if (pair.size() != 2) raise(ExcKind::ValueError, "dictionary update sequence element has wrong length");
        d.set(interp, pair[0], pair[1]);
        return true;
      });
    }
    for (auto& [k, v] : a.kwargs()) d.set(interp, make_str(symbol_name(k)), v);
    return Value();
  });
  t.def("copy", "self", [](Interpreter& interp, Args& a) {
    auto d = std::make_shared<Dict>();
    for (auto& [k, v] : self_dict(a).items()) d->set(interp, k, v);
    return Value(d);
  });
  t.def("clear", "self", [](Interpreter&, Args& a) {
    self_dict(a).clear();
    return Value();
  });
}

}  // namespace tsch::script
