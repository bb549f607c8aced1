// Relax constants as TVM's metadata: the JSON object graph tvm.ir.save_json writes
// ({"root_index", "nodes", "metadata"}; an ffi.Map from "relax.expr.Constant" to an ffi.Array
// of relax.expr.Constant nodes, each holding its tensor as base64 of TVM's SaveDLTensor bytes
// and its struct info). tvm.ir.load_json reads it back; the reader needs only each
// constant's tensor (the struct info follows from it).
#include "relax/metadata_json.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "ir/json_graph.h"
#include "support/error.h"

namespace tsch::relax {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr uint64_t kTensorMagic = 0xDD5E40F096B4A13FULL;  // TVM's kTVMNDArrayMagic
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string& in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kBase64[(v >> s) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(const std::string& in) {
  std::string out;
  uint32_t v = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r') continue;
    const char* p = std::strchr(kBase64, c);
    TSCH_USER_ASSERT(p && c != '\0', ValueError) << "load_json: a tensor's data is not base64";
    v = (v << 6) | static_cast<uint32_t>(p - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  return out;
}

// DLPack's dtype codes.
void dl_dtype(ir::DataType t, uint8_t& code, uint8_t& bits, uint16_t& lanes) {
  lanes = static_cast<uint16_t>(t.lanes);
  bits = static_cast<uint8_t>(t.bits);
  if (t.is_bool()) {
    code = 1;  // kDLUInt, 1 bit (TVM's bool)
    bits = 1;
  } else if (t.is_float()) {
    code = 2;
  } else if (t.is_uint()) {
    code = 1;
  } else {
    code = 0;
  }
}

ir::DataType from_dl(uint8_t code, uint8_t bits, uint16_t lanes) {
  std::string name;
  if (code == 1 && bits == 1) return ir::DataType::bool_();
  if (code == 0)
    name = "int";
  else if (code == 1)
    name = "uint";
  else if (code == 2)
    name = "float";
  else
    TSCH_USER_ASSERT(false, NotImplementedError)
        << "load_json: not supported yet: a tensor of DLPack type code " << int(code);
  auto t = ir::DataType::parse(name + std::to_string(bits));
  TSCH_USER_ASSERT(t && lanes == 1, NotImplementedError)
      << "load_json: not supported yet: a tensor of " << name << int(bits) << "x" << lanes;
  return *t;
}

template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
T get(const std::string& in, size_t& at) {
  TSCH_USER_ASSERT(at + sizeof(T) <= in.size(), ValueError) << "load_json: a tensor's bytes are truncated";
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

// TVM's SaveDLTensor layout: magic, reserved, device, ndim, dtype, shape, byte size, data.
std::string save_tensor(const runtime::NDArray& a) {
  std::string out;
  put<uint64_t>(out, kTensorMagic);
  put<uint64_t>(out, 0);
  put<int32_t>(out, 1);  // kDLCPU
  put<int32_t>(out, 0);
  put<int32_t>(out, a.ndim());
  uint8_t code, bits;
  uint16_t lanes;
  dl_dtype(a.dtype(), code, bits, lanes);
  put(out, code);
  put(out, bits);
  put(out, lanes);
  for (int64_t d : a.shape()) put<int64_t>(out, d);
  std::shared_ptr<runtime::NDArray> dense = a.copy();
  put<int64_t>(out, static_cast<int64_t>(dense->nbytes()));
  out.append(static_cast<const char*>(dense->data()), dense->nbytes());
  return out;
}

runtime::NDArrayRef load_tensor(const std::string& bytes) {
  size_t at = 0;
  TSCH_USER_ASSERT(get<uint64_t>(bytes, at) == kTensorMagic, ValueError)
      << "load_json: a tensor without TVM's magic number";
  get<uint64_t>(bytes, at);
  get<int32_t>(bytes, at);
  get<int32_t>(bytes, at);
  int32_t ndim = get<int32_t>(bytes, at);
  TSCH_USER_ASSERT(ndim >= 0 && ndim <= 64, ValueError) << "load_json: a tensor of " << ndim << " dimensions";
  uint8_t code = get<uint8_t>(bytes, at), bits = get<uint8_t>(bytes, at);
  uint16_t lanes = get<uint16_t>(bytes, at);
  ir::DataType dtype = from_dl(code, bits, lanes);
  runtime::Shape shape;
  for (int32_t i = 0; i < ndim; ++i) {
    shape.push_back(get<int64_t>(bytes, at));
    TSCH_USER_ASSERT(shape.back() >= 0, ValueError) << "load_json: a negative dimension";
  }
  int64_t size = get<int64_t>(bytes, at);
  auto arr = std::make_shared<runtime::NDArray>(dtype, shape);
  TSCH_USER_ASSERT(size == static_cast<int64_t>(arr->nbytes()) && at + size <= bytes.size(), ValueError)
      << "load_json: a tensor's byte size does not match its shape";
  std::memcpy(arr->data(), bytes.data() + at, static_cast<size_t>(size));
  return arr;
}

class Writer : public ir::JsonGraphWriter {
 public:
  int64_t int_imm(int64_t v) {
    ordered_json d;
    d["span"] = none();
    d["dtype"] = "int64";
    d["value"] = v;
    return object("ir.IntImm", d);
  }
  // A constant with its struct info (TVM's fields: span, struct_info_, data).
  int64_t constant(const ConstantNode& c) {
    const runtime::NDArray& a = *c.data;
    std::vector<int64_t> dims;
    for (int64_t d : a.shape()) dims.push_back(int_imm(d));
    int64_t values = array(dims);
    ordered_json ssi;
    ssi["span"] = none();
    ssi["values"] = values;
    ssi["ndim"] = a.ndim();
    int64_t shape_sinfo = object("relax.ShapeStructInfo", ssi);
    ordered_json shape;
    shape["span"] = none();
    shape["struct_info_"] = shape_sinfo;
    shape["values"] = values;
    int64_t shape_expr = object("relax.expr.ShapeExpr", shape);
    ordered_json tsi;
    tsi["span"] = none();
    tsi["shape"] = shape_expr;
    tsi["vdevice"] = none();
    tsi["dtype"] = a.dtype().to_string();
    tsi["ndim"] = a.ndim();
    int64_t sinfo = object("relax.TensorStructInfo", tsi);
    int64_t tensor = object("ffi.Tensor", base64_encode(save_tensor(a)));
    ordered_json node;
    node["span"] = none();
    node["struct_info_"] = sinfo;
    node["data"] = tensor;
    return object("relax.expr.Constant", node);
  }
};

}  // namespace

std::string metadata_to_json_graph(const std::vector<std::pair<std::string, Expr>>& objects) {
  Writer w;
  // Keys in order of first appearance, each with its objects in index order.
  std::vector<std::pair<std::string, std::vector<int64_t>>> groups;
  for (const auto& [key, e] : objects) {
    auto* c = as<ConstantNode>(e);
    TSCH_USER_ASSERT(c, NotImplementedError) << "not supported yet: " << key << " in metadata";
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.emplace_back(key, std::vector<int64_t>{});
      it = groups.end() - 1;
    }
    it->second.push_back(w.constant(*c));
  }
  std::vector<int64_t> map;
  for (const auto& [key, items] : groups) {
    int64_t k = w.string(key);
    map.push_back(k);
    map.push_back(w.array(items));
  }
  return w.finish(w.object("ffi.Map", map)).dump(2);
}

std::vector<std::pair<std::string, std::vector<Expr>>> metadata_from_json_graph(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw UserError(UserErrorKind::ValueError, "load_json: the text is not JSON");
  ir::JsonGraphReader r(doc, "Relax metadata");
  const json& map = r.at(r.root());
  std::string t = r.type_of(map);
  if (t != "ffi.Map" && t != "Map")
    throw UserError(UserErrorKind::NotImplementedError,
                    "load_json: not supported yet: a " + t + " (tsch reads Relax metadata)");
  if (!map.contains("data") || !map["data"].is_array() || map["data"].size() % 2)
    r.bad("a map's data must be key/value pairs");
  std::vector<std::pair<std::string, std::vector<Expr>>> out;
  const json& kv = map["data"];
  for (size_t i = 0; i < kv.size(); i += 2) {
    if (!kv[i].is_number_integer() || !kv[i + 1].is_number_integer())
      r.bad("a map entry is not a pair of node indices");
    std::string key = r.string_at(kv[i].get<int64_t>());
    std::vector<Expr> exprs;
    for (int64_t item : r.sequence(kv[i + 1].get<int64_t>())) {
      const json& c = r.at(item);
      if (r.type_of(c) != "relax.expr.Constant") {
        throw UserError(UserErrorKind::NotImplementedError,
                        "load_json: not supported yet: a " + r.type_of(c) + " in metadata");
      }
      const json& tensor = r.at(r.field(r.fields(c), "data"));
      std::string tt = r.type_of(tensor);
      if ((tt != "ffi.Tensor" && tt != "runtime.Tensor" && tt != "runtime.NDArray") || !tensor.contains("data") ||
          !tensor["data"].is_string()) {
        r.bad("a constant's data is not a tensor");
      }
      exprs.push_back(make_constant(load_tensor(base64_decode(tensor["data"].get<std::string>()))));
    }
    out.emplace_back(key, std::move(exprs));
  }
  return out;
}

void register_metadata_writer() {
  ir::metadata_writer() = [](const std::vector<std::pair<std::string, std::shared_ptr<const void>>>& objects) {
    std::vector<std::pair<std::string, Expr>> exprs;
    for (const auto& [key, o] : objects) exprs.emplace_back(key, std::static_pointer_cast<const ExprNode>(o));
    return metadata_to_json_graph(exprs);
  };
}

}  // namespace tsch::relax
