#include "runtime/thread_pool.h"

#include <immintrin.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace tsch::runtime {
namespace {

using TaskFn = void (*)(int64_t, int64_t, void*, int64_t, int64_t);

int default_threads() {
  if (const char* env = std::getenv("TVM_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int>(hw) : 1;
}

// Workers wait for a new generation of work, run their task, and count down. Between jobs
// a worker spins for about a millisecond before it sleeps (as TVM's and OpenBLAS's pools
// do): back-to-back parallel loops, as in a packed matmul, then start without a wake-up.
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
    for (int i = 1; i < size_; ++i) workers_.emplace_back([this, i, start] { worker(i, start); });
  }

  void run(TaskFn fn, void* closure, int64_t begin, int64_t extent) {
    thread_local bool inside = false;
    int64_t tasks = std::min<int64_t>(size_, extent);
    if (inside || tasks <= 1) {
      fn(0, 1, closure, begin, extent);
      return;
    }
    std::lock_guard<std::mutex> run(run_mutex_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = {fn, closure, begin, extent, tasks};
      pending_.store(static_cast<int>(tasks) - 1);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    inside = true;
    fn(0, tasks, closure, begin, extent);
    inside = false;
    // Spin briefly (tasks are usually even), then sleep.
    for (int spin = 0; pending_.load(std::memory_order_acquire) > 0; ++spin) {
      if (spin > 4000) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return pending_.load() == 0; });
        break;
      }
      std::this_thread::yield();
    }
  }

 private:
  struct Job {
    TaskFn fn = nullptr;
    void* closure = nullptr;
    int64_t begin = 0, extent = 0, tasks = 0;
  };

  Pool() { resize(0); }

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

  void worker(int index, uint64_t seen) {
    for (;;) {
      for (int spin = 0; spin < kSpinRounds && generation_.load(std::memory_order_acquire) == seen; ++spin) _mm_pause();
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
        seen = generation_.load();
        if (stopping_) return;
        job = job_;
      }
      if (index < job.tasks) {
        job.fn(index, job.tasks, job.closure, job.begin, job.extent);
        if (pending_.fetch_sub(1) == 1) {
          std::lock_guard<std::mutex> lock(mutex_);
          done_.notify_all();
        }
      }
    }
  }

  int size_ = 1;
  std::vector<std::thread> workers_;
  std::mutex run_mutex_, mutex_;
  std::condition_variable wake_, done_;
  static constexpr int kSpinRounds = 20000;  // ~1 ms of pause instructions
  std::atomic<uint64_t> generation_{0};
  bool stopping_ = false;
  Job job_;
  std::atomic<int> pending_{0};
};

}  // namespace

int num_threads() { return Pool::get().size(); }
void set_num_threads(int n) {
  if (n != Pool::get().size()) Pool::get().resize(n);
}

}  // namespace tsch::runtime

extern "C" void tsch_parallel_for(void (*fn)(int64_t, int64_t, void*, int64_t, int64_t), void* closure, int64_t begin, int64_t extent) {
  tsch::runtime::Pool::get().run(fn, closure, begin, extent);
}
