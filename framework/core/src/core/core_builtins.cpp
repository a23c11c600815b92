// The explicit registration of the core's models, datasets and optimizers (no
// static-initialisation tricks). Each is defined beside its class.
#include "attnlab/registries.hpp"

namespace attn {

void register_model_nadaraya_watson(Registry<Model, ModelArgs>& r);
void register_model_seq2seq(Registry<Model, ModelArgs>& r);
void register_model_transformer(Registry<Model, ModelArgs>& r);
void register_model_encoder_tagger(Registry<Model, ModelArgs>& r);
void register_model_vit(Registry<Model, ModelArgs>& r);
void register_model_encoder_classifier(Registry<Model, ModelArgs>& r);
void register_model_language_model(Registry<Model, ModelArgs>& r);
void register_model_gat(Registry<Model, ModelArgs>& r);
void register_dataset_regression1d(Registry<DatasetSource, DatasetArgs>& r);
void register_dataset_sequence_task(Registry<DatasetSource, DatasetArgs>& r);
void register_dataset_parallel_corpus(Registry<DatasetSource, DatasetArgs>& r);
void register_dataset_fashion_mnist(Registry<DatasetSource, DatasetArgs>& r);
void register_dataset_graph(Registry<DatasetSource, DatasetArgs>& r);
void register_dataset_coloured_graphs(Registry<DatasetSource, DatasetArgs>& r);
void register_dataset_text_corpus(Registry<DatasetSource, DatasetArgs>& r);
void register_dataset_repeated_patterns(Registry<DatasetSource, DatasetArgs>& r);
void register_dataset_spoken_digits(Registry<DatasetSource, DatasetArgs>& r);
void register_optimizer_sgd(Registry<Optimizer, OptimizerArgs>& r);
void register_optimizer_adam(Registry<Optimizer, OptimizerArgs>& r);

void register_core_builtins(Registries& r) {
  register_model_nadaraya_watson(r.models);
  register_model_seq2seq(r.models);
  register_model_transformer(r.models);
  register_model_encoder_tagger(r.models);
  register_model_vit(r.models);
  register_model_encoder_classifier(r.models);
  register_model_language_model(r.models);
  register_model_gat(r.models);
  register_dataset_regression1d(r.datasets);
  register_dataset_sequence_task(r.datasets);
  register_dataset_parallel_corpus(r.datasets);
  register_dataset_fashion_mnist(r.datasets);
  register_dataset_graph(r.datasets);
  register_dataset_coloured_graphs(r.datasets);
  register_dataset_text_corpus(r.datasets);
  register_dataset_repeated_patterns(r.datasets);
  register_dataset_spoken_digits(r.datasets);
  register_optimizer_sgd(r.optimizers);
  register_optimizer_adam(r.optimizers);
}

}  // namespace attn
