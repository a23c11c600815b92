// TensorAllocator's memory (tensor_memory.hpp): 64-byte-aligned blocks, and in blocks of 16 MiB
// and more, the whole huge pages advised for transparent huge pages; blocks of 4 MiB and more
// mapped one by one, the freed ones kept for reuse by exact length.
#include "attnlab/tensor_memory.hpp"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace attn {
namespace {

constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;  // x86-64's transparent huge page
constexpr std::size_t vector_alignment = 64;                   // one AVX-512 register, one cache line

// Advise the whole huge pages inside [block, block + bytes).
void advise_huge_pages(void* block, std::size_t bytes) {
  const auto begin = (reinterpret_cast<std::uintptr_t>(block) + huge_page - 1) / huge_page * huge_page;
  const auto end = (reinterpret_cast<std::uintptr_t>(block) + bytes) / huge_page * huge_page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: failure changes nothing
}

// Live bytes (each block counted as malloc_usable_size or its mapping's length says, when
// allocated and when freed), and the watch's limit (0: none) and highest value, in absolute live
// bytes.
std::atomic<std::size_t> live{0}, ceiling{0}, highest{0};

constexpr std::size_t page = 4096;
constexpr std::size_t mapped_block_bytes = std::size_t{4} << 20;
constexpr std::size_t mapped_cache_bytes = std::size_t{256} << 20;

// The length of the mapping that holds a block of `bytes`: whole pages.
std::size_t mapped_length(std::size_t bytes) { return (bytes + page - 1) / page * page; }

// Freed mappings by length, kept for the next block of that length, up to mapped_cache_bytes.
class MappedCache {
 public:
  void* take(std::size_t length) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = kept_.find(length);
    if (it == kept_.end() || it->second.empty()) return nullptr;
    void* block = it->second.back();
    it->second.pop_back();
    bytes_ -= length;
    return block;
  }
  bool keep(void* block, std::size_t length) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (bytes_ + length > mapped_cache_bytes) return false;
    kept_[length].push_back(block);
    bytes_ += length;
    return true;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<void*>> kept_;
  std::size_t bytes_ = 0;
};

MappedCache& mapped_cache() {
  static MappedCache* cache = new MappedCache;  // never destroyed: static tensors are freed after it
  return *cache;
}

void* new_block(std::size_t bytes) {
  if (bytes < mapped_block_bytes) {
    void* block = nullptr;
    if (posix_memalign(&block, vector_alignment, bytes ? bytes : 1) != 0) throw std::bad_alloc();
    return block;
  }
  const std::size_t length = mapped_length(bytes);
  if (void* kept = mapped_cache().take(length)) return kept;
  void* block = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) throw std::bad_alloc();
  if (bytes >= huge_page_tensor_bytes) advise_huge_pages(block, length);
  return block;
}

std::size_t counted_bytes(void* block, std::size_t bytes) { return bytes < mapped_block_bytes ? malloc_usable_size(block) : mapped_length(bytes); }

}  // namespace

void* allocate_tensor_memory(std::size_t bytes) {
  const std::size_t limit = ceiling.load(std::memory_order_relaxed);
  if (limit && live.load(std::memory_order_relaxed) + bytes > limit) throw TensorMemoryCeiling();
  void* block = new_block(bytes);
  const std::size_t counted = counted_bytes(block, bytes);
  const std::size_t now = live.fetch_add(counted, std::memory_order_relaxed) + counted;
  if (limit) {
    std::size_t seen = highest.load(std::memory_order_relaxed);
    while (now > seen && !highest.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
  }
  return block;
}

void free_tensor_memory(void* block, std::size_t bytes) noexcept {
  if (!block) return;
  live.fetch_sub(counted_bytes(block, bytes), std::memory_order_relaxed);
  if (bytes < mapped_block_bytes) return std::free(block);
  const std::size_t length = mapped_length(bytes);
  if (!mapped_cache().keep(block, length)) munmap(block, length);
}

std::size_t live_tensor_bytes() noexcept { return live.load(std::memory_order_relaxed); }

TensorMemoryWatch::TensorMemoryWatch(double limit) : start_(live.load()) {
  highest.store(start_);
  ceiling.store(start_ + static_cast<std::size_t>(std::clamp(limit, 1.0, 1e18)));
}

TensorMemoryWatch::~TensorMemoryWatch() { ceiling.store(0); }

double TensorMemoryWatch::peak() const noexcept {
  const std::size_t top = highest.load();
  return static_cast<double>(top - std::min(top, start_));
}

}  // namespace attn
