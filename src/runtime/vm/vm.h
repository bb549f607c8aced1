// The Relax virtual machine (TVM's relax_vm::VirtualMachine): interprets an Executable's
// bytecode over register files of `Any`, calling packed functions — the library module's
// compiled prim_funcs, then the global registry (builtins, functions scripts register) —
// and its own VM functions. Also its storage allocator and the statistics static memory
// planning is judged by.
//
//   auto exec = Executable::load(bytes);               // or ExecBuilder::get()
//   auto vm = std::make_shared<VirtualMachine>(exec, library);
//   Any y = vm->invoke("main", {Any::of_ndarray(x)});  // or (*vm->get_function("main"))({...})
//
// A VM is used by one thread at a time (as TVM's); the functions it calls may call it again.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/device.h"
#include "runtime/module.h"
#include "runtime/packed_func.h"
#include "runtime/vm/executable.h"

namespace tsch::runtime::vm {

// Storage the VM's allocator handed out (TVM's memory::Storage), passed around as
// `Any::of_object(..., "vm.Storage")`: tensors made by vm.builtin.alloc_tensor view byte
// ranges of it and keep its memory alive after the Storage itself is dropped.
struct Storage {
  std::shared_ptr<uint8_t> data;  // 64-byte aligned, zero-filled
  int64_t nbytes = 0;
  Device device;
};
constexpr const char* kStorageTypeName = "vm.Storage";
constexpr const char* kVirtualMachineTypeName = "relax.VirtualMachine";

// Bytes of storage the allocator handed out: every allocation counts in total; live until
// the last tensor viewing it goes; peak is the largest live ever was. The shape heap and
// arrays packed functions return are not storage.
struct MemoryStats {
  int64_t total_bytes = 0;
  int64_t live_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t num_allocations = 0;
};

class VirtualMachine : public std::enable_shared_from_this<VirtualMachine> {
 public:
  // `library` holds the compiled prim_funcs (may be null); `devices` are TVM's VM devices,
  // with the host (cpu) appended when the last is not one. Validates the executable and
  // resolves its packed functions: the library's function of that name (imports searched
  // too), else the registry's; a name neither has is an error only when called.
  VirtualMachine(std::shared_ptr<const Executable> exec, Module library = nullptr,
                 std::vector<Device> devices = {cpu(0)});
  ~VirtualMachine();
  VirtualMachine(const VirtualMachine&) = delete;
  VirtualMachine& operator=(const VirtualMachine&) = delete;

  const Executable& executable() const { return *exec_; }
  const std::shared_ptr<const Executable>& executable_ref() const { return exec_; }
  const Module& library() const { return library_; }
  const std::vector<Device>& devices() const { return devices_; }

  // Whether the executable's function table has `name` (TVM's has_function).
  bool has_function(const std::string& name) const { return exec_->has_function(name); }
  // Runs the VM function `name`. An unknown name is a UserError (ValueError); a wrong number
  // of arguments a UserError (TypeError) naming the function and both counts. What a callee
  // throws reaches the caller unchanged.
  Any invoke(const std::string& name, const std::vector<Any>& args);
  // The VM function `name` as a PackedFunc (TVM's `vm["main"]`), or null when the executable
  // has no VM function of that name. It keeps the VM alive when a shared_ptr owns the VM;
  // otherwise it must not be called after the VM is destroyed (it says so if it is).
  PackedFunc get_function(const std::string& name);

  // TVM's stateful calling: set_input stores the arguments, invoke_stateful runs the
  // function on them, get_outputs returns what it returned (a Tuple stays one).
  void set_input(const std::string& name, std::vector<Any> args);
  void invoke_stateful(const std::string& name);
  Any get_outputs(const std::string& name) const;

  MemoryStats memory_stats() const;

  // --- for builtins ---
  // The VM a builtin got as its %vm argument; a UserError (TypeError) naming `builtin` when
  // the argument is something else. That value does not own the VM: a builtin must not
  // keep it past the call.
  static VirtualMachine& from_any(const Any& arg, const char* builtin);
  // `nbytes` of zeroed storage on devices()[device_index] (-1: the host, the last device).
  std::shared_ptr<Storage> alloc_storage(int64_t nbytes, int64_t device_index);

 private:
  struct Frame;
  struct Callee;
  class FrameGuard;
  struct StatsCell;

  void resolve_functions();
  Index vm_function_index(const std::string& name, const char* what) const;
  void check_arg_count(const VMFuncInfo& f, size_t given) const;
  std::unique_ptr<Frame> acquire_frame(const VMFuncInfo& f);
  // Runs function `fidx` on a frame whose first registers hold its arguments.
  Any run(const VMFuncInfo& f, Frame& frame);
  void run_call(Frame& frame, const Instruction& in);
  const Any& arg_value(const Frame& frame, const Instruction::Arg& arg, Any& scratch);
  const PackedFunc& packed_callee(Index fidx);
  Any invoke_index(Index fidx, const std::vector<Any>& args);

  std::shared_ptr<const Executable> exec_;
  Module library_;
  std::vector<Device> devices_;
  std::vector<Callee> callees_;       // per function-table entry
  std::vector<Any> function_values_;  // per entry: the function as a kFuncIdx argument
  Any self_;                          // the %vm argument
  std::vector<std::unique_ptr<Frame>> free_frames_;
  std::unordered_map<std::string, std::vector<Any>> inputs_;
  std::unordered_map<std::string, Any> outputs_;
  std::shared_ptr<StatsCell> stats_;
  // Functions handed out without a strong reference check it before calling back.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace tsch::runtime::vm
