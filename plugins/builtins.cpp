// The explicit registration of every built-in plugin (no static-initialisation tricks).
#include <attnlab/plugin.hpp>

#include "attnlab/data/builtin_datasets.hpp"
#include "attnlab/models/builtin_models.hpp"
#include "attnlab/training/builtin_optimizers.hpp"

void register_scoring_dot(attn::Registries&);
void register_scoring_scaled_dot(attn::Registries&);
void register_scoring_general(attn::Registries&);
void register_scoring_additive(attn::Registries&);
void register_scoring_gaussian(attn::Registries&);
void register_scoring_gaussian_learned(attn::Registries&);
void register_cell_rnn(attn::Registries&);
void register_cell_gru(attn::Registries&);
void register_cell_lstm(attn::Registries&);
void register_mode_qkv(attn::Registries&);
void register_mode_qvv(attn::Registries&);
void register_mode_vvv(attn::Registries&);

namespace attn {

void register_builtins(Registries& r) {
  register_scoring_dot(r);
  register_scoring_scaled_dot(r);
  register_scoring_general(r);
  register_scoring_additive(r);
  register_scoring_gaussian(r);
  register_scoring_gaussian_learned(r);
  register_cell_rnn(r);
  register_cell_gru(r);
  register_cell_lstm(r);
  register_mode_qkv(r);
  register_mode_qvv(r);
  register_mode_vvv(r);
  register_model_nadaraya_watson(r);
  register_model_seq2seq(r);
  register_model_transformer(r);
  register_dataset_regression1d(r);
  register_dataset_sequence_task(r);
  register_dataset_parallel_corpus(r);
  register_optimizer_sgd(r);
  register_optimizer_adam(r);
}

}  // namespace attn
