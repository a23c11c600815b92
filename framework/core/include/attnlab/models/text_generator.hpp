// Sampling text from a language model (language_model.cpp): the prompt is read once, then one
// token at a time is drawn from the model's next-token distribution and fed back, each block's
// causal self-attention keeping the keys and values of the earlier positions (KeyValueCache), so
// a step costs its own position's work. A step's distribution:
//   p(v) ∝ exp(logit_v / temperature), restricted to the top_k largest (0: every token)
#pragma once

#include <vector>

#include "attnlab/rng.hpp"
#include "attnlab/tensor.hpp"

namespace attn {

struct SamplingOptions {
  std::size_t steps = 100;   // tokens to write
  float temperature = 1.0f;  // > 0; towards 0: the likeliest token every time
  std::size_t top_k = 0;     // draw among the k likeliest (0: among all)
  bool attention = true;     // keep Generation::attention (layers x heads x steps x positions floats)
};

struct Generation {
  std::vector<int> tokens;  // the written tokens (without the prompt)
  // The attention of each written token's position, [layer, head, steps, prompt + steps]: row s
  // is the weights of the position that wrote token s over the positions before it (0 past it).
  Tensor attention;
  // The key/value cache after the last step: its bytes over every layer, and one layer's keys
  // [kv_heads, positions, head size] (grouped-query attention keeps fewer heads).
  std::size_t cache_bytes = 0;
  Shape cache_keys;
};

class TextGenerator {
 public:
  virtual ~TextGenerator() = default;
  // The positions a sequence may have (prompt + steps), or 0 for no limit.
  virtual std::size_t max_positions() const = 0;
  virtual Generation generate(const std::vector<int>& prompt, const SamplingOptions& options, Rng& rng) = 0;
};

// Draws a token from logits [V] as SamplingOptions says (stable: logits minus their largest).
int sample_token(const float* logits, std::size_t vocab, const SamplingOptions& options, Rng& rng);

}  // namespace attn
