// The built-in plugins of this folder, registered by one explicit call (no static-initialisation
// tricks): scoring functions dot, scaled_dot, general, additive, gaussian, gaussian_learned;
// RNN cells rnn, gru, lstm; attention modes qkv, qvv, vvv. Each is written against the public
// plugin API only (<attnlab/plugin.hpp>), as an outside plugin would be.
#pragma once

#include <attnlab/plugin.hpp>

namespace attn {

void register_builtin_plugins(Registries& registries);

}  // namespace attn
