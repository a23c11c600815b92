// The built-in plugins of this folder, registered by one explicit call (no static-initialisation
// tricks): scoring functions dot, scaled_dot, general, additive, gaussian, gaussian_learned and
// d2l 1.0's kernels gaussian_kernel, boxcar, constant, epanechikov; RNN cells rnn, gru, lstm;
// attention modes qkv, qvv, vvv; normalizers softmax, sigmoid, sparsemax, kernel; positional
// schemes none, sinusoidal, learned, rope, alibi, t5_bias. Each is
// written against the public plugin API only (<attnlab/plugin.hpp>), as an outside plugin
// would be.
#pragma once

#include <attnlab/plugin.hpp>

namespace attn {

void register_builtin_plugins(Registries& registries);

}  // namespace attn
