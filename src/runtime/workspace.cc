#include "runtime/workspace.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

std::atomic<int64_t> failed_request{0};

// A thread's free blocks. Bounded: beyond kMaxCachedBytes the largest blocks are released.
class Pool {
 public:
  ~Pool() {
    for (const Block& b : free_) release(b);
  }

  void* take(int64_t nbytes) {
    size_t size = round_up(nbytes);
    // The smallest free block that fits, as long as it is not much larger.
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      if (free_[i].size >= size && free_[i].size <= 2 * size &&
          (best == free_.size() || free_[i].size < free_[best].size))
        best = i;
    }
    if (best < free_.size()) {
      Block b = free_[best];
      free_.erase(free_.begin() + static_cast<long>(best));
      cached_ -= b.size;
      live_.push_back(b);
      return b.ptr;
    }
    // Large blocks (packed operands) on transparent huge pages: fewer TLB misses when a
    // kernel streams them (the kernel only uses huge pages where asked, THP "madvise").
    bool huge = size >= kHugePage;
    if (huge) size = (size + kHugePage - 1) / kHugePage * kHugePage;
    void* p = nbytes < 0 || size < static_cast<size_t>(nbytes) ? nullptr
              : huge                                           ? map_huge(size)
                                                               : std::aligned_alloc(64, size);
    if (!p) {
      // The kernel sees null, releases what it holds and returns an error; the caller
      // raises MemoryError with this size.
      failed_request.store(nbytes);
      return nullptr;
    }
    live_.push_back(Block{p, size});
    return p;
  }

  void give_back(void* ptr) {
    for (size_t i = live_.size(); i-- > 0;) {
      if (live_[i].ptr != ptr) continue;
      Block b = live_[i];
      live_.erase(live_.begin() + static_cast<long>(i));
      free_.push_back(b);
      cached_ += b.size;
      while (cached_ > kMaxCachedBytes && !free_.empty()) {
        size_t largest = 0;
        for (size_t k = 1; k < free_.size(); ++k) {
          if (free_[k].size > free_[largest].size) largest = k;
        }
        cached_ -= free_[largest].size;
        release(free_[largest]);
        free_.erase(free_.begin() + static_cast<long>(largest));
      }
      return;
    }
    // Not from this thread's pool: generated code frees a block on the thread that
    // allocated it, so this does not happen; without the block's size it is left alone.
  }

 private:
  struct Block {
    void* ptr;
    size_t size;
  };
  static constexpr size_t kMaxCachedBytes = size_t{1} << 30;
  static constexpr size_t kHugePage = size_t{2} << 20;
  // Large blocks come from mmap, 2 MiB aligned, on transparent huge pages (fewer TLB misses
  // when a kernel streams packed operands). mmap, unlike jemalloc's aligned_alloc, is
  // refused by the kernel's overcommit check when the size cannot fit: a kernel then gets
  // null and reports MemoryError, instead of touching terabytes.
  static void* map_huge(size_t size) {
    size_t span = size + kHugePage;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    auto start = reinterpret_cast<uintptr_t>(raw);
    uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) munmap(raw, aligned - start);
    uintptr_t end = aligned + size;
    if (start + span > end) munmap(reinterpret_cast<void*>(end), start + span - end);
    madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<void*>(aligned);
  }
  static void release(const Block& b) {
    if (b.size >= kHugePage)
      munmap(b.ptr, b.size);
    else
      std::free(b.ptr);
  }
  static size_t round_up(int64_t n) { return (static_cast<size_t>(n < 1 ? 1 : n) + 63) & ~size_t{63}; }
  std::vector<Block> free_, live_;
  size_t cached_ = 0;
};

Pool& pool() {
  thread_local Pool p;
  return p;
}

}  // namespace

extern "C" void* tsch_workspace_alloc(int64_t nbytes) { return pool().take(nbytes); }
extern "C" void tsch_workspace_free(void* ptr) { pool().give_back(ptr); }

int64_t tsch::runtime::take_failed_workspace_request() { return failed_request.exchange(0); }
