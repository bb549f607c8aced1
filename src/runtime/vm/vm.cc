#include "runtime/vm/vm.h"

#include <atomic>

#include "runtime/call.h"
#include "runtime/registry.h"
#include "runtime/vm/builtin.h"
#include "support/error.h"
#include "support/interrupt.h"
#include "support/stack_guard.h"

namespace tsch::runtime::vm {

using FuncKind = VMFuncInfo::FuncKind;

// A call's registers. Frames are recycled: a call reuses the vectors' capacity.
struct VirtualMachine::Frame {
  std::vector<Any> regs;
  std::vector<Any> call_args;  // the arguments of the packed call being made
};

struct VirtualMachine::Callee {
  FuncKind kind = FuncKind::kPackedFunc;
  PackedFunc packed;  // kPackedFunc: null until resolved
};

struct VirtualMachine::StatsCell {
  std::atomic<int64_t> total{0}, live{0}, peak{0}, count{0};
};

// Gives a frame back on every way out of a call, exceptions included, dropping the values
// it held so storage is freed as soon as no register holds it.
class VirtualMachine::FrameGuard {
 public:
  FrameGuard(VirtualMachine& vm, std::unique_ptr<Frame> frame) : vm_(vm), frame_(std::move(frame)) {}
  FrameGuard(const FrameGuard&) = delete;
  FrameGuard& operator=(const FrameGuard&) = delete;
  ~FrameGuard() {
    for (Any& r : frame_->regs) r = Any();
    frame_->call_args.clear();
    vm_.free_frames_.push_back(std::move(frame_));
  }
  Frame& operator*() const { return *frame_; }

 private:
  VirtualMachine& vm_;
  std::unique_ptr<Frame> frame_;
};

VirtualMachine::VirtualMachine(std::shared_ptr<const Executable> exec, Module library, std::vector<Device> devices)
    : exec_(std::move(exec)),
      library_(std::move(library)),
      devices_(std::move(devices)),
      stats_(std::make_shared<StatsCell>()) {
  TSCH_USER_ASSERT(exec_ != nullptr, ValueError) << "VirtualMachine: no executable";
  // Builtins register when their file is linked; naming them here makes sure it is.
  register_vm_builtins();
  exec_->validate();
  // Shape functions run on the host: it is always the last device (as TVM's Python side).
  if (devices_.empty() || devices_.back().type != DeviceType::CPU) devices_.push_back(cpu(0));
  // Non-owning: the VM passes itself to builtins only for the length of a call.
  self_ = Any::of_object(std::shared_ptr<void>(std::shared_ptr<void>(), this), kVirtualMachineTypeName);
  resolve_functions();
}

VirtualMachine::~VirtualMachine() = default;

void VirtualMachine::resolve_functions() {
  const auto& table = exec_->func_table;
  callees_.resize(table.size());
  function_values_.resize(table.size());
  std::weak_ptr<int> alive = alive_;
  for (size_t i = 0; i < table.size(); ++i) {
    const VMFuncInfo& f = table[i];
    Callee& c = callees_[i];
    c.kind = f.kind;
    auto index = static_cast<Index>(i);
    if (f.kind == FuncKind::kPackedFunc) {
      if (library_) c.packed = runtime::get_function(library_, f.name, true);
      if (!c.packed) c.packed = find_global_func(f.name);
    }
    // As a value (a kFuncIdx argument) every entry is a function calling back into this VM,
    // which it must not keep alive: the VM holds these values.
    function_values_[i] = Any::of_function(make_packed_func(
        [this, alive, index](const std::vector<Any>& args) {
          TSCH_USER_ASSERT(!alive.expired(), RuntimeError)
              << "the VirtualMachine that made the function " << exec_->func_table[index].name << " has been destroyed";
          if (callees_[index].kind == FuncKind::kPackedFunc) return (*packed_callee(index))(args);
          return invoke_index(index, args);
        },
        f.name));
  }
}

// Unresolved names are looked up again when called: a script may register one after the VM
// was made.
const PackedFunc& VirtualMachine::packed_callee(Index fidx) {
  Callee& c = callees_[fidx];
  if (!c.packed) {
    const std::string& name = exec_->func_table[fidx].name;
    c.packed = find_global_func(name);
    TSCH_USER_ASSERT(c.packed != nullptr, ValueError) << "Cannot find PackedFunc " << name
                                                      << " in either Relax VM kernel library, or in TVM runtime "
                                                         "PackedFunc registry, or in global Relax functions of the VM "
                                                         "executable";
  }
  return c.packed;
}

Index VirtualMachine::vm_function_index(const std::string& name, const char* what) const {
  auto it = exec_->func_map.find(name);
  TSCH_USER_ASSERT(it != exec_->func_map.end(), ValueError) << "Unknown function: " << name;
  const VMFuncInfo& f = exec_->func_table[it->second];
  TSCH_USER_ASSERT(f.kind != FuncKind::kVMTIRFunc, NotImplementedError)
      << "not supported yet: " << what << " the VM TIR function " << name << " (vm_tir_func)";
  TSCH_USER_ASSERT(f.kind == FuncKind::kVMFunc, ValueError)
      << "Unknown function: " << name
      << " (the executable calls it as a packed function; it is not one of its VM functions)";
  return it->second;
}

void VirtualMachine::check_arg_count(const VMFuncInfo& f, size_t given) const {
  if (static_cast<Index>(given) == f.num_args) return;
  std::string names;
  for (size_t i = 0; i < f.param_names.size(); ++i) names += (i ? ", " : "") + f.param_names[i];
  TSCH_USER_ASSERT(false, TypeError) << "Invoking function " << f.name << " expects " << f.num_args << " argument"
                                     << (f.num_args == 1 ? "" : "s") << (names.empty() ? "" : " (" + names + ")")
                                     << ", but " << given << (given == 1 ? " argument was" : " arguments were")
                                     << " provided";
}

std::unique_ptr<VirtualMachine::Frame> VirtualMachine::acquire_frame(const VMFuncInfo& f) {
  // Each VM call is a C++ call: stop before the thread's stack runs out.
  TSCH_USER_ASSERT(!stack_nearly_exhausted(), RuntimeError)
      << "maximum recursion depth exceeded in the VM function " << f.name;
  std::unique_ptr<Frame> frame;
  if (free_frames_.empty()) {
    frame = std::make_unique<Frame>();
  } else {
    frame = std::move(free_frames_.back());
    free_frames_.pop_back();
  }
  frame->regs.resize(static_cast<size_t>(f.register_file_size));
  return frame;
}

Any VirtualMachine::invoke_index(Index fidx, const std::vector<Any>& args) {
  const VMFuncInfo& f = exec_->func_table[fidx];
  TSCH_USER_ASSERT(f.kind == FuncKind::kVMFunc, NotImplementedError)
      << "not supported yet: calling the VM TIR function " << f.name << " (vm_tir_func)";
  check_arg_count(f, args.size());
  FrameGuard frame(*this, acquire_frame(f));
  for (size_t i = 0; i < args.size(); ++i) (*frame).regs[i] = args[i];
  return run(f, *frame);
}

Any VirtualMachine::invoke(const std::string& name, const std::vector<Any>& args) {
  return invoke_index(vm_function_index(name, "invoking"), args);
}

PackedFunc VirtualMachine::get_function(const std::string& name) {
  auto it = exec_->func_map.find(name);
  if (it == exec_->func_map.end() || exec_->func_table[it->second].kind != FuncKind::kVMFunc) return nullptr;
  Index fidx = it->second;
  if (std::shared_ptr<VirtualMachine> owner = weak_from_this().lock()) {
    return make_packed_func([owner, fidx](const std::vector<Any>& args) { return owner->invoke_index(fidx, args); },
                            name);
  }
  std::weak_ptr<int> alive = alive_;
  return make_packed_func(
      [this, alive, fidx, name](const std::vector<Any>& args) {
        TSCH_USER_ASSERT(!alive.expired(), RuntimeError)
            << "the VirtualMachine of the function " << name << " has been destroyed";
        return invoke_index(fidx, args);
      },
      name);
}

void VirtualMachine::set_input(const std::string& name, std::vector<Any> args) {
  const VMFuncInfo& f = exec_->func_table[vm_function_index(name, "setting the inputs of")];
  check_arg_count(f, args.size());
  inputs_[name] = std::move(args);
}

void VirtualMachine::invoke_stateful(const std::string& name) {
  Index fidx = vm_function_index(name, "invoking");
  auto it = inputs_.find(name);
  TSCH_USER_ASSERT(it != inputs_.end(), ValueError)
      << "No inputs set for stateful call of " << name << "; use `set_input` first.";
  outputs_[name] = invoke_index(fidx, it->second);
}

Any VirtualMachine::get_outputs(const std::string& name) const {
  auto it = outputs_.find(name);
  TSCH_USER_ASSERT(it != outputs_.end(), ValueError)
      << "No output saved for call of \"" << name << "\"; use `invoke_stateful` to call it first.";
  return it->second;
}

// ---------------------------------------------------------------------------------------
// The interpreter. validate() has checked every index, so the loop does not.
// ---------------------------------------------------------------------------------------

const Any& VirtualMachine::arg_value(const Frame& frame, const Instruction::Arg& arg, Any& scratch) {
  switch (arg.kind()) {
    case Instruction::ArgKind::kRegister:
      if (arg.value() < Instruction::kBeginSpecialReg) return frame.regs[arg.value()];
      if (arg.value() == Instruction::kVMRegister) return self_;
      scratch = Any();
      return scratch;
    case Instruction::ArgKind::kImmediate:
      scratch = Any::of_int(arg.value());
      return scratch;
    case Instruction::ArgKind::kConstIdx:
      return exec_->constants[arg.value()];
    case Instruction::ArgKind::kFuncIdx:
      return function_values_[arg.value()];
  }
  return scratch;
}

void VirtualMachine::run_call(Frame& frame, const Instruction& in) {
  const Callee& callee = callees_[in.func_idx];
  const size_t n = in.args.size();
  Any scratch;
  Any result;
  if (callee.kind == FuncKind::kVMFunc) {
    // VM to VM: the arguments go straight into the callee's registers.
    const VMFuncInfo& f = exec_->func_table[in.func_idx];
    check_arg_count(f, n);
    FrameGuard callee_frame(*this, acquire_frame(f));
    for (size_t i = 0; i < n; ++i) (*callee_frame).regs[i] = arg_value(frame, in.args[i], scratch);
    result = run(f, *callee_frame);
  } else if (callee.kind == FuncKind::kPackedFunc) {
    const PackedFunc& fn = callee.packed ? callee.packed : packed_callee(in.func_idx);
    std::vector<Any>& args = frame.call_args;
    args.resize(n);
    for (size_t i = 0; i < n; ++i) args[i] = arg_value(frame, in.args[i], scratch);
    result = (*fn)(args);
    // The arguments are copies: dropping them now frees what only they still hold.
    for (Any& a : args) a = Any();
  } else {
    result = invoke_index(in.func_idx, {});  // kVMTIRFunc: says it is not supported
  }
  if (in.dst < Instruction::kBeginSpecialReg) frame.regs[in.dst] = std::move(result);
}

Any VirtualMachine::run(const VMFuncInfo& f, Frame& frame) {
  const Instruction* code = exec_->instructions.data();
  Index pc = f.start_instr;
  for (;;) {
    const Instruction& in = code[pc];
    switch (in.op) {
      case Opcode::Call:
        run_call(frame, in);
        ++pc;
        break;
      case Opcode::Ret:
        if (in.result < Instruction::kBeginSpecialReg) return std::move(frame.regs[in.result]);
        return in.result == Instruction::kVMRegister ? self_ : Any();
      case Opcode::Goto:
        // A backward jump closes a loop: Ctrl-C stops it there.
        if (in.pc_offset < 0 && interrupt_pending()) {
          clear_interrupt();
          throw Interrupted();
        }
        pc += in.pc_offset;
        break;
      case Opcode::If: {
        static const Any none;
        const Any& c = in.cond < Instruction::kBeginSpecialReg ? frame.regs[in.cond]
                       : in.cond == Instruction::kVMRegister   ? self_
                                                               : none;
        TSCH_USER_ASSERT(c.kind() == Any::Kind::Int || c.kind() == Any::Kind::Bool, TypeError)
            << "the condition of an If in the VM function " << f.name << " must be an int, got " << c.type_name();
        pc += c.as_int() != 0 ? 1 : in.false_offset;
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Storage
// ---------------------------------------------------------------------------------------

VirtualMachine& VirtualMachine::from_any(const Any& arg, const char* builtin) {
  TSCH_USER_ASSERT(arg.is_object_of(kVirtualMachineTypeName), TypeError)
      << builtin << ": expected the VirtualMachine (%vm) as the first argument, got " << arg.type_name();
  return *static_cast<VirtualMachine*>(arg.as_object().get());
}

std::shared_ptr<Storage> VirtualMachine::alloc_storage(int64_t nbytes, int64_t device_index) {
  auto n_devices = static_cast<int64_t>(devices_.size());
  TSCH_USER_ASSERT(device_index >= -1 && device_index < n_devices, ValueError)
      << "vm.builtin.alloc_storage: the device index " << device_index << " is out of the VM's " << n_devices
      << " devices";
  if (device_index == -1) device_index = n_devices - 1;
  Device dev = devices_[device_index];
  TSCH_USER_ASSERT(dev.type == DeviceType::CPU, NotImplementedError)
      << "not supported yet: VM storage on " << dev.str();
  TSCH_USER_ASSERT(nbytes >= 0, ValueError) << "vm.builtin.alloc_storage: cannot allocate " << nbytes << " bytes";
  // An array of bytes brings the alignment, zeroing and out-of-memory report of any array.
  NDArrayRef block = make_array(ir::DataType::uint(8), {nbytes});
  auto* base = static_cast<uint8_t*>(block->data());
  std::shared_ptr<StatsCell> stats = stats_;
  int64_t live = stats->live += nbytes;
  stats->total += nbytes;
  stats->count += 1;
  for (int64_t peak = stats->peak; live > peak && !stats->peak.compare_exchange_weak(peak, live);) {
  }
  auto storage = std::make_shared<Storage>();
  storage->data = std::shared_ptr<uint8_t>(base, [block, stats, nbytes](uint8_t*) mutable {
    stats->live -= nbytes;
    block.reset();
  });
  storage->nbytes = nbytes;
  storage->device = dev;
  return storage;
}

MemoryStats VirtualMachine::memory_stats() const {
  MemoryStats s;
  s.total_bytes = stats_->total;
  s.live_bytes = stats_->live;
  s.peak_bytes = stats_->peak;
  s.num_allocations = stats_->count;
  return s;
}

}  // namespace tsch::runtime::vm
