#include "runtime/workspace.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// A thread's free blocks. Bounded: beyond kMaxCachedBytes the largest blocks are released.
class Pool {
 public:
  ~Pool() {
    for (const Block& b : free_) std::free(b.ptr);
  }

  void* take(int64_t nbytes) {
    size_t size = round_up(nbytes);
    // The smallest free block that fits, as long as it is not much larger.
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      if (free_[i].size >= size && free_[i].size <= 2 * size && (best == free_.size() || free_[i].size < free_[best].size)) best = i;
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
    void* p = std::aligned_alloc(huge ? kHugePage : 64, size);
    if (p && huge) madvise(p, size, MADV_HUGEPAGE);
    if (!p) {
      std::fprintf(stderr, "tsch: out of memory allocating %lld bytes of workspace\n", static_cast<long long>(nbytes));
      std::abort();
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
        std::free(free_[largest].ptr);
        free_.erase(free_.begin() + static_cast<long>(largest));
      }
      return;
    }
    std::free(ptr);  // not from this thread's pool
  }

 private:
  struct Block {
    void* ptr;
    size_t size;
  };
  static constexpr size_t kMaxCachedBytes = size_t{1} << 30;
  static constexpr size_t kHugePage = size_t{2} << 20;
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
