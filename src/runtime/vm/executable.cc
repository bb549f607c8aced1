#include "runtime/vm/executable.h"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

#include "support/error.h"

namespace tsch::runtime::vm {

using ArgKind = Instruction::ArgKind;
using FuncKind = VMFuncInfo::FuncKind;

// ---------------------------------------------------------------------------------------
// Text forms
// ---------------------------------------------------------------------------------------

namespace {

std::string function_name(const Executable& exec, Index index) {
  if (index >= 0 && static_cast<size_t>(index) < exec.func_table.size()) return exec.func_table[index].name;
  return "unknown_func_index(" + std::to_string(index) + ")";
}

std::string arg_text(const Executable& exec, const Instruction::Arg& arg) {
  switch (arg.kind()) {
    case ArgKind::kRegister:
      return register_text(arg.value());
    case ArgKind::kImmediate:
      return "i" + std::to_string(arg.value());
    case ArgKind::kConstIdx:
      return "c[" + std::to_string(arg.value()) + "]";
    case ArgKind::kFuncIdx:
      return "f[" + function_name(exec, arg.value()) + "]";
  }
  return "?";
}

std::string arg_python(const Executable& exec, const Instruction::Arg& arg) {
  switch (arg.kind()) {
    case ArgKind::kRegister:
      return arg.value() == Instruction::kVMRegister ? "ib.r(vm)" : "ib.r(" + std::to_string(arg.value()) + ")";
    case ArgKind::kImmediate:
      return "ib.imm(" + std::to_string(arg.value()) + ")";
    case ArgKind::kConstIdx:
      return "ib.c(" + std::to_string(arg.value()) + ")";
    case ArgKind::kFuncIdx: {
      Index i = arg.value();
      if (i >= 0 && static_cast<size_t>(i) < exec.func_table.size()) return "ib.f(\"" + exec.func_table[i].name + "\")";
      return "ib.f(ib.unknown_func_index(" + std::to_string(i) + "))";
    }
  }
  return "?";
}

template <typename F>
std::string join(const std::vector<Instruction::Arg>& args, F&& text) {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + text(args[i]);
  return s;
}

}  // namespace

std::string Executable::as_text() const {
  std::ostringstream os;
  for (const VMFuncInfo& f : func_table) {
    if (f.kind == FuncKind::kPackedFunc) {
      os << "@" << f.name << " packed_func;\n\n";
      continue;
    }
    if (f.kind == FuncKind::kVMTIRFunc) {
      os << "@" << f.name << " num_inputs=" << f.num_args << " vm_tir_func;\n\n";
      continue;
    }
    os << "@" << f.name << ":\n";
    for (Index pc = f.start_instr; pc < f.end_instr && static_cast<size_t>(pc) < instructions.size(); ++pc) {
      const Instruction& in = instructions[pc];
      os << "  ";
      switch (in.op) {
        case Opcode::Call:
          os << std::setw(6) << std::left << "call" << std::setw(16) << std::left << function_name(*this, in.func_idx)
             << " in: " << std::setw(12) << std::left
             << join(in.args, [&](const Instruction::Arg& a) { return arg_text(*this, a); })
             << " dst: " << register_text(in.dst) << "\n";
          break;
        case Opcode::Ret:
          os << std::setw(6) << std::left << "ret " << register_text(in.result) << "\n";
          break;
        case Opcode::Goto:
          os << std::setw(6) << std::left << "goto" << in.pc_offset << "\n";
          break;
        // TVM prints this opcode capitalized.
        case Opcode::If:
          os << std::setw(6) << std::left << "If" << register_text(in.cond) << ", " << in.false_offset << "\n";
          break;
      }
    }
    os << "\n";
  }
  return os.str();
}

std::string Executable::as_python() const {
  std::ostringstream os;
  os << "ib = rx.Builder()\n";
  for (const VMFuncInfo& f : func_table) {
    if (f.kind != FuncKind::kVMFunc) continue;
    os << "with ib.function(\"" << f.name << "\", num_inputs=" << f.num_args << "):\n";
    for (Index pc = f.start_instr; pc < f.end_instr && static_cast<size_t>(pc) < instructions.size(); ++pc) {
      const Instruction& in = instructions[pc];
      switch (in.op) {
        case Opcode::Call: {
          std::string callee = in.func_idx >= 0 && static_cast<size_t>(in.func_idx) < func_table.size()
                                   ? "\"" + func_table[in.func_idx].name + "\""
                                   : "ib.unknown_func_index(" + std::to_string(in.func_idx) + ")";
          os << "    ib.emit_call(" << callee << ", args=["
             << join(in.args, [&](const Instruction::Arg& a) { return arg_python(*this, a); }) << "]";
          if (in.dst != Instruction::kVoidRegister) os << ", dst=ib.r(" << in.dst << ")";
          os << ")\n";
          break;
        }
        case Opcode::Ret:
          os << "    ib.emit_ret(ib.r(" << in.result << "))\n";
          break;
        case Opcode::Goto:
          os << "    ib.emit_goto(" << in.pc_offset << ")\n";
          break;
        case Opcode::If:
          os << "    ib.emit_if(ib.r(" << in.cond << "), " << in.false_offset << ")\n";
          break;
      }
    }
  }
  return os.str();
}

namespace {

std::string constant_summary(const Any& c) {
  auto dims = [](const Shape& s) {
    std::string t;
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t;
  };
  switch (c.kind()) {
    case Any::Kind::NDArray: {
      const Shape& s = c.as_ndarray()->shape();
      return s.empty() ? "scalar" : "[" + dims(s) + "]";
    }
    case Any::Kind::Shape:
      return "shapetuple[" + dims(c.as_shape()) + "]";
    case Any::Kind::Str:
      return "\"" + c.as_str() + "\"";
    case Any::Kind::Int:
      return std::to_string(c.as_int());
    case Any::Kind::Bool:
      return c.as_bool() ? "True" : "False";
    case Any::Kind::Float: {
      std::ostringstream os;
      os << c.as_float();
      return os.str();
    }
    default:
      return c.type_name();
  }
}

}  // namespace

std::string Executable::stats() const {
  std::ostringstream os;
  os << "Relax VM executable statistics:\n";
  os << "  Constant pool (# " << constants.size() << "): [";
  for (size_t i = 0; i < constants.size(); ++i) os << (i ? ", " : "") << constant_summary(constants[i]);
  os << "]\n";
  os << "  Globals (#" << func_table.size() << "): [";
  for (size_t i = 0; i < func_table.size(); ++i) os << (i ? ", " : "") << func_table[i].name;
  os << "]\n";
  return os.str();
}

// ---------------------------------------------------------------------------------------
// Validation: done once, so the interpreter's loop checks nothing per instruction.
// ---------------------------------------------------------------------------------------

void Executable::validate() const {
  auto count = static_cast<Index>(instructions.size());
  auto n_funcs = static_cast<Index>(func_table.size());
  auto n_consts = static_cast<Index>(constants.size());
  TSCH_USER_ASSERT(func_map.size() == func_table.size(), ValueError)
      << "invalid VM executable: " << func_table.size() << " functions but " << func_map.size() << " names";
  for (Index fi = 0; fi < n_funcs; ++fi) {
    const VMFuncInfo& f = func_table[fi];
    auto it = func_map.find(f.name);
    TSCH_USER_ASSERT(it != func_map.end() && it->second == fi, ValueError)
        << "invalid VM executable: function " << fi << " (" << f.name << ") is not in the name table";
    TSCH_USER_ASSERT(f.kind == FuncKind::kPackedFunc || f.kind == FuncKind::kVMFunc || f.kind == FuncKind::kVMTIRFunc,
                     ValueError)
        << "invalid VM executable: function " << f.name << " has the unknown kind " << static_cast<int>(f.kind);
    if (f.kind != FuncKind::kVMFunc) continue;
    std::string where = "VM function " + f.name;
    TSCH_USER_ASSERT(f.num_args >= 0, ValueError) << where << " was declared but never emitted";
    TSCH_USER_ASSERT(f.param_names.empty() || static_cast<Index>(f.param_names.size()) == f.num_args, ValueError)
        << where << " takes " << f.num_args << " arguments but has " << f.param_names.size() << " parameter names";
    TSCH_USER_ASSERT(f.register_file_size >= f.num_args && f.register_file_size < Instruction::kBeginSpecialReg,
                     ValueError)
        << where << " has " << f.register_file_size << " registers, fewer than its " << f.num_args << " arguments";
    TSCH_USER_ASSERT(0 <= f.start_instr && f.start_instr < f.end_instr && f.end_instr <= count, ValueError)
        << where << " has no instructions (or end_function was not called): range [" << f.start_instr << ", "
        << f.end_instr << ") of " << count;
    // Each instruction writes at most one register: a larger file is corrupt, and would be
    // allocated on every call.
    TSCH_USER_ASSERT(f.register_file_size - f.num_args <= f.end_instr - f.start_instr, ValueError)
        << where << " has " << f.register_file_size << " registers, more than its " << f.num_args << " arguments and "
        << f.end_instr - f.start_instr << " instructions can use";
    Opcode last = instructions[f.end_instr - 1].op;
    TSCH_USER_ASSERT(last == Opcode::Ret || last == Opcode::Goto, ValueError)
        << where << " does not end with ret or goto: execution would run past its end";
    auto check_reg = [&](Index pc, RegName r, bool written) {
      bool special = r == Instruction::kVoidRegister || r == Instruction::kVMRegister;
      TSCH_USER_ASSERT((r >= 0 && r < f.register_file_size) || (special && !(written && r == Instruction::kVMRegister)),
                       ValueError)
          << where << ", instruction " << pc - f.start_instr << ": register " << register_text(r)
          << " is outside its register file of " << f.register_file_size;
    };
    auto check_target = [&](Index pc, Index offset) {
      Index target = pc + offset;
      TSCH_USER_ASSERT(target >= f.start_instr && target < f.end_instr, ValueError)
          << where << ", instruction " << pc - f.start_instr << ": jump by " << offset << " lands outside the function";
    };
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      const Instruction& in = instructions[pc];
      switch (in.op) {
        case Opcode::Call:
          TSCH_USER_ASSERT(in.func_idx >= 0 && in.func_idx < n_funcs, ValueError)
              << where << ", instruction " << pc - f.start_instr << ": calls function index " << in.func_idx << " of "
              << n_funcs;
          check_reg(pc, in.dst, true);
          for (const auto& a : in.args) {
            switch (a.kind()) {
              case ArgKind::kRegister:
                check_reg(pc, a.value(), false);
                break;
              case ArgKind::kImmediate:
                break;
              case ArgKind::kConstIdx:
                TSCH_USER_ASSERT(a.value() >= 0 && a.value() < n_consts, ValueError)
                    << where << ", instruction " << pc - f.start_instr << ": constant c[" << a.value()
                    << "] is outside the pool of " << n_consts;
                break;
              case ArgKind::kFuncIdx:
                TSCH_USER_ASSERT(a.value() >= 0 && a.value() < n_funcs, ValueError)
                    << where << ", instruction " << pc - f.start_instr << ": function index " << a.value() << " of "
                    << n_funcs;
                break;
              default:
                TSCH_USER_ASSERT(false, ValueError) << where << ", instruction " << pc - f.start_instr
                                                    << ": unknown argument kind " << static_cast<int>(a.kind());
            }
          }
          break;
        case Opcode::Ret:
          check_reg(pc, in.result, false);
          break;
        case Opcode::Goto:
          TSCH_USER_ASSERT(in.pc_offset != 0, ValueError)
              << where << ", instruction " << pc - f.start_instr << ": goto 0 loops forever";
          check_target(pc, in.pc_offset);
          break;
        case Opcode::If:
          check_reg(pc, in.cond, false);
          TSCH_USER_ASSERT(in.false_offset > 1, ValueError)
              << where << ", instruction " << pc - f.start_instr << ": If's false offset must be greater than 1, got "
              << in.false_offset;
          check_target(pc, in.false_offset);
          break;
        default:
          TSCH_USER_ASSERT(false, ValueError)
              << where << ", instruction " << pc - f.start_instr << ": unknown opcode " << static_cast<int>(in.op);
      }
    }
  }
}

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

// ---------------------------------------------------------------------------------------
// ExecBuilder
// ---------------------------------------------------------------------------------------

namespace {

// Not emitted yet (TVM's marker).
constexpr Index kUndefinedArgs = -2;

// Constants that compare by value share one pool entry; arrays, functions and objects by
// identity.
bool same_constant(const Any& a, const Any& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Any::Kind::None:
      return true;
    case Any::Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Any::Kind::Int:
      return a.as_int() == b.as_int();
    case Any::Kind::Float: {
      double x = a.as_float(), y = b.as_float();
      return std::memcmp(&x, &y, sizeof x) == 0;  // -0.0 and NaNs stay apart
    }
    case Any::Kind::Str:
      return a.as_str() == b.as_str();
    case Any::Kind::Shape:
      return a.as_shape() == b.as_shape();
    case Any::Kind::NDArray:
      return a.as_ndarray() == b.as_ndarray();
    case Any::Kind::Function:
      return a.as_function() == b.as_function();
    case Any::Kind::Object:
      return a.as_object() == b.as_object();
    case Any::Kind::Tuple: {
      const auto& x = a.as_tuple();
      const auto& y = b.as_tuple();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same_constant(x[i], y[i])) return false;
      return true;
    }
  }
  return false;
}

}  // namespace

ExecBuilder::ExecBuilder() : exec_(std::make_shared<Executable>()) {}

VMFuncInfo& ExecBuilder::function(const std::string& name) {
  auto it = exec_->func_map.find(name);
  TSCH_USER_ASSERT(it != exec_->func_map.end(), ValueError) << "ExecBuilder: no function named " << name;
  return exec_->func_table[it->second];
}

void ExecBuilder::declare_function(const std::string& name, VMFuncInfo::FuncKind kind) {
  auto it = exec_->func_map.find(name);
  if (it != exec_->func_map.end()) {
    TSCH_USER_ASSERT(exec_->func_table[it->second].kind == kind, ValueError)
        << "ExecBuilder: function " << name << " is already declared as a different kind";
    return;
  }
  VMFuncInfo f;
  f.kind = kind;
  f.name = name;
  f.num_args = kUndefinedArgs;
  exec_->func_map[name] = static_cast<Index>(exec_->func_table.size());
  exec_->func_table.push_back(std::move(f));
}

void ExecBuilder::emit_function(const std::string& name, int64_t num_args, std::vector<std::string> param_names,
                                VMFuncInfo::FuncKind kind, int64_t init_register_size) {
  declare_function(name, kind);
  VMFuncInfo& f = function(name);
  TSCH_USER_ASSERT(f.num_args == kUndefinedArgs, ValueError)
      << "ExecBuilder: function " << name << " is already defined";
  TSCH_USER_ASSERT(num_args >= 0, ValueError)
      << "ExecBuilder: function " << name << " has " << num_args << " arguments";
  TSCH_USER_ASSERT(param_names.empty() || static_cast<int64_t>(param_names.size()) == num_args, ValueError)
      << "ExecBuilder: function " << name << " is defined with " << num_args
      << " arguments, but the list of parameter names has " << param_names.size() << " names";
  f.num_args = num_args;
  f.param_names = std::move(param_names);
  f.register_file_size = std::max(init_register_size, num_args);
  if (kind == FuncKind::kVMFunc) f.start_instr = next_pc();
}

void ExecBuilder::end_function(const std::string& name) {
  VMFuncInfo& f = function(name);
  TSCH_USER_ASSERT(f.end_instr == 0, ValueError) << "ExecBuilder: end_function(" << name << ") called twice";
  if (f.kind == FuncKind::kVMFunc) f.end_instr = next_pc();
}

void ExecBuilder::emit_call(const std::string& func_name, std::vector<Arg> args, RegName dst) {
  if (!exec_->has_function(func_name)) declare_function(func_name, FuncKind::kPackedFunc);
  exec_->instructions.push_back(Instruction::Call(exec_->func_map.at(func_name), std::move(args), dst));
}

void ExecBuilder::emit_ret(RegName result) { exec_->instructions.push_back(Instruction::Ret(result)); }
void ExecBuilder::emit_goto(Index pc_offset) { exec_->instructions.push_back(Instruction::Goto(pc_offset)); }
void ExecBuilder::emit_if(RegName cond, Index false_offset) {
  exec_->instructions.push_back(Instruction::If(cond, false_offset));
}

void ExecBuilder::patch_if(Index pc, Index false_offset) {
  TSCH_INTERNAL_ASSERT(pc >= 0 && pc < next_pc() && exec_->instructions[pc].op == Opcode::If) << "patch_if: no If at " << pc;
  exec_->instructions[pc].false_offset = false_offset;
}

void ExecBuilder::patch_goto(Index pc, Index pc_offset) {
  TSCH_INTERNAL_ASSERT(pc >= 0 && pc < next_pc() && exec_->instructions[pc].op == Opcode::Goto) << "patch_goto: no Goto at " << pc;
  exec_->instructions[pc].pc_offset = pc_offset;
}

ExecBuilder::Arg ExecBuilder::convert_constant(const Any& value) {
  if (value.kind() == Any::Kind::Int) return Arg::Immediate(value.as_int());
  for (size_t i = 0; i < exec_->constants.size(); ++i)
    if (same_constant(exec_->constants[i], value)) return Arg::ConstIdx(static_cast<Index>(i));
  exec_->constants.push_back(value);
  return Arg::ConstIdx(static_cast<Index>(exec_->constants.size() - 1));
}

ExecBuilder::Arg ExecBuilder::function_arg(const std::string& name) {
  if (!exec_->has_function(name)) declare_function(name, FuncKind::kPackedFunc);
  return Arg::FuncIdx(exec_->func_map.at(name));
}

// Registers past the arguments are renumbered in the order they are first written, so the
// register file is as small as the code allows. Uses are renamed after all definitions are
// known: a loop may read a register its body writes further down.
void ExecBuilder::formalize() {
  for (VMFuncInfo& f : exec_->func_table) {
    if (f.kind != FuncKind::kVMFunc || f.num_args < 0 || f.end_instr <= f.start_instr) continue;
    auto ordinary = [&](RegName r) { return r >= f.num_args && r < Instruction::kBeginSpecialReg; };
    std::map<RegName, RegName> renamed;
    RegName next = f.num_args;
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      const Instruction& in = exec_->instructions[pc];
      if (in.op == Opcode::Call && ordinary(in.dst) && !renamed.count(in.dst)) renamed[in.dst] = next++;
    }
    auto rename = [&](RegName& r) {
      if (!ordinary(r)) return;
      auto it = renamed.find(r);
      TSCH_USER_ASSERT(it != renamed.end(), ValueError)
          << "ExecBuilder: register " << register_text(r) << " in VM function \"" << f.name
          << "\" is used as input while it is never defined as a destination";
      r = it->second;
    };
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      Instruction& in = exec_->instructions[pc];
      switch (in.op) {
        case Opcode::Call:
          rename(in.dst);
          for (auto& a : in.args) {
            if (a.kind() != ArgKind::kRegister) continue;
            RegName r = a.value();
            rename(r);
            a = Arg::Register(r);
          }
          break;
        case Opcode::Ret:
          rename(in.result);
          break;
        case Opcode::If:
          rename(in.cond);
          break;
        case Opcode::Goto:
          break;
      }
    }
    f.register_file_size = next;
  }
}

std::shared_ptr<Executable> ExecBuilder::get() {
  formalize();
  for (const VMFuncInfo& f : exec_->func_table) {
    TSCH_USER_ASSERT(f.kind == FuncKind::kPackedFunc || f.num_args != kUndefinedArgs, ValueError)
        << "ExecBuilder: function " << f.name << " is declared but never emitted";
  }
  exec_->validate();
  return std::make_shared<Executable>(*exec_);
}

}  // namespace tsch::runtime::vm
