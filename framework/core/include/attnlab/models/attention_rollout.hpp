// How attention composes through a stack of self-attention layers (Abnar & Zuidema 2020,
// "Quantifying Attention Flow in Transformers"), computed from a recorded map's weights
// [layer, head, n, n] (queries and keys the same n positions):
//   fused        F_l = mean / max / min over the heads of layer l's weights
//   with residual  Â_l = rownorm(F_l + I)     (the skip connection carries a position's own
//                  input past the attention; rows renormalised to sum to 1)
//   rollout      R = Â_{L-1} ··· Â_1 Â_0: R[i][j], how much of position i's output at the top
//                comes from input position j, if weights compose linearly
//   flow         F[i][j] = the maximum flow from input position j to output position i through
//                the graph of the layers (node j of layer l to node i of layer l+1, capacity
//                Â_l[i][j]), each row then divided by its sum; the flow counts only paths with
//                room left, where rollout multiplies every path
//   gradient-weighted rollout (Chefer et al. 2021, "Generic Attention-model Explainability"),
//                from the relevance G_l = dy/dA_l ⊙ A_l of each layer and head instead of the
//                weights (attention_relevance.hpp): Ā_l = mean_h max(G_l, 0), R = I, then
//                R <- R + Ā_l R for l = 0 .. L-1 (the residual is the identity kept in R); shown
//                as R - I, what attention adds to the identity (Chefer et al. leave a token's
//                own entry out too), each row divided by its sum so that it reads as rollout
// Rows of padded positions (at or past n_valid) are left 0; keys past n_valid are 0.
#pragma once

#include <cstddef>
#include <string>

#include "attnlab/tensor.hpp"

namespace attn {

enum class HeadFusion { mean, max, min };
// "mean", "max", "min" -> the fusion; std::invalid_argument naming the three otherwise.
HeadFusion head_fusion(const std::string& name);

// weights [layer, head, n, n] -> [n, n]
Tensor attention_rollout(const Tensor& weights, HeadFusion fusion, std::size_t n_valid);
// weights [layer, head, n, n] -> [n, n]; std::invalid_argument past max_flow_positions.
Tensor attention_flow(const Tensor& weights, HeadFusion fusion, std::size_t n_valid);
constexpr std::size_t max_flow_positions = 64;
// relevance [layer, head, n, n] -> [n, n]
Tensor gradient_rollout(const Tensor& relevance, std::size_t n_valid);

}  // namespace attn
