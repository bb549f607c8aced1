// TVM's JSON object graph (node.SaveJSON, tvm-ffi's ToJSONGraph): {"root_index": n, "nodes":
// [{"type": "...", "data": ...}, ...], "metadata": {"tvm_version": ...}}. An object's data
// holds its fields: inline values (ints, floats, dtype strings) or the indices of other
// nodes. What the IR's serialized forms share: an IndexMap in a trace, Relax constants as
// module metadata.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tsch::ir {

// Appends nodes in the order TVM's serializer does (children before parents), one node per
// object and per distinct None or string.
class JsonGraphWriter {
 public:
  int64_t none();
  int64_t string(const std::string& s);
  int64_t array(const std::vector<int64_t>& items) { return object("ffi.Array", items); }
  int64_t object(const std::string& type, nlohmann::ordered_json data);
  // The graph with `root` as its root, TVM 0.23's metadata attached.
  nlohmann::ordered_json finish(int64_t root) const;

 private:
  nlohmann::ordered_json nodes_ = nlohmann::ordered_json::array();
  int64_t none_ = -1;
  std::map<std::string, int64_t> strings_;
};

// Reads a graph written by TVM (0.23's "root_index", earlier versions' "root") or by
// JsonGraphWriter. Every malformation is a UserError (ValueError) saying "not <what> in
// TVM's JSON graph form: ...".
class JsonGraphReader {
 public:
  JsonGraphReader(const nlohmann::json& doc, std::string what);
  int64_t root() const { return root_; }
  // The node at `index` (checked: in range, with a type).
  const nlohmann::json& at(int64_t index) const;
  const nlohmann::json& at(const nlohmann::json& index) const;
  static std::string type_of(const nlohmann::json& node) { return node["type"].get<std::string>(); }
  // An object node's fields; an integer field's value.
  const nlohmann::json& fields(const nlohmann::json& node) const;
  int64_t field(const nlohmann::json& data, const char* name) const;
  // The node indices of an array node / the text of a string node at `index`.
  std::vector<int64_t> sequence(int64_t index) const;
  std::string string_at(int64_t index) const;
  [[noreturn]] void bad(const std::string& why) const;

 private:
  const nlohmann::json* nodes_ = nullptr;
  int64_t root_ = 0;
  std::string what_;
};

}  // namespace tsch::ir
