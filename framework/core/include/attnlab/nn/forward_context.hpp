// What a forward pass needs besides its inputs: whether it trains, and the run's random stream
// for dropout masks. Layers take one `const ForwardContext&` instead of an (Rng*, bool) pair,
// and ask it for dropout: the one place that decides "dropout only while training".
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/rng.hpp"

namespace attn {

class ForwardContext {
 public:
  // Training: dropout draws its masks from `rng` (the run's stream, so a run is reproducible).
  static ForwardContext training(Rng& rng) { return ForwardContext(&rng); }
  // Evaluation and decoding: dropout is the identity and nothing random happens.
  static ForwardContext evaluation() { return ForwardContext(nullptr); }
  // Evaluation whose caller reads only the outputs (a loss, a prediction), no attention weights:
  // fused attention then stores none unless a gradient needs them (softmax_attention), so a long
  // context takes memory for one block of queries' scores, not for B h n_q n_k weights.
  static ForwardContext evaluation_without_weights() { return ForwardContext(nullptr, false); }

  // Whether attention keeps its weights for the caller (AttentionResult::weights).
  bool keeps_weights() const { return keeps_weights_; }

  bool is_training() const { return rng_ != nullptr; }
  // Whether dropout of rate p changes anything in this pass (training, p > 0).
  bool drops(float p) const { return is_training() && p > 0.0f; }
  // y = dropout(x, p) while training (inverted dropout: kept units scaled by 1/(1-p)); y = x otherwise.
  // Both refuse a rate outside [0, 1) (std::invalid_argument), in evaluation too and before
  // anything is drawn: a NaN rate is an error, not "no dropout".
  Var dropout(const Var& x, float p) const {
    require_dropout_rate(p, "dropout");
    return drops(p) ? attn::dropout(x, p, *rng_) : x;
  }
  // The mask of a dropout of rate p that a fused op applies itself (softmax_attention): its seed
  // is drawn as dropout() draws it; rate 0, and nothing drawn, when drops(p) is false.
  DropoutDraw draw_dropout(float p) const {
    require_dropout_rate(p, "dropout");
    return drops(p) ? DropoutDraw{p, rng_->next_u64()} : DropoutDraw{};
  }

 private:
  explicit ForwardContext(Rng* rng, bool keeps_weights = true) : rng_(rng), keeps_weights_(keeps_weights) {}
  Rng* rng_;
  bool keeps_weights_;
};

}  // namespace attn
