// The conversion of a schedule primitive's script arguments, by the parameter types its kind
// declares: the Converter (its layout part, transform_layout's buffer, index map and pad value,
// in schedule_layout_args.cc) and the helpers it shares (schedule_converter.cc).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "arith/scalable_expression.h"
#include "bindings/tvm/tir/index_map_values.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "ir/printer.h"
#include "schedule/primitives.h"
#include "script/exceptions.h"
#include "support/closest_name.h"
#include "values/ir_values.h"

namespace tsch::bindings::schedule_args {

using schedule::ParamSpec;
using schedule::ParamType;
using schedule::RVNode;
using schedule::Slot;
using schedule::TraceArg;
using script::Args;
using script::ExcKind;
using script::raise;

// The function an index map or pad value read back from a trace is (`lambda i, j: ...`).
Value eval_lambda(Interpreter& interp, const std::string& text);
bool is_sequence(const Value& v);
const RVNode* rv_of(const Value& v, RVNode::Kind kind);
// Calls an index map (or pad value) function with fresh index variables.
TraceArg call_index_map(Interpreter& interp, const Value& fn, std::vector<ir::Var> params);

class Converter {
 public:
  Converter(Interpreter& interp, Args& a, ScheduleValue& self) : interp_(interp), a_(a), sch_(self.sch) {}

  void convert(const ParamSpec& p, size_t i, ConvertedCall& out) {
    std::vector<TraceArg>& slot = p.slot == Slot::Input ? out.inputs : out.attrs;
    switch (p.type) {
      case ParamType::Block:
        slot.push_back(block(i));
        return;
      case ParamType::Loop:
        slot.push_back(TraceArg::of_ref(handle(a_[i], i, "a LoopRV", true, false)));
        return;
      case ParamType::BlockOrLoop:
        slot.push_back(TraceArg::of_ref(handle(a_[i], i, "a BlockRV or LoopRV", true, true)));
        return;
      case ParamType::Loops: {
        // Named by the value itself: a variadic argument has no parameter of its own.
        size_t k = 0;
        for (const Value& v : a_.varargs()) {
          ++k;
          auto* rv = v.as<RVValue>();
          if (!rv || rv->rv->kind != RVNode::Kind::Loop) {
            raise(ExcKind::TypeError, fmt::format("{}: expected LoopRVs, got {} as loop {}", a_.function_name(),
                                                  Interpreter::type_name(v), k));
          }
          slot.push_back(TraceArg::of_ref(rv->rv));
        }
        return;
      }
      case ParamType::Factors:
        factors(i, slot);
        return;
      case ParamType::Target:
        slot.push_back(target(i));
        return;
      case ParamType::Blocks:
        slot.push_back(blocks(i));
        return;
      case ParamType::Int:
        slot.push_back(TraceArg::of_int(a_.get_int(i)));
        return;
      case ParamType::Bool:
        slot.push_back(TraceArg::of_bool(a_.get_bool(i)));
        return;
      case ParamType::Str:
        slot.push_back(a_[i].is_none() ? TraceArg::none() : TraceArg::of_str(a_.get_str(i)));
        return;
      case ParamType::IntList:
        slot.push_back(number_list(i, false));
        return;
      case ParamType::FloatList:
        slot.push_back(number_list(i, true));
        return;
      case ParamType::AnnValue:
        slot.push_back(ann_value(i));
        return;
      case ParamType::ReadIndex:
      case ParamType::WriteIndex:
        slot.push_back(TraceArg::of_int(buffer_index(i, p.type == ParamType::ReadIndex)));
        return;
      case ParamType::LayoutBuffer:
        layout_buffer(i, slot);
        return;
      case ParamType::IndexMap:
        slot.push_back(index_map(i));
        return;
      case ParamType::PadValue:
        slot.push_back(pad_value(i));
        return;
      case ParamType::Decision:
        out.decision = decision(i);
        return;
    }
  }

 private:
  schedule::RV handle(const Value& v, size_t i, const char* expected, bool loop, bool block) {
    auto* rv = v.as<RVValue>();
    if (!rv || (rv->rv->kind == RVNode::Kind::Loop ? !loop : rv->rv->kind == RVNode::Kind::Block ? !block : true)) {
      a_.type_error(i, expected);
    }
    return rv->rv;
  }

  // A BlockRV, or a block name in the function worked on (which, as in TVM, goes through
  // get_block and appears in the trace as such).
  TraceArg block(size_t i) {
    block_ = block_or_name(a_[i], i, "a BlockRV or a block name");
    return TraceArg::of_ref(block_);
  }

  schedule::RV block_or_name(const Value& v, size_t i, const char* expected) {
    auto* s = v.as<script::Str>();
    if (!s) return handle(v, i, expected, false, true);
    const std::string& func = sch_.func_working_on();
    if (func.empty())
      raise(ExcKind::ValueError,
            "the schedule does not know which function to be working on: the module has several functions; call "
            "sch.work_on(name) before naming blocks");
    try {
      schedule::get_block(sch_.state(), s->value, func);
    } catch (const schedule::ScheduleError& e) {
      raise(ExcKind::ValueError, a_.function_name() + ": " + e.what());
    }
    return sch_.apply("GetBlock", {}, {TraceArg::of_str(s->value), TraceArg::of_str(func)})[0];
  }

  const ir::BlockNode& block_node() { return sch_.block(sch_.block_sid(TraceArg::of_ref(block_))); }

  void factors(size_t i, std::vector<TraceArg>& slot) {
    if (!is_sequence(a_[i])) a_.type_error(i, "a list of int or None");
    for (const Value& f : interp_.to_vector(a_[i])) {
      if (f.is_none())
        slot.push_back(TraceArg::none());
      else if (f.is_integral())
        slot.push_back(TraceArg::of_int(f.as_int()));
      else if (auto* rv = f.as<RVValue>(); rv && rv->rv->kind == RVNode::Kind::Expr)
        slot.push_back(TraceArg::of_ref(rv->rv));
      else if (int64_t c; is_expr(f) && ir::as_const_int(to_expr(interp_, f, "factors"), &c))
        slot.push_back(TraceArg::of_int(c));
      else if (std::optional<TraceArg> e = expr_of_rvs(f, i, "factors")) {
        // An expression of ExprRVs (`j1 * 2`): the trace keeps it, split gets its value.
        if (!e->expr->dtype.is_int() && !e->expr->dtype.is_uint()) {
          raise(ExcKind::TypeError,
                fmt::format("argument {}, 'factors' to {}: a factor must be an integer, got the {} expression {}", i,
                            a_.function_name(), e->expr->dtype.to_string(), ir::script(e->expr)));
        }
        slot.push_back(std::move(*e));
      } else if (is_expr(f) && to_expr(interp_, f, "factors")->dtype.is_int()) {
        // TVM also takes factors that are expressions of no ExprRV: scalable vectors' `T.vscale() * 4`.
        ir::PrimExpr e = to_expr(interp_, f, "factors");
        if (!arith::is_vscale_constant(e)) {
          raise(ExcKind::NotImplementedError, fmt::format("not supported yet: argument {}, 'factors' to {}: a factor "
                                                          "that is an expression ({}) of variables other "
                                                          "than ExprRVs and T.vscale()",
                                                          i, a_.function_name(), ir::script(e)));
        }
        slot.push_back(TraceArg::of_expr(e));
      } else {
        raise(ExcKind::TypeError,
              fmt::format("argument {}, 'factors' to {}: expected a list of int or None, got a list containing {}", i,
                          a_.function_name(), Interpreter::type_name(f)));
      }
    }
  }

  // A PrimExpr over ExprRVs of this schedule, as an Expr argument; nullopt for any other
  // value. An ExprRV of another schedule is an IndexError, as the ExprRV itself would be.
  std::optional<TraceArg> expr_of_rvs(const Value& v, size_t i, const char* param) {
    auto* e = v.as<ExprValue>();
    if (!e) return std::nullopt;
    TraceArg arg = TraceArg::of_expr(e->expr);
    if (arg.list.empty()) return std::nullopt;
    for (const TraceArg& r : arg.list) {
      if (!sch_.has_rv(r.ref)) {
        raise(ExcKind::IndexError,
              fmt::format("argument {}, '{}' to {}: the expression {} uses an ExprRV of another schedule (or one "
                          "removed with remove_rv)",
                          i, param, a_.function_name(), ir::script(e->expr)));
      }
    }
    return arg;
  }

  TraceArg target(size_t i) {
    if (!is_sequence(a_[i])) return TraceArg::of_ref(handle(a_[i], i, "a LoopRV or a list of BlockRVs", true, false));
    std::vector<TraceArg> refs;
    for (const Value& v : interp_.to_vector(a_[i])) {
      if (!rv_of(v, RVNode::Kind::Block)) {
        raise(ExcKind::TypeError,
              a_.function_name() + ": the target list holds " + Interpreter::type_name(v) + "; expected BlockRVs");
      }
      refs.push_back(TraceArg::of_ref(v.as<RVValue>()->rv));
    }
    return TraceArg::of_list(std::move(refs));
  }

  TraceArg blocks(size_t i) {
    std::vector<TraceArg> refs;
    if (a_[i].is_none()) return TraceArg::of_list({});
    if (!is_sequence(a_[i])) a_.type_error(i, "a list of BlockRVs or block names");
    for (const Value& v : interp_.to_vector(a_[i]))
      refs.push_back(TraceArg::of_ref(block_or_name(v, i, "a list of BlockRVs or block names")));
    return TraceArg::of_list(std::move(refs));
  }

  TraceArg number_list(size_t i, bool floats) {
    if (!is_sequence(a_[i])) a_.type_error(i, floats ? "a list of float" : "a list of int");
    std::vector<TraceArg> items;
    for (const Value& v : interp_.to_vector(a_[i])) {
      if (v.is_integral() && !v.is_bool())
        items.push_back(floats ? TraceArg::of_float(static_cast<double>(v.as_int())) : TraceArg::of_int(v.as_int()));
      else if (floats && v.is_float())
        items.push_back(TraceArg::of_float(v.as_float()));
      else
        a_.type_error(i, floats ? "a list of float" : "a list of int");
    }
    return TraceArg::of_list(std::move(items));
  }

  TraceArg ann_value(size_t i) {
    const Value& v = a_[i];
    if (rv_of(v, RVNode::Kind::Expr)) return TraceArg::of_ref(v.as<RVValue>()->rv);
    if (std::optional<TraceArg> e = expr_of_rvs(v, i, "ann_val")) return *e;
    std::optional<TraceArg> constant = ann_constant(v);
    if (!constant)
      a_.type_error(i, "an int, float, bool, str, ExprRV or expression of ExprRVs, or a list or dict of constants");
    return *constant;
  }
  // An annotation value: a number, bool or str, or a list of them.
  std::optional<TraceArg> ann_constant(const Value& v) {
    if (v.is_bool()) return TraceArg::of_bool(v.as_bool());
    if (v.is_int()) return TraceArg::of_int(v.as_int());
    if (v.is_float()) return TraceArg::of_float(v.as_float());
    if (auto* s = v.as<script::Str>()) return TraceArg::of_str(s->value);
    if (v.as<script::List>() || v.as<script::Tuple>()) {
      std::vector<TraceArg> items;
      for (const Value& x : interp_.to_vector(v)) {
        std::optional<TraceArg> item = ann_constant(x);
        if (!item) return std::nullopt;
        items.push_back(*item);
      }
      return TraceArg::of_list(std::move(items));
    }
    if (auto* d = v.as<script::Dict>()) {
      std::vector<std::string> keys;
      std::vector<TraceArg> values;
      // Keys in sorted order, as the trace's JSON object keeps them (TVM's Map has no order).
      std::vector<std::pair<std::string, TraceArg>> entries;
      for (const auto& [k, x] : d->items()) {
        auto* key = k.as<script::Str>();
        std::optional<TraceArg> item = ann_constant(x);
        if (!key || !item) return std::nullopt;
        entries.emplace_back(key->value, *item);
      }
      std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [k, x] : entries) {
        keys.push_back(k);
        values.push_back(std::move(x));
      }
      return TraceArg::of_dict(std::move(keys), std::move(values));
    }
    return std::nullopt;
  }

  // A buffer of the block: its index, its name or the Buffer.
  int64_t buffer_index(size_t i, bool read) {
    const ir::BlockNode& b = block_node();
    const std::vector<ir::BufferRegion>& regions = read ? b.reads : b.writes;
    for (size_t k = 0; k < regions.size(); ++k) {
      if (auto* name = a_[i].as<script::Str>(); name && regions[k].buffer->name == name->value)
        return static_cast<int64_t>(k);
      if (auto* buf = a_[i].as<BufferValue>(); buf && regions[k].buffer == buf->buffer) return static_cast<int64_t>(k);
    }
    if (a_[i].as<script::Str>() || a_[i].as<BufferValue>()) buffer_not_accessed(i, read, !read);
    return a_.get_int(i);
  }

  // Argument i names a buffer (by name or Buffer) the block does not read (`reads`) or write
  // (`writes`): say which buffers it does, and the closest name when one is near.
  [[noreturn]] void buffer_not_accessed(size_t i, bool reads, bool writes) {
    const ir::BlockNode& b = block_node();
    std::vector<std::string> names, parts;
    auto list = [&](const std::vector<ir::BufferRegion>& regions, const char* verb) {
      std::string text;
      for (const ir::BufferRegion& r : regions) {
        names.push_back(r.buffer->name);
        text += (text.empty() ? "" : ", ") + r.buffer->name;
      }
      if (!text.empty()) parts.push_back(std::string(verb) + " " + text);
    };
    if (reads) list(b.reads, "reads");
    if (writes) list(b.writes, "writes");
    std::string wrong =
        a_[i].as<script::Str>() ? a_[i].as<script::Str>()->value : a_[i].as<BufferValue>()->buffer->name;
    std::string message = a_[i].as<script::Str>() ? "the block does not access a buffer named " + wrong
                                                  : "the block does not access buffer " + wrong;
    std::string where =
        parts.empty() ? "it accesses none" : "it " + parts[0] + (parts.size() > 1 ? "; " + parts[1] : "");
    message += " (" + where + ")";
    std::string near = closest_name(wrong, names);
    if (!near.empty()) message += ". Did you mean: '" + near + "'?";
    a_.value_error(i, message);
  }

  // ("read"|"write", index), an index into the writes, a name, or a Buffer: TVM's buffer
  // index and BufferIndexType (0 read, 1 write).
  void layout_buffer(size_t i, std::vector<TraceArg>& slot);

  // A function of the buffer's indices, or its lambda text (from a printed trace).
  TraceArg index_map(size_t i);

 public:
  std::vector<int64_t> axis_separators;

 private:
  // None, a constant, an expression, or a function of the transformed indices (or its text).
  TraceArg pad_value(size_t i);

  // `v` as a constant of the integer type `t`, which must hold it (TVM's IntImm check).
  ir::PrimExpr int_in(int64_t v, ir::DataType t, size_t i);

  TraceArg decision(size_t i) {
    const Value& v = a_[i];
    if (v.is_none()) return TraceArg::none();
    if (v.is_integral() && !v.is_bool()) return TraceArg::of_int(v.as_int());
    if (!is_sequence(v)) a_.type_error(i, "an int or a list of int");
    std::vector<TraceArg> items;
    for (const Value& x : interp_.to_vector(v)) {
      if (!x.is_integral() || x.is_bool()) a_.type_error(i, "a list of int");
      items.push_back(TraceArg::of_int(x.as_int()));
    }
    return TraceArg::of_list(std::move(items));
  }

  Interpreter& interp_;
  Args& a_;
  schedule::Schedule& sch_;
  schedule::RV block_;  // the block argument converted last (buffer indices refer to it)
  ir::Buffer buffer_;   // the buffer a layout transformation re-indexes
  TraceArg map_;        // its index map (the pad value takes its outputs)
};

}  // namespace tsch::bindings::schedule_args
