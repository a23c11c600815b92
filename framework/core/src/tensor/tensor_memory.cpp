// TensorAllocator's memory (tensor_memory.hpp): 64-byte-aligned blocks, and in blocks of 16 MiB
// and more, the whole huge pages advised for transparent huge pages.
#include "attnlab/tensor_memory.hpp"

#include <sys/mman.h>

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

}  // namespace

void* allocate_tensor_memory(std::size_t bytes) {
  void* block = nullptr;
  if (posix_memalign(&block, vector_alignment, bytes ? bytes : 1) != 0) throw std::bad_alloc();
  if (bytes >= huge_page_tensor_bytes) advise_huge_pages(block, bytes);
  return block;
}

void free_tensor_memory(void* block) noexcept { std::free(block); }

}  // namespace attn
