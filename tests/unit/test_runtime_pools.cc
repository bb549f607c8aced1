// The runtime's thread pool (parallel loops) and workspace pool (generated code's heap
// buffers): every iteration runs exactly once whatever the split, nested loops run
// serially, and workspace blocks are aligned, reused and kept per thread.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "ir/op.h"
#include "runtime/call.h"
#include "runtime/thread_pool.h"
#include "runtime/workspace.h"

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(int64_t n) : hits(static_cast<size_t>(n)) {}
};

// A task function as generated code writes it: its chunk of [begin, begin + extent).
int32_t count_chunk(int64_t task, int64_t tasks, void* closure, int64_t begin, int64_t extent) {
  auto* counts = static_cast<Counts*>(closure);
  int64_t per = (extent + tasks - 1) / tasks;
  int64_t lo = begin + task * per, hi = std::min(begin + extent, lo + per);
  for (int64_t i = lo; i < hi; ++i) counts->hits[static_cast<size_t>(i)]++;
  return 0;
}

struct Nested {
  Counts* counts;
  std::atomic<int> nested_calls{0};
  std::atomic<int> split_calls{0};  // nested calls that were split into tasks (must be 0)
};

int32_t outer_chunk(int64_t task, int64_t tasks, void* closure, int64_t begin, int64_t extent) {
  auto* n = static_cast<Nested*>(closure);
  int64_t per = (extent + tasks - 1) / tasks;
  int64_t lo = begin + task * per, hi = std::min(begin + extent, lo + per);
  for (int64_t i = lo; i < hi; ++i) {
    // A parallel loop inside a task runs serially on this thread, in one task.
    tsch_parallel_for(
        [](int64_t t, int64_t ts, void* c, int64_t b, int64_t e) {
          auto* nested = static_cast<Nested*>(c);  // Catch2 assertions only on the main thread
          if (t != 0 || ts != 1) nested->split_calls++;
          nested->nested_calls++;
          for (int64_t k = b; k < b + e; ++k) nested->counts->hits[static_cast<size_t>(k)]++;
          return 0;
        },
        n, i * 10, 10);
  }
  return 0;
}

int32_t count_chunk_ok(int64_t, int64_t, void*, int64_t, int64_t) { return 0; }

// A task that fails on one chunk, as generated code does when its workspace cannot be had.
int32_t fail_on_task_3(int64_t task, int64_t, void*, int64_t, int64_t) { return task == 3 ? 1 : 0; }

}  // namespace

TEST_CASE("parallel loops run every iteration once, for any extent and pool size", "[runtime]") {
  for (int threads : {1, 2, 3, 8}) {
    tsch::runtime::set_num_threads(threads);
    for (int64_t extent : {1, 2, 3, 7, 8, 9, 64, 1000}) {
      for (int rep = 0; rep < 3; ++rep) {
        Counts counts(extent + 5);
        tsch_parallel_for(count_chunk, &counts, 5, extent);
        for (int64_t i = 0; i < extent + 5; ++i) {
          INFO("threads " << threads << " extent " << extent << " index " << i);
          REQUIRE(counts.hits[static_cast<size_t>(i)].load() == (i >= 5 ? 1 : 0));
        }
      }
    }
  }
  tsch::runtime::set_num_threads(0);
}

TEST_CASE("a parallel loop nested in a task runs serially", "[runtime]") {
  tsch::runtime::set_num_threads(2);
  Counts counts(16 * 10);
  Nested nested{&counts};
  tsch_parallel_for(outer_chunk, &nested, 0, 16);
  CHECK(nested.nested_calls.load() == 16);
  CHECK(nested.split_calls.load() == 0);
  for (size_t i = 0; i < 160; ++i) REQUIRE(counts.hits[i].load() == 1);
  tsch::runtime::set_num_threads(0);
}

TEST_CASE("a failing task's status reaches the caller of the parallel loop", "[runtime]") {
  for (int threads : {1, 2, 3}) {
    tsch::runtime::set_num_threads(threads);
    CHECK(tsch_parallel_for(fail_on_task_3, nullptr, 0, 100) == (threads == 1 ? 0 : 1));
    CHECK(tsch_parallel_for(count_chunk_ok, nullptr, 0, 100) == 0);
  }
  tsch::runtime::set_num_threads(0);
}

TEST_CASE("a workspace request that cannot be met returns null and is remembered", "[runtime]") {
  CHECK(tsch_workspace_alloc(int64_t{1} << 62) == nullptr);
  CHECK(tsch::runtime::take_failed_workspace_request() == int64_t{1} << 62);
  CHECK(tsch_workspace_alloc(-1) == nullptr);  // a size that overflowed in generated code
  CHECK(tsch::runtime::take_failed_workspace_request() == -1);
  CHECK(tsch::runtime::take_failed_workspace_request() == 0);
}

TEST_CASE("workspace blocks are aligned and reused", "[runtime]") {
  void* a = tsch_workspace_alloc(1000);
  REQUIRE(a != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  static_cast<char*>(a)[999] = 1;
  tsch_workspace_free(a);
  void* b = tsch_workspace_alloc(900);  // fits the freed block
  CHECK(b == a);
  void* c = tsch_workspace_alloc(1000);  // the first is taken: a new block
  CHECK(c != b);
  tsch_workspace_free(b);
  tsch_workspace_free(c);
  // Large blocks sit on 2 MiB boundaries (transparent huge pages).
  void* big = tsch_workspace_alloc(int64_t{3} << 20);
  CHECK(reinterpret_cast<uintptr_t>(big) % (2u << 20) == 0);
  static_cast<char*>(big)[(3 << 20) - 1] = 1;
  tsch_workspace_free(big);
  CHECK(tsch_workspace_alloc(int64_t{3} << 20) == big);
  tsch_workspace_free(big);
}

namespace {

// An entry point that records the pointer it was handed and doubles the four int64s there.
void* seen_pointer = nullptr;
int32_t record_and_double(void** buffers, int64_t*) {
  seen_pointer = buffers[0];
  auto* p = static_cast<int64_t*>(buffers[0]);
  for (int i = 0; i < 4; ++i) p[i] *= 2;
  return 0;
}

}  // namespace

TEST_CASE("call_compiled hands generated code 64-byte aligned buffers and copies a view back", "[runtime]") {
  using namespace tsch;
  runtime::FunctionSignature sig;
  sig.name = "f";
  sig.param_names = {"A"};
  sig.buffers.push_back(runtime::BufferParam{"A", ir::DataType::int64(), {ir::make_int(4, ir::DataType::int64())}});
  sig.scalar_params.push_back(nullptr);
  runtime::NDArrayRef base = runtime::make_array(ir::DataType::int64(), {8});
  for (int64_t i = 0; i < 8; ++i) base->set_i(i, i);
  // x[1:5]: 8 bytes past a 64-byte boundary.
  runtime::NDArrayRef view = runtime::make_view(base, 1, {4}, {1});
  REQUIRE(reinterpret_cast<uintptr_t>(view->data()) % 64 == 8);
  runtime::call_compiled(sig, record_and_double, {runtime::CallArg{view.get()}});
  CHECK(reinterpret_cast<uintptr_t>(seen_pointer) % 64 == 0);
  for (int64_t i = 0; i < 8; ++i) CHECK(base->get_i(i) == ((i >= 1 && i <= 4) ? 2 * i : i));
}
