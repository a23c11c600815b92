// What this build of attnlab is: what decides the last bits of its floats and whether a plugin
// can share its tensors (the SIMD target, the C++ ABI, the BLAS kernels).
#pragma once

#include <string>

namespace attn {

// "plugin API 4; tensors aligned to 32 bytes (XSIMD avx2), GCC C++ ABI 1017, C++11 std::string;
// OpenBLAS Zen": the same line on two machines means bit-identical results for the same spec.
std::string build_signature();

}  // namespace attn
