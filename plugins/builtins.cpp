#include "plugins/builtins.hpp"

void register_scoring_dot(attn::Registries&);
void register_scoring_scaled_dot(attn::Registries&);
void register_scoring_general(attn::Registries&);
void register_scoring_additive(attn::Registries&);
void register_scoring_gaussian(attn::Registries&);
void register_scoring_gaussian_learned(attn::Registries&);
void register_scoring_kernel_functions(attn::Registries&);
void register_scoring_gat(attn::Registries&);
void register_cell_rnn(attn::Registries&);
void register_cell_gru(attn::Registries&);
void register_cell_lstm(attn::Registries&);
void register_mode_qkv(attn::Registries&);
void register_mode_qvv(attn::Registries&);
void register_mode_vvv(attn::Registries&);
void register_normalizer_softmax(attn::Registries&);
void register_normalizer_sigmoid(attn::Registries&);
void register_normalizer_sparsemax(attn::Registries&);
void register_normalizer_kernel(attn::Registries&);
void register_positional_none(attn::Registries&);
void register_positional_sinusoidal(attn::Registries&);
void register_positional_learned(attn::Registries&);
void register_positional_rope(attn::Registries&);
void register_positional_alibi(attn::Registries&);
void register_positional_t5_bias(attn::Registries&);

namespace attn {

void register_builtin_plugins(Registries& r) {
  register_scoring_dot(r);
  register_scoring_scaled_dot(r);
  register_scoring_general(r);
  register_scoring_additive(r);
  register_scoring_gaussian(r);
  register_scoring_gaussian_learned(r);
  register_scoring_kernel_functions(r);
  register_scoring_gat(r);
  register_cell_rnn(r);
  register_cell_gru(r);
  register_cell_lstm(r);
  register_mode_qkv(r);
  register_mode_qvv(r);
  register_mode_vvv(r);
  register_normalizer_softmax(r);
  register_normalizer_sigmoid(r);
  register_normalizer_sparsemax(r);
  register_normalizer_kernel(r);
  register_positional_none(r);
  register_positional_sinusoidal(r);
  register_positional_learned(r);
  register_positional_rope(r);
  register_positional_alibi(r);
  register_positional_t5_bias(r);
}

}  // namespace attn
