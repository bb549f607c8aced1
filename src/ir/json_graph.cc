#include "ir/json_graph.h"

#include "support/error.h"

namespace tsch::ir {

using nlohmann::json;
using nlohmann::ordered_json;

int64_t JsonGraphWriter::none() {
  if (none_ < 0) none_ = object("None", nullptr);
  return none_;
}

int64_t JsonGraphWriter::string(const std::string& s) {
  auto it = strings_.find(s);
  if (it != strings_.end()) return it->second;
  return strings_[s] = object("ffi.String", s);
}

int64_t JsonGraphWriter::object(const std::string& type, ordered_json data) {
  ordered_json node;
  node["type"] = type;
  if (!data.is_null() || type != "None") node["data"] = std::move(data);
  nodes_.push_back(std::move(node));
  return static_cast<int64_t>(nodes_.size()) - 1;
}

ordered_json JsonGraphWriter::finish(int64_t root) const {
  ordered_json out;
  out["root_index"] = root;
  out["nodes"] = nodes_;
  out["metadata"] = ordered_json{{"tvm_version", "0.23.0"}};
  return out;
}

JsonGraphReader::JsonGraphReader(const json& doc, std::string what) : what_(std::move(what)) {
  if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array())
    bad("expected {\"root_index\", \"nodes\"}");
  nodes_ = &doc["nodes"];
  const json* root = doc.contains("root_index") ? &doc["root_index"] : doc.contains("root") ? &doc["root"] : nullptr;
  if (!root || !root->is_number_integer()) bad("no root_index");
  root_ = root->get<int64_t>();
}

void JsonGraphReader::bad(const std::string& why) const {
  throw UserError(UserErrorKind::ValueError, "not " + what_ + " in TVM's JSON graph form: " + why);
}

const json& JsonGraphReader::at(int64_t index) const {
  if (index < 0 || index >= static_cast<int64_t>(nodes_->size()))
    bad("node index " + std::to_string(index) + " out of range");
  const json& node = (*nodes_)[static_cast<size_t>(index)];
  if (!node.is_object() || !node.contains("type") || !node["type"].is_string()) bad("a node without a type");
  return node;
}

const json& JsonGraphReader::at(const json& index) const {
  if (!index.is_number_integer()) bad("expected a node index");
  return at(index.get<int64_t>());
}

const json& JsonGraphReader::fields(const json& node) const {
  if (!node.contains("data") || !node["data"].is_object()) bad("a " + type_of(node) + " node without its fields");
  return node["data"];
}

int64_t JsonGraphReader::field(const json& data, const char* name) const {
  if (!data.contains(name) || !data[name].is_number_integer()) bad(std::string("missing field ") + name);
  return data[name].get<int64_t>();
}

std::vector<int64_t> JsonGraphReader::sequence(int64_t index) const {
  const json& node = at(index);
  std::string type = type_of(node);
  if ((type != "ffi.Array" && type != "Array" && type != "ffi.List") || !node.contains("data") ||
      !node["data"].is_array()) {
    bad("expected an array node");
  }
  std::vector<int64_t> items;
  for (const json& x : node["data"]) {
    if (!x.is_number_integer()) bad("an array item is not a node index");
    items.push_back(x.get<int64_t>());
  }
  return items;
}

std::string JsonGraphReader::string_at(int64_t index) const {
  const json& node = at(index);
  if (type_of(node) != "ffi.String" || !node.contains("data") || !node["data"].is_string())
    bad("expected a string node");
  return node["data"].get<std::string>();
}

}  // namespace tsch::ir
