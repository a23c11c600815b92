// LD_PRELOAD library for test_behaviour_golden.cpp: every heap block comes back filled with 0xFF
// bytes, which are NaN as floats. Code that reads memory it has not
// written (0 * NaN is NaN) then shows it on every run, instead of on the few runs whose address
// layout leaves a NaN-looking allocator pointer in a reused block.
#include <cerrno>
#include <cstddef>
#include <cstring>

extern "C" {

void* __libc_malloc(std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

static void* filled(void* p, std::size_t size) {
  if (p) std::memset(p, 0xFF, size);
  return p;
}

void* malloc(std::size_t size) { return filled(__libc_malloc(size), size); }
void* memalign(std::size_t alignment, std::size_t size) { return filled(__libc_memalign(alignment, size), size); }
void* aligned_alloc(std::size_t alignment, std::size_t size) { return memalign(alignment, size); }
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  void* p = memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"
