// Column sums split over the cores (private to framework/src/autodiff): a bias's or a layer
// norm's gradient, the sum over all rows of a batch.
//
//   into[j] += term(0, j) + term(1, j) + ... + term(rows - 1, j), added in row order
//
// The columns, not the rows, go to the chunks (attnlab/parallel.hpp): each column is added up
// row after row, as one thread adding whole rows would, so the floats are the same at any thread
// count and the same as without chunks.
#pragma once

#include <algorithm>
#include <cstddef>

#include "attnlab/parallel.hpp"

namespace attn {

template <class Term>
void add_column_sums(std::size_t rows, std::size_t cols, float* into, Term&& term) {
  const std::size_t columns = std::max<std::size_t>(64, (rows_per_chunk(rows) + 15) / 16 * 16);  // 4 cache lines a row at least
  parallel_for(cols, columns, [&](std::size_t c0, std::size_t c1) {
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = c0; j < c1; ++j) into[j] += term(r, j);
  });
}

}  // namespace attn
