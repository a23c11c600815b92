// Positional scheme `sinusoidal` (Vaswani et al. 2017; d2l 11.6), added to the input:
//   P[i, 2m] = sin(i / base^(2m/d)),  P[i, 2m+1] = cos(i / base^(2m/d))      X' = X + P[i]
// A function of the position, not a table: rows past max_len are computed when asked for, so
// it covers any position (whether a model trained on short inputs reads them well is another
// matter: docs/concepts/length-generalization.md). Option: base (10000).
#include <attnlab/plugin.hpp>

#include <cmath>

namespace {

// Rows first .. first + n - 1 of the table [n, dim].
attn::Tensor sinusoid_rows(std::size_t first, std::size_t n, std::size_t dim, double base) {
  attn::Tensor p = xt::zeros<float>({n, dim});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t m = 0; 2 * m < dim; ++m) {
      const double angle = static_cast<double>(first + i) / std::pow(base, 2.0 * static_cast<double>(m) / static_cast<double>(dim));
      p(i, 2 * m) = static_cast<float>(std::sin(angle));
      if (2 * m + 1 < dim) p(i, 2 * m + 1) = static_cast<float>(std::cos(angle));
    }
  return p;
}

class Sinusoidal final : public attn::PositionalScheme {
 public:
  explicit Sinusoidal(const attn::PositionalArgs& a)
      : base_(a.options.get<double>("base", 10000.0, 2.0, 1e12)), dim_(a.dim) {
    a.params.keep_table("P", {a.max_len, a.dim});  // counted against the run's memory before it exists
    table_ = attn::constant(sinusoid_rows(0, a.max_len, a.dim, base_));
  }
  attn::Var add_to_input(const attn::Var& x, std::size_t first) const override {
    const std::size_t n = x.dim(1);
    if (first + n <= table_.dim(0)) return x + attn::slice(table_, 0, first, first + n);  // [B, T, d] + [T, d]
    return x + attn::constant(sinusoid_rows(first, n, dim_, base_));
  }
  attn::PositionalTraits traits() const override {
    attn::PositionalTraits t;
    t.adds_to_input = true;
    return t;
  }

 private:
  double base_;
  std::size_t dim_;
  attn::Var table_;  // [max_len, d]: the rows a model reads most
};

}  // namespace

void register_positional_sinusoidal(attn::Registries& r) {
  r.positional.add<Sinusoidal>("sinusoidal", "sin/cos of the position added to the input (Vaswani et al.); any position");
}
