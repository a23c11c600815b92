#include "lab/results/params_checksum.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace attn {
namespace {

constexpr std::uint64_t fnv_offset = 14695981039346656037ull, fnv_prime = 1099511628211ull;

void mix(std::uint64_t& h, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * fnv_prime;
}

}  // namespace

std::string params_checksum(const NamedTensors& params) {
  std::vector<const NamedTensors::value_type*> sorted;
  for (const auto& p : params) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  std::uint64_t h = fnv_offset;
  for (const auto* p : sorted) {
    mix(h, p->first.data(), p->first.size() + 1);  // the name and its terminating 0
    const std::uint64_t rank = p->second.dimension();
    mix(h, &rank, sizeof rank);
    for (const std::size_t d : p->second.shape()) {
      const std::uint64_t extent = d;
      mix(h, &extent, sizeof extent);
    }
    mix(h, p->second.data(), p->second.size() * sizeof(float));
  }
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return text;
}

}  // namespace attn
