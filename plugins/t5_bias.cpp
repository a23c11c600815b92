// Positional scheme `t5_bias` (Raffel et al. 2020): a learned bias per head and distance bucket
// added to the scores:  S_hij += b[bucket(i, j), h],  b [B, heads] a parameter (initialised 0).
// Buckets of the distance (B of them, T5's _relative_position_bucket):
//   causal:         d = max(i - j, 0); d itself below B/2, then log-spaced up to max_distance,
//                   the last bucket beyond
//   bidirectional:  half the buckets for keys after the query (j > i), half for the others,
//                   each split as above over d = |i - j| with B/2 buckets
// Every distance past max_distance shares the last bucket, so any length is covered. Relative.
// Options: buckets (32), max_distance (128).
#include <attnlab/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace {

// The bucket of a distance d >= 0 among `buckets`: exact below buckets / 2, then log-spaced.
std::size_t distance_bucket(std::size_t d, std::size_t buckets, std::size_t max_distance) {
  const std::size_t exact = buckets / 2;
  if (d < exact) return d;
  const double spread = std::log(static_cast<double>(d) / static_cast<double>(exact)) /
                        std::log(static_cast<double>(max_distance) / static_cast<double>(exact));
  const auto bucket = exact + static_cast<std::size_t>(spread * static_cast<double>(buckets - exact));  // (truncated, as T5)
  return std::min(bucket, buckets - 1);
}

class T5Bias final : public attn::PositionalScheme {
 public:
  explicit T5Bias(const attn::PositionalArgs& a)
      : heads_(a.heads),
        buckets_(a.options.get<std::size_t>("buckets", 32, a.causal ? 2 : 4, 1024)),
        max_distance_(a.options.get<std::size_t>("max_distance", 128, 1, 1 << 20)),
        causal_(a.causal) {
    const std::size_t exact = (causal_ ? buckets_ : buckets_ / 2) / 2;
    if (max_distance_ <= exact)
      throw attn::SpecError(a.options.where("max_distance"), "positional_options.max_distance (" + std::to_string(max_distance_) + ") must exceed the " +
                                std::to_string(exact) + " distances that have a bucket each; give more than " + std::to_string(exact));
    table_ = a.params.param("bias", {buckets_, heads_}, attn::Init::zeros());
  }

  attn::Var bias(std::size_t q0, std::size_t n_q, std::size_t k0, std::size_t n_k) const override {
    attn::IntTensor bucket = attn::IntTensor::from_shape({n_q * n_k});
    for (std::size_t i = 0; i < n_q; ++i)
      for (std::size_t j = 0; j < n_k; ++j) bucket(i * n_k + j) = static_cast<int>(bucket_of(q0 + i, k0 + j));
    const attn::Var rows = attn::index_select(table_, 0, bucket);              // [n_q * n_k, heads]
    return attn::reshape(attn::transpose(rows, 0, 1), {heads_, n_q, n_k});     // [heads, n_q, n_k]
  }

  attn::PositionalTraits traits() const override {
    attn::PositionalTraits t;
    t.biases_scores = true;
    t.relative = true;
    return t;
  }

 private:
  std::size_t bucket_of(std::size_t i, std::size_t j) const {
    if (causal_) return distance_bucket(i > j ? i - j : 0, buckets_, max_distance_);
    const std::size_t half = buckets_ / 2;
    return (j > i ? half : 0) + distance_bucket(j > i ? j - i : i - j, half, max_distance_);
  }

  std::size_t heads_, buckets_, max_distance_;
  bool causal_;
  attn::Var table_;  // [buckets, heads]
};

}  // namespace

void register_positional_t5_bias(attn::Registries& r) {
  r.positional.add<T5Bias>("t5_bias", "a learned bias per head and distance bucket (Raffel et al.); relative, any length");
}
