// The builtins Relax's VM code generation calls (TVM's runtime/vm/builtin.cc), registered in
// the global registry under TVM's names and argument orders: shape heaps and match_cast
// (`vm.builtin.match_shape`, `make_shape`), struct-info checks (`check_tensor_info`, ...),
// storage (`alloc_storage`, `alloc_tensor`), tuples, `read_if_cond`, `copy`, `reshape`,
// `shape_of`, `call_tir_dyn`, closures. Their failures are UserErrors whose message starts
// with the error context the code generator passed (TVM's "ErrorContext(fn=main, ...)").
#pragma once

namespace tsch::runtime::vm {

// How vm.builtin.match_shape treats each dimension:
//   match_shape(value, heap, n, code[0], reg[0], ..., code[n-1], reg[n-1], err_ctx)
// where value is a tensor (its shape) or a shape, and heap the int64 array from
// vm.builtin.alloc_shape_heap (None when no code touches it).
enum class MatchShapeCode : int {
  kAssertEqualToImm = 0,   // assert value[i] == reg[i]
  kStoreToHeap = 1,        // heap[reg[i]] = value[i]: a symbolic dimension's first sight
  kNoOp = 2,               // nothing
  kAssertEqualToLoad = 3,  // assert value[i] == heap[reg[i]]
};

// How vm.builtin.make_shape builds each dimension:
//   make_shape(heap, n, code[0], reg[0], ..., code[n-1], reg[n-1]) -> Shape
enum class MakeShapeCode : int {
  kUseImm = 0,     // reg[i] itself
  kLoadShape = 1,  // heap[reg[i]]
};

// Registers the builtins (once; later calls do nothing). Runs at start-up in every program
// that links the VM; the VirtualMachine calls it too, which is what links this file.
void register_vm_builtins();

}  // namespace tsch::runtime::vm
