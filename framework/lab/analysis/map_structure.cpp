#include "lab/analysis/map_structure.hpp"

#include <cmath>

#include "lab/analysis/pictures.hpp"

namespace attn {
namespace {

// Decoder self-attention is causal: query i sees keys 0 .. i.
bool causal(const AttentionMap& m) { return m.name == "decoder_self"; }

}  // namespace

double map_structure(const AttentionMap& m, std::size_t layer, std::size_t head) {
  const Tensor& w = m.weights;  // [layer, head, n_q, n_k]
  if (w.dimension() != 4 || layer >= w.shape()[0] || head >= w.shape()[1]) return std::nan("");
  const std::vector<std::size_t> rows = unpadded(w.shape()[2], m.queries), columns = unpadded(w.shape()[3], m.keys);
  const bool is_causal = causal(m);
  double sum = 0.0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t visible = is_causal ? i + 1 : columns.size();
    double total = 0.0, entropy = 0.0;
    for (std::size_t j = 0; j < visible; ++j) total += w(layer, head, rows[i], columns[j]);
    if (visible < 2 || !(total >= 0.01)) continue;
    for (std::size_t j = 0; j < visible; ++j)
      if (const double p = w(layer, head, rows[i], columns[j]) / total; p > 0.0) entropy -= p * std::log(p);
    sum += 1.0 - entropy / std::log(static_cast<double>(visible));
    ++counted;
  }
  return counted > 0 ? sum / static_cast<double>(counted) : std::nan("");
}

std::optional<MostStructured> most_structured(const ResultsReader& file, const std::vector<RunInfo>& runs) {
  std::optional<MostStructured> best;
  for (const RunInfo& r : runs) {
    std::vector<std::string> names = file.examples(r.id);
    if (names.empty()) names = file.probes(r.id);
    if (names.empty()) continue;
    for (const AttentionMap& m : file.example(r.id, names.front()).maps) {
      if (m.weights.dimension() != 4) continue;
      for (std::size_t l = 0; l < m.weights.shape()[0]; ++l)
        for (std::size_t h = 0; h < m.weights.shape()[1]; ++h)
          if (const double s = map_structure(m, l, h); std::isfinite(s) && (!best || s > best->structure))
            best = MostStructured{r.id, names.front(), m.name, l, h, s};
    }
  }
  return best;
}

}  // namespace attn
