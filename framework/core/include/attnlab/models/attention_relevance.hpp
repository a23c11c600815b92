// The relevance of each attention weight to a model's output, for gradient-weighted rollout
// (Chefer et al. 2021; attention_rollout.hpp). For probe example `example` and every layer and
// head of map `map`:
//   G = dy/dA ⊙ A       A: the head's weights [n_q, n_k];  y = -L, the model's log-likelihood
//                       of its own prediction (its class, its tags, its next tokens, its greedy
//                       decoding: Model::prediction_loss)
// (Chefer et al. explain the predicted class's logit; its log-probability is the same for every
// kind of model.) A layer the pass calls more than once (a recurrent decoder's attention, once
// per step) is refused: its calls would mix. The weights are watched through the model's head
// gates (head_gates.hpp): A ⊙ 1 passes the same values on, and the gradient of the 1s is G.
#pragma once

#include <cstddef>
#include <string>

#include "attnlab/models/model.hpp"

namespace attn {

// [layer, head, n_q, n_k]; std::invalid_argument when the model has no layer of map `map`.
// Evaluation mode; the model's gates are left as they were.
Tensor attention_relevance(Model& model, std::size_t example, const std::string& map);

}  // namespace attn
