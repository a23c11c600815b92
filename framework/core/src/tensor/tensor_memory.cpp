// TensorAllocator's memory (tensor_memory.hpp): 64-byte-aligned blocks, and in blocks of 16 MiB
// and more, the whole huge pages advised for transparent huge pages.
#include "attnlab/tensor_memory.hpp"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

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

// Live bytes (each block counted as malloc_usable_size says, when allocated and when freed), and
// the watch's limit (0: none) and highest value, in absolute live bytes.
std::atomic<std::size_t> live{0}, ceiling{0}, highest{0};

}  // namespace

void* allocate_tensor_memory(std::size_t bytes) {
  const std::size_t limit = ceiling.load(std::memory_order_relaxed);
  if (limit && live.load(std::memory_order_relaxed) + bytes > limit) throw TensorMemoryCeiling();
  void* block = nullptr;
  if (posix_memalign(&block, vector_alignment, bytes ? bytes : 1) != 0) throw std::bad_alloc();
  if (bytes >= huge_page_tensor_bytes) advise_huge_pages(block, bytes);
  const std::size_t now = live.fetch_add(malloc_usable_size(block), std::memory_order_relaxed) + malloc_usable_size(block);
  if (limit) {
    std::size_t seen = highest.load(std::memory_order_relaxed);
    while (now > seen && !highest.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
  }
  return block;
}

void free_tensor_memory(void* block) noexcept {
  if (block) live.fetch_sub(malloc_usable_size(block), std::memory_order_relaxed);
  std::free(block);
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
