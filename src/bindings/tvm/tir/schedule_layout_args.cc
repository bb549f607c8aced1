// The layout arguments of a primitive call (schedule_converter.h): transform_layout's buffer,
// index map and pad value, transform_block_layout's index map.
#include "bindings/tvm/tir/schedule_converter.h"

namespace tsch::bindings::schedule_args {

// ("read"|"write", index), an index into the writes, a name, or a Buffer: TVM's buffer
// index and BufferIndexType (0 read, 1 write).
void Converter::layout_buffer(size_t i, std::vector<TraceArg>& slot) {
  const ir::BlockNode& b = block_node();
  int64_t index = -1;
  bool write = true;
  auto pick = [&](bool w, int64_t k) {
    const auto& regions = w ? b.writes : b.reads;
    // TVM's _normalize_buffer_arg asserts this.
    if (k < 0 || k >= static_cast<int64_t>(regions.size()))
      raise(ExcKind::AssertionError,
            fmt::format("Invalid buffer_index {}. Must be in range [0, {})", k, regions.size()));
    write = w;
    index = k;
    buffer_ = regions[static_cast<size_t>(k)].buffer;
  };
  std::vector<Value> pair = is_sequence(a_[i]) ? interp_.to_vector(a_[i]) : std::vector<Value>{};
  if (pair.size() == 2 && pair[0].as<script::Str>() && pair[1].is_int()) {
    const std::string& kind = pair[0].as<script::Str>()->value;
    if (kind != "read" && kind != "write") a_.value_error(i, "the kind must be \"read\" or \"write\"");
    pick(kind == "write", pair[1].as_int());
  } else if (a_[i].is_int()) {
    pick(true, a_[i].as_int());
  } else if (a_[i].as<script::Str>() || a_[i].as<BufferValue>()) {
    auto* name = a_[i].as<script::Str>();
    auto* buf = a_[i].as<BufferValue>();
    for (bool w : {true, false}) {
      const auto& regions = w ? b.writes : b.reads;
      for (size_t k = 0; k < regions.size() && index < 0; ++k) {
        if ((name && regions[k].buffer->name == name->value) || (buf && regions[k].buffer == buf->buffer))
          pick(w, static_cast<int64_t>(k));
      }
    }
    if (index < 0) buffer_not_accessed(i, true, true);
  } else {
    a_.type_error(i, "(\"read\" or \"write\", index), a buffer name or a Buffer");
  }
  slot.push_back(TraceArg::of_int(index));
  slot.push_back(TraceArg::of_int(write ? 1 : 0));
}

// A function of the buffer's indices, or its lambda text (from a printed trace).
TraceArg Converter::index_map(size_t i) {
  // What the map re-indexes: the buffer of a layout transformation, else (transform_block_layout)
  // the block's iterators.
  std::vector<ir::DataType> dtypes;
  std::string what;
  if (buffer_) {
    for (const auto& d : buffer_->shape) dtypes.push_back(d->dtype);
    what = "buffer " + buffer_->name + " has {} dimensions";
  } else {
    const ir::BlockNode& b = block_node();
    for (const auto& iv : b.iter_vars) dtypes.push_back(iv.var->dtype);
    what = "block " + b.name + " has {} iterators";
  }
  auto mismatch = [&](size_t takes) {
    a_.value_error(
        i, fmt::format("the index map takes {} indices but ", takes) + fmt::format(fmt::runtime(what), dtypes.size()));
  };
  Value fn = a_[i].as<script::Str>() ? eval_lambda(interp_, a_[i].as<script::Str>()->value) : a_[i];
  if (auto* m = fn.as<IndexMapValue>()) {
    // A tvm.tir.IndexMap: called again with indices of the right type when it came from a
    // function; otherwise used as it is when its types are those.
    if (m->params.size() != dtypes.size()) mismatch(m->params.size());
    if (!m->function.is_none()) {
      IndexFunctionCall call = call_index_function(interp_, m->function, dtypes);
      axis_separators = call.axis_separators;
      map_ = TraceArg::of_index_map(std::move(call.params), std::move(call.outputs));
      return map_;
    }
    for (size_t d = 0; d < m->params.size(); ++d) {
      if (m->params[d]->dtype != dtypes[d])
        raise(ExcKind::NotImplementedError, "not supported yet: an IndexMap over " + m->params[d]->dtype.to_string() +
                                                " indices where " + fmt::format(fmt::runtime(what), dtypes.size()) +
                                                " of " + dtypes[d].to_string() +
                                                " (make it with IndexMap.from_func, or index_dtype=)");
    }
    map_ = TraceArg::of_index_map(m->params, m->outputs);
    return map_;
  }
  int64_t arity = index_function_arity(fn);
  if (arity >= 0 && fn.as<script::Function>() && static_cast<size_t>(arity) != dtypes.size())
    mismatch(static_cast<size_t>(arity));
  IndexFunctionCall call = call_index_function(interp_, fn, dtypes);
  axis_separators = call.axis_separators;
  map_ = TraceArg::of_index_map(std::move(call.params), std::move(call.outputs));
  return map_;
}

// None, a constant, an expression, or a function of the transformed indices (or its text).
TraceArg Converter::pad_value(size_t i) {
  Value pad = a_[i].as<script::Str>() ? eval_lambda(interp_, a_[i].as<script::Str>()->value) : a_[i];
  if (pad.is_none()) return TraceArg::none();
  std::vector<ir::Var> indices;
  static const char* kNames[] = {"i", "j", "k", "l", "m", "n"};
  for (size_t d = 0; d < map_.map_outputs.size(); ++d) {
    indices.push_back(ir::make_var(d < 6 ? kNames[d] : "i" + std::to_string(d), map_.map_outputs[d]->dtype));
  }
  if (pad.as<script::Function>() || pad.as<script::NativeFunction>()) {
    TraceArg m = call_index_map(interp_, pad, indices);
    if (m.map_outputs.size() != 1) a_.value_error(i, "a single value");
    return m;
  }
  ir::PrimExpr value;
  if (pad.is_bool()) value = ir::make_bool(pad.as_bool());
  // As TVM's Python side: a Python int or float takes an integer or float buffer's dtype.
  else if (pad.is_int() && buffer_ && buffer_->dtype.is_integer() && buffer_->dtype.lanes == 1)
    value = int_in(pad.as_int(), buffer_->dtype, i);
  else if (pad.is_int())
    value = ir::make_int(pad.as_int(), ir::DataType::int32());
  else if (pad.is_float() && buffer_ && buffer_->dtype.is_float() && buffer_->dtype.lanes == 1)
    value = ir::make_float(pad.as_float(), buffer_->dtype);
  else if (pad.is_float())
    value = ir::make_float(pad.as_float(), ir::DataType::float32());
  else
    value = to_expr(interp_, pad, "pad value");
  return TraceArg::of_index_map(std::move(indices), {value});
}

// `v` as a constant of the integer type `t`, which must hold it (TVM's IntImm check).
ir::PrimExpr Converter::int_in(int64_t v, ir::DataType t, size_t i) {
  int bits = t.bits;
  bool fits = t.is_uint() ? v >= 0 && (bits >= 64 || v < (int64_t{1} << bits))
                          : bits >= 64 || (v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1)));
  if (!fits) a_.value_error(i, "expected a value that fits in " + t.to_string() + " (got " + std::to_string(v) + ")");
  return ir::make_int(v, t);
}

}  // namespace tsch::bindings::schedule_args
