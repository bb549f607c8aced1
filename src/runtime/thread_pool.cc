#include "runtime/thread_pool.h"

#include <immintrin.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace tsch::runtime {
namespace {

using TaskFn = int32_t (*)(int64_t, int64_t, void*, int64_t, int64_t);

int default_threads() {
  unsigned hw = std::thread::hardware_concurrency();
  int cores = hw ? static_cast<int>(hw) : 1;
  const char* env = std::getenv("TVM_NUM_THREADS");
  if (!env || !*env) return cores;
  char* end = nullptr;
  long n = std::strtol(env, &end, 10);
  if (*end != '\0' || n <= 0 || n > 65536) {
    std::fprintf(stderr, "tsch: warning: TVM_NUM_THREADS=%s is not a positive thread count; using %d threads\n", env,
                 cores);
    return cores;
  }
  return static_cast<int>(n);
}

// A job is split into a few tasks per thread (chunks of the iteration space) that the
// calling thread and the workers take from a shared counter, so a core slowed down by
// another process ends up doing less instead of holding everyone up. Between jobs a worker
// spins for about a millisecond before it sleeps (as TVM's and OpenBLAS's pools do):
// back-to-back parallel loops, as in a packed matmul, then start without a wake-up.
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool();  // never destroyed: workers may outlive static teardown
    return *pool;
  }

  int size() const { return size_; }
  void resize(int n) {
    std::lock_guard<std::mutex> run(run_mutex_);
    stop_workers();
    size_ = n > 0 ? n : default_threads();
    uint64_t start;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      start = generation_.load();
    }
    // A worker starts from the generation current now, so it cannot miss the first job.
    // Where the system gives fewer threads than asked for, the pool runs with those it got.
    for (int i = 1; i < size_; ++i) {
      try {
        workers_.emplace_back([this, start] { worker(start); });
      } catch (const std::system_error& e) {
        std::fprintf(stderr, "tsch: warning: could create only %d of %d threads (%s); parallel loops use %d\n", i,
                     size_, e.what(), i);
        size_ = i;
        break;
      }
    }
  }

  // Returns 0, or the nonzero status of a task that failed (the other tasks still run).
  int32_t run(TaskFn fn, void* closure, int64_t begin, int64_t extent) {
    if (inside_parallel_loop || size_ <= 1 || extent <= 1) return fn(0, 1, closure, begin, extent);
    int64_t tasks = std::min<int64_t>(extent, static_cast<int64_t>(size_) * kTasksPerThread);
    std::lock_guard<std::mutex> run(run_mutex_);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // A worker still inside the previous job (it found no task left) must leave before
      // the counter is reset for this one.
      idle_.wait(lock, [this] { return active_ == 0; });
      job_ = {fn, closure, begin, extent, tasks};
      status_.store(0);
      next_.store(0);
      finished_.store(0);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    work(job_);
    // Spin briefly, then sleep until the last task is done.
    for (int spin = 0; finished_.load(std::memory_order_acquire) < tasks; ++spin) {
      if (spin > 4000) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this, tasks] { return finished_.load() >= tasks; });
        break;
      }
      std::this_thread::yield();
    }
    return status_.load();
  }

 private:
  struct Job {
    TaskFn fn = nullptr;
    void* closure = nullptr;
    int64_t begin = 0, extent = 0, tasks = 0;
  };

  Pool() { resize(0); }

  // Takes tasks until none is left. Parallel loops nested in a task run serially.
  void work(const Job& job) {
    inside_parallel_loop = true;
    for (;;) {
      int64_t task = next_.fetch_add(1);
      if (task >= job.tasks) break;
      if (int32_t status = job.fn(task, job.tasks, job.closure, job.begin, job.extent)) status_.store(status);
      if (finished_.fetch_add(1) + 1 == job.tasks) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_all();
      }
    }
    inside_parallel_loop = false;
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
    stopping_ = false;
  }

  void worker(uint64_t seen) {
    for (;;) {
      for (int spin = 0; spin < kSpinRounds && generation_.load(std::memory_order_acquire) == seen; ++spin) _mm_pause();
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
        seen = generation_.load();
        if (stopping_) return;
        job = job_;
        ++active_;
      }
      work(job);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--active_ == 0) idle_.notify_all();
      }
    }
  }

  static constexpr int kSpinRounds = 20000;  // ~1 ms of pause instructions
  static constexpr int64_t kTasksPerThread = 4;
  static thread_local bool inside_parallel_loop;

  int size_ = 1;
  std::vector<std::thread> workers_;
  std::mutex run_mutex_, mutex_;
  std::condition_variable wake_, done_, idle_;
  std::atomic<uint64_t> generation_{0};
  bool stopping_ = false;
  Job job_;
  int active_ = 0;  // workers inside a job
  std::atomic<int64_t> next_{0}, finished_{0};
  std::atomic<int32_t> status_{0};
};

thread_local bool Pool::inside_parallel_loop = false;

}  // namespace

int num_threads() { return Pool::get().size(); }
void set_num_threads(int n) {
  if (n != Pool::get().size()) Pool::get().resize(n);
}

}  // namespace tsch::runtime

extern "C" int32_t tsch_parallel_for(int32_t (*fn)(int64_t, int64_t, void*, int64_t, int64_t), void* closure,
                                     int64_t begin, int64_t extent) {
  return tsch::runtime::Pool::get().run(fn, closure, begin, extent);
}
