// The executable's binary form (Executable::save / load).
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "runtime/vm/executable.h"
#include "support/error.h"

namespace tsch::runtime::vm {

using ArgKind = Instruction::ArgKind;
using FuncKind = VMFuncInfo::FuncKind;

// ---------------------------------------------------------------------------------------
// Binary form: magic, version, then the function table, the constants and the code.
// Integers are little-endian; strings and lists carry a u64 count first.
// ---------------------------------------------------------------------------------------

namespace {

constexpr char kMagic[8] = {'T', 'S', 'C', 'H', 'R', 'V', 'M', '\n'};
constexpr uint32_t kFormatVersion = 1;
// Tuples nest; a corrupt blob must not recurse off the stack.
constexpr int kMaxConstantNesting = 64;

enum class ConstTag : uint8_t { None = 0, Bool = 1, Int = 2, Float = 3, Str = 4, NDArray = 5, Shape = 6, Tuple = 7 };

class Writer {
 public:
  template <typename T>
  void pod(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
  }
  void str(const std::string& s) {
    pod<uint64_t>(s.size());
    out += s;
  }
  void constant(const Any& c, size_t index) {
    switch (c.kind()) {
      case Any::Kind::None:
        pod(ConstTag::None);
        return;
      case Any::Kind::Bool:
        pod(ConstTag::Bool);
        pod<uint8_t>(c.as_bool());
        return;
      case Any::Kind::Int:
        pod(ConstTag::Int);
        pod<int64_t>(c.as_int());
        return;
      case Any::Kind::Float:
        pod(ConstTag::Float);
        pod<double>(c.as_float());
        return;
      case Any::Kind::Str:
        pod(ConstTag::Str);
        str(c.as_str());
        return;
      case Any::Kind::Shape:
        pod(ConstTag::Shape);
        pod<uint64_t>(c.as_shape().size());
        for (int64_t d : c.as_shape()) pod<int64_t>(d);
        return;
      case Any::Kind::Tuple:
        pod(ConstTag::Tuple);
        pod<uint64_t>(c.as_tuple().size());
        for (const Any& item : c.as_tuple()) constant(item, index);
        return;
      case Any::Kind::NDArray: {
        NDArrayRef keep;
        const NDArray& a = dense(*c.as_ndarray(), keep);
        pod(ConstTag::NDArray);
        str(a.dtype().to_string());
        pod<uint64_t>(a.shape().size());
        for (int64_t d : a.shape()) pod<int64_t>(d);
        pod<uint64_t>(a.nbytes());
        out.append(static_cast<const char*>(a.data()), a.nbytes());
        return;
      }
      case Any::Kind::Function:
      case Any::Kind::Object:
        break;
    }
    TSCH_USER_ASSERT(false, ValueError) << "cannot save the VM executable: constant c[" << index << "] is a "
                                        << c.type_name()
                                        << "; only arrays, numbers, strings, shapes and tuples can be saved";
  }
  std::string out;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  const char* section = "header";

  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(UserErrorKind::ValueError, "invalid VM executable (" + std::to_string(bytes_.size()) +
                                                   " bytes) in the " + section + " section at byte " +
                                                   std::to_string(pos_) + ": " + what);
  }
  void need(uint64_t n) const {
    if (n > bytes_.size() - pos_) fail("it ends early (truncated?)");
  }
  template <typename T>
  T pod() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  // A count of items at least `item_bytes` long each: never more than the bytes left, so a
  // corrupt count cannot ask for a huge allocation.
  uint64_t count(uint64_t item_bytes) {
    auto n = pod<uint64_t>();
    if (item_bytes > 0 && n > (bytes_.size() - pos_) / item_bytes)
      fail("a count of " + std::to_string(n) + " does not fit the rest");
    return n;
  }
  std::string str() {
    uint64_t n = count(1);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  const char* raw(uint64_t n) {
    need(n);
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  bool at_end() const { return pos_ == bytes_.size(); }

  Any constant(int depth) {
    if (depth > kMaxConstantNesting) fail("tuples nested deeper than " + std::to_string(kMaxConstantNesting));
    auto tag = pod<uint8_t>();
    switch (static_cast<ConstTag>(tag)) {
      case ConstTag::None:
        return Any();
      case ConstTag::Bool:
        return Any::of_bool(pod<uint8_t>() != 0);
      case ConstTag::Int:
        return Any::of_int(pod<int64_t>());
      case ConstTag::Float:
        return Any::of_float(pod<double>());
      case ConstTag::Str:
        return Any::of_str(str());
      case ConstTag::Shape: {
        Shape dims(count(8));
        for (auto& d : dims) d = pod<int64_t>();
        return Any::of_shape(std::move(dims));
      }
      case ConstTag::Tuple: {
        std::vector<Any> items(count(1));
        for (auto& item : items) item = constant(depth + 1);
        return Any::of_tuple(std::move(items));
      }
      case ConstTag::NDArray:
        return ndarray();
    }
    fail("unknown constant tag " + std::to_string(tag));
  }

 private:
  Any ndarray() {
    std::string dtype_name = str();
    std::optional<ir::DataType> dtype = ir::DataType::parse(dtype_name);
    if (!dtype || !is_array_dtype(*dtype)) fail("an array constant has the dtype '" + dtype_name + "'");
    Shape shape(count(8));
    uint64_t elements = 1;
    for (auto& d : shape) {
      d = pod<int64_t>();
      if (d < 0) fail("an array constant has the negative dimension " + std::to_string(d));
      // Compared with what is left in the blob, so the product never overflows.
      if (d != 0 && elements > (bytes_.size() + 1) / static_cast<uint64_t>(d))
        elements = bytes_.size() + 1;
      else
        elements *= static_cast<uint64_t>(d);
    }
    auto nbytes = pod<uint64_t>();
    uint64_t expected = elements * static_cast<uint64_t>(element_bytes(*dtype));
    if (elements > bytes_.size() || nbytes != expected)
      fail("an array constant of shape " + shape_string(shape) + " and dtype " + dtype_name + " has " +
           std::to_string(nbytes) + " bytes of data");
    const char* data = raw(nbytes);
    NDArrayRef a = make_array(*dtype, shape);
    if (nbytes) std::memcpy(a->data(), data, nbytes);
    return Any::of_ndarray(std::move(a));
  }

  const std::string& bytes_;
  size_t pos_ = 0;
};

}  // namespace

std::string Executable::save() const {
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  w.pod<uint32_t>(kFormatVersion);
  w.pod<uint64_t>(func_table.size());
  for (const VMFuncInfo& f : func_table) {
    w.pod<int32_t>(static_cast<int32_t>(f.kind));
    w.str(f.name);
    w.pod<int64_t>(f.start_instr);
    w.pod<int64_t>(f.end_instr);
    w.pod<int64_t>(f.num_args);
    w.pod<int64_t>(f.register_file_size);
    w.pod<uint64_t>(f.param_names.size());
    for (const auto& p : f.param_names) w.str(p);
  }
  w.pod<uint64_t>(constants.size());
  for (size_t i = 0; i < constants.size(); ++i) w.constant(constants[i], i);
  w.pod<uint64_t>(instructions.size());
  for (const Instruction& in : instructions) {
    w.pod<uint8_t>(static_cast<uint8_t>(in.op));
    switch (in.op) {
      case Opcode::Call:
        w.pod<int64_t>(in.dst);
        w.pod<int64_t>(in.func_idx);
        w.pod<uint64_t>(in.args.size());
        for (const auto& a : in.args) {
          w.pod<uint8_t>(static_cast<uint8_t>(a.kind()));
          w.pod<int64_t>(a.value());
        }
        break;
      case Opcode::Ret:
        w.pod<int64_t>(in.result);
        break;
      case Opcode::Goto:
        w.pod<int64_t>(in.pc_offset);
        break;
      case Opcode::If:
        w.pod<int64_t>(in.cond);
        w.pod<int64_t>(in.false_offset);
        break;
    }
  }
  return std::move(w.out);
}

std::shared_ptr<Executable> Executable::load(const std::string& bytes) {
  Reader r(bytes);
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    r.fail("it does not start with the magic header of a tsch VM executable");
  r.raw(sizeof kMagic);
  auto version = r.pod<uint32_t>();
  if (version != kFormatVersion)
    r.fail("format version " + std::to_string(version) + ", but this tsch reads version " +
           std::to_string(kFormatVersion));

  auto exec = std::make_shared<Executable>();
  r.section = "function table";
  uint64_t n_funcs = r.count(4 + 8 + 8 * 4 + 8);
  for (uint64_t i = 0; i < n_funcs; ++i) {
    VMFuncInfo f;
    auto kind = r.pod<int32_t>();
    if (kind < 0 || kind > 2) r.fail("unknown function kind " + std::to_string(kind));
    f.kind = static_cast<FuncKind>(kind);
    f.name = r.str();
    f.start_instr = r.pod<int64_t>();
    f.end_instr = r.pod<int64_t>();
    f.num_args = r.pod<int64_t>();
    f.register_file_size = r.pod<int64_t>();
    f.param_names.resize(r.count(8));
    for (auto& p : f.param_names) p = r.str();
    if (!exec->func_map.emplace(f.name, static_cast<Index>(i)).second)
      r.fail("the function " + f.name + " appears twice");
    exec->func_table.push_back(std::move(f));
  }
  r.section = "constant";
  uint64_t n_consts = r.count(1);
  exec->constants.reserve(n_consts);
  for (uint64_t i = 0; i < n_consts; ++i) exec->constants.push_back(r.constant(0));
  r.section = "code";
  uint64_t n_instrs = r.count(9);
  exec->instructions.reserve(n_instrs);
  for (uint64_t i = 0; i < n_instrs; ++i) {
    auto op = r.pod<uint8_t>();
    switch (static_cast<Opcode>(op)) {
      case Opcode::Call: {
        auto dst = r.pod<int64_t>();
        auto func_idx = r.pod<int64_t>();
        std::vector<Instruction::Arg> args(r.count(9));
        for (auto& a : args) {
          auto kind = r.pod<uint8_t>();
          auto value = r.pod<int64_t>();
          switch (static_cast<ArgKind>(kind)) {
            case ArgKind::kRegister:
              a = Instruction::Arg::Register(value);
              break;
            case ArgKind::kImmediate:
              a = Instruction::Arg::Immediate(value);
              break;
            case ArgKind::kConstIdx:
              a = Instruction::Arg::ConstIdx(value);
              break;
            case ArgKind::kFuncIdx:
              a = Instruction::Arg::FuncIdx(value);
              break;
            default:
              r.fail("unknown argument kind " + std::to_string(kind));
          }
        }
        exec->instructions.push_back(Instruction::Call(func_idx, std::move(args), dst));
        break;
      }
      case Opcode::Ret:
        exec->instructions.push_back(Instruction::Ret(r.pod<int64_t>()));
        break;
      case Opcode::Goto:
        exec->instructions.push_back(Instruction::Goto(r.pod<int64_t>()));
        break;
      case Opcode::If: {
        auto cond = r.pod<int64_t>();
        exec->instructions.push_back(Instruction::If(cond, r.pod<int64_t>()));
        break;
      }
      default:
        r.fail("unknown opcode " + std::to_string(op));
    }
  }
  if (!r.at_end()) r.fail("bytes follow the last instruction");
  exec->validate();
  return exec;
}

}  // namespace tsch::runtime::vm
