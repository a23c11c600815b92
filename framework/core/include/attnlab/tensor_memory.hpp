// Where tensor memory comes from: TensorAllocator, the allocator of every Tensor.
//
// Every block is 64-byte aligned (as XSIMD's allocator made them, so xtensor still uses aligned
// vector loads). In a block of huge_page_tensor_bytes (16 MiB) or more, the whole 2 MiB pages
// inside it are advised for transparent huge pages (madvise MADV_HUGEPAGE). A Transformer's
// largest tensors (attention weights of B h n^2 floats, the FFN's B n f activations) are read in
// strides that touch a new 4 KiB page every few rows, each a TLB miss; one 2 MiB page covers 512
// of them. Measured on W3 L512 (docs/performance.md, huge pages, in turns): 600.1 ms per
// iteration against 606.2 ms with 4 KiB pages (577 against 586 when advising from 2 MiB on, in
// a faster phase of the machine). Why not smaller blocks: a 2 MiB page is zeroed whole at its first
// touch, so blocks that are allocated often and used sparsely pay for memory they never read;
// advising blocks from 2 MiB on made W7's batched beam search 20-50% slower (its per-step caches
// of 12.8 MB), from 16 MiB on it is unchanged.
//
// The advice is a hint: where the kernel has no transparent huge pages (or they are set to
// "never"), the memory is ordinary and nothing else changes. Only whole 2 MiB pages inside a
// block are advised, so a block never makes its neighbours' memory resident.
//
// A block of mapped_block_bytes (4 MiB, tensor_memory.cpp) or more is a mapping of its own (mmap), not a piece of
// malloc's heap. A training step asks for the same large sizes in a different order from one
// step to the next, and in one heap the holes they leave add up: W8 (ViT, batch 128) held 478 MB
// of tensors at its peak in 694 MB of heap. A freed mapping is kept for the next request of its
// exact size, up to mapped_cache_bytes (256 MiB) of them (a step asks again for the sizes it freed, so it
// pays no page faults for them), and given back to the kernel beyond that.
#pragma once

#include <cstddef>
#include <new>

#include <xsimd/memory/xsimd_alignment.hpp>

namespace attn {

constexpr std::size_t huge_page_tensor_bytes = std::size_t{16} << 20;

// At least `bytes` bytes (one if zero), aligned as above. Throws std::bad_alloc when the memory
// is not there.
void* allocate_tensor_memory(std::size_t bytes);
// Gives back a block allocate_tensor_memory returned for `bytes` (or nullptr).
void free_tensor_memory(void* block, std::size_t bytes) noexcept;

// The bytes of tensor memory allocated and not yet given back, over every thread.
std::size_t live_tensor_bytes() noexcept;

// Thrown by allocate_tensor_memory when a TensorMemoryWatch's ceiling would be passed.
struct TensorMemoryCeiling : std::bad_alloc {
  const char* what() const noexcept override { return "tensor memory above the ceiling being watched"; }
};

// While one lives, an allocation that would take the live tensor bytes more than `ceiling`
// above what they were when it began throws TensorMemoryCeiling, and the highest they reached
// is kept: how the memory plan measures one example's activations without letting a huge one
// take the machine. One at a time (the memory plan's checks run one after the other).
class TensorMemoryWatch {
 public:
  explicit TensorMemoryWatch(double ceiling);
  ~TensorMemoryWatch();
  TensorMemoryWatch(const TensorMemoryWatch&) = delete;
  TensorMemoryWatch& operator=(const TensorMemoryWatch&) = delete;
  // The highest live tensor bytes above the start so far.
  double peak() const noexcept;

 private:
  std::size_t start_;
};

template <class T>
struct TensorAllocator {
  using value_type = T;
  TensorAllocator() noexcept = default;
  template <class U>
  TensorAllocator(const TensorAllocator<U>&) noexcept {}
  T* allocate(std::size_t n);
  void deallocate(T* p, std::size_t n) noexcept { free_tensor_memory(p, n * sizeof(T)); }
};

template <class T>
T* TensorAllocator<T>::allocate(std::size_t n) {
  if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
  return static_cast<T*>(allocate_tensor_memory(n * sizeof(T)));
}

template <class T, class U>
bool operator==(const TensorAllocator<T>&, const TensorAllocator<U>&) noexcept { return true; }
template <class T, class U>
bool operator!=(const TensorAllocator<T>&, const TensorAllocator<U>&) noexcept { return false; }

}  // namespace attn

// Every block is at least 64-byte aligned: xtensor may use aligned loads and stores on them.
template <class T>
struct xsimd::allocator_alignment<attn::TensorAllocator<T>> {
  using type = xsimd::aligned_mode;
};
