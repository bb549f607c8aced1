// Ctrl-C while compiled code runs. The SIGINT handler calls request_interrupt(); generated
// kernels poll `tsch_interrupt_pending` at the head of their outer loops and return
// runtime::kStatusInterrupted when it is set; the runtime then throws Interrupted, which the
// interpreter raises as KeyboardInterrupt. Kernels exported as shared libraries find the
// flag in the tsch executable, as they find tsch_parallel_for.
#pragma once

#include <cstdint>
#include <exception>

extern "C" {
// Nonzero once Ctrl-C was pressed and no one has handled it yet. A plain volatile int: the
// signal handler writes it, generated code reads it with a volatile load.
extern volatile int32_t tsch_interrupt_pending;
}

namespace tsch {

// A kernel stopped because of Ctrl-C (its outputs may be partly written).
struct Interrupted : std::exception {
  const char* what() const noexcept override { return "interrupted"; }
};

inline void request_interrupt() { tsch_interrupt_pending = 1; }  // async-signal-safe
inline void clear_interrupt() { tsch_interrupt_pending = 0; }
inline bool interrupt_pending() { return tsch_interrupt_pending != 0; }

}  // namespace tsch
