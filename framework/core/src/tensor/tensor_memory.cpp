// TensorAllocator's memory (tensor_memory.hpp): 2 MiB-aligned blocks advised for transparent
// huge pages from 2 MiB on, 64-byte-aligned blocks below.
#include "attnlab/tensor_memory.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace attn {
namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;  // x86-64's transparent huge page
constexpr std::size_t vector_alignment = 64;            // one AVX-512 register, one cache line

// Advise the whole huge pages of [block, block + bytes) (block is huge-page aligned).
void advise_huge_pages(void* block, std::size_t bytes) {
  const std::size_t whole = bytes / huge_page * huge_page;
  madvise(block, whole, MADV_HUGEPAGE);  // a hint: failure (no THP in this kernel) changes nothing
}

}  // namespace

void* allocate_tensor_memory(std::size_t bytes) {
  const bool large = bytes >= huge_page;
  void* block = nullptr;
  if (posix_memalign(&block, large ? huge_page : vector_alignment, bytes ? bytes : 1) != 0) throw std::bad_alloc();
  if (large) advise_huge_pages(block, bytes);
  return block;
}

void free_tensor_memory(void* block) noexcept { std::free(block); }

}  // namespace attn
