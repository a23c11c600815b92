// Losses.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"
#include "fast_math.hpp"

namespace attn {

// loss_b = (1/T) sum_{t < len_b} (logsumexp(x_bt) - sum_v q_btv x_btv)   (d2l's MaskedSoftmaxCELoss),
//   q_bt = (1 - eps) onehot(label_bt) + eps / V   (label smoothing; eps = 0: plain cross-entropy);
// dx_bt = dloss_b / T * (softmax(x_bt) - q_bt) for t < len_b, 0 elsewhere
Var masked_cross_entropy(const Var& logits, const IntTensor& labels, const IntTensor& valid_lens, float smoothing) {
  if (logits.ndim() != 3 || labels.dimension() != 2 || labels.shape()[0] != logits.dim(0) ||
      labels.shape()[1] != logits.dim(1) || valid_lens.dimension() != 1 ||
      valid_lens.size() != logits.dim(0))
    throw std::invalid_argument(
        "masked_cross_entropy: expected logits [B, T, V], labels [B, T], valid_lens [B], got " +
        shape_str(logits.shape()) + ", " +
        shape_str(Shape(labels.shape().begin(), labels.shape().end())) + ", " +
        shape_str(Shape(valid_lens.shape().begin(), valid_lens.shape().end())));
  if (!(smoothing >= 0.0f && smoothing <= 1.0f))
    throw std::invalid_argument("masked_cross_entropy: label smoothing must be in [0, 1], got " + std::to_string(smoothing));
  const std::size_t batch = logits.dim(0), steps = logits.dim(1), vocab = logits.dim(2);
  const float spread = smoothing / static_cast<float>(vocab);  // eps / V on every class
  std::vector<std::size_t> lens(batch);
  for (std::size_t b = 0; b < batch; ++b)
    lens[b] = static_cast<std::size_t>(std::clamp<int>(valid_lens(b), 0, static_cast<int>(steps)));
  Tensor loss = xt::zeros<float>({batch});
  Tensor probs = xt::zeros<float>(logits.shape());  // softmax of the valid rows, kept for backward
  for (std::size_t b = 0; b < batch; ++b) {
    double total = 0.0;
    for (std::size_t t = 0; t < lens[b]; ++t) {
      const int label = labels(b, t);
      if (label < 0 || static_cast<std::size_t>(label) >= vocab)
        throw std::out_of_range("masked_cross_entropy: label " + std::to_string(label) + " at [" +
                                std::to_string(b) + ", " + std::to_string(t) +
                                "] is outside the vocabulary [0, " + std::to_string(vocab) + ")");
      const float* x = logits.value().data() + (b * steps + t) * vocab;
      float* p = probs.data() + (b * steps + t) * vocab;
      const float mx = *std::max_element(x, x + vocab);
      const float z = exp_row(x, p, vocab, mx), inv_z = 1.0f / z;
      double x_sum = 0.0;
      if (smoothing > 0.0f)
        for (std::size_t v = 0; v < vocab; ++v) x_sum += x[v];
      for (std::size_t v = 0; v < vocab; ++v) p[v] *= inv_z;
      total += static_cast<double>(mx + std::log(z)) - (1.0 - smoothing) * x[label] - spread * x_sum;
    }
    loss(b) = static_cast<float>(total / static_cast<double>(std::max<std::size_t>(steps, 1)));
  }
  return graph_node(std::move(loss), {logits},
                [probs = std::move(probs), labels, lens, steps, vocab, smoothing, spread](Node& n) {
    float* dx = n.parents[0]->grad_buffer().data();
    for (std::size_t b = 0; b < lens.size(); ++b) {
      const float g = n.grad(b) / static_cast<float>(steps);
      for (std::size_t t = 0; t < lens[b]; ++t) {
        const std::size_t row = (b * steps + t) * vocab;
        for (std::size_t v = 0; v < vocab; ++v) dx[row + v] += g * (probs.data()[row + v] - spread);
        dx[row + static_cast<std::size_t>(labels(b, t))] -= g * (1.0f - smoothing);
      }
    }
  }, reads_parents({}));
}

}  // namespace attn
