// The fixed keys of an experiment spec: type, default, range, meaning. This table drives
// validation (spec.cpp) and is what docs/spec.md documents (a test checks they agree).
#include "lab/spec/spec.hpp"

namespace attn {

const std::vector<SpecKeyDoc>& spec_schema() {
  static const std::vector<SpecKeyDoc> schema = {
      {"name", "string", "the spec file's name", "", "a title for the experiment"},
      {"description", "string", "\"\"", "", "free text, kept in the results file"},
      {"seed", "int", "0", ">= 0", "seeds data, initialisation, shuffling and dropout of every run (sweepable)"},
      {"output", "string", "<spec name>.h5", "a path in an existing, writable directory", "the HDF5 results file"},
      {"plugins", "list of strings", "[]", "paths of plugin libraries", "outside plugins to load before anything else"},
      {"dataset.name", "string", "(required)", "a registered dataset", "regression1d, sequence_task, parallel_corpus, ..."},
      {"dataset.<option>", "per dataset", "per dataset", "", "the dataset's options (docs/datasets-and-models.md)"},
      {"model.name", "string", "(required)", "a registered model", "nadaraya_watson, seq2seq, transformer, ..."},
      {"model.<option>", "per model", "per model", "", "the model's options, nested maps allowed (docs/datasets-and-models.md)"},
      {"training.optimizer", "string", "adam", "a registered optimizer", "sgd or adam"},
      {"training.optimizer_options.<option>", "per optimizer", "", "", "sgd: momentum, weight_decay; adam: beta1, beta2, eps, weight_decay"},
      {"training.lr", "float", "0.001", "> 0", "learning rate"},
      {"training.epochs", "int", "10", ">= 0", "passes over the training data"},
      {"training.batch_size", "int", "64", ">= 1", "examples per step (the last batch may be smaller)"},
      {"training.clip", "float", "0", ">= 0", "global gradient-norm limit; 0 turns clipping off"},
      {"training.shuffle", "bool", "true", "", "reshuffle the training examples every epoch"},
      {"training.eval_every", "int", "1", ">= 1", "epochs between evaluations (the last epoch is always evaluated)"},
      {"training.early_stopping.metric", "string", "(off)", "a metric the model reports", "stop when it stops improving (valid_loss, valid_token_acc, ...)"},
      {"training.early_stopping.patience", "int", "5", ">= 1", "evaluations without improvement before stopping"},
      {"evaluation.beam", "int", "1", ">= 1", "beam size for `attnlab translate` (1 = greedy)"},
      {"evaluation.alpha", "float", "0.75", ">= 0", "beam search length penalty: score = log P / L^alpha"},
      {"evaluation.max_len", "int", "num_steps", ">= 1", "decoding steps at most"},
      {"record.attention", "list of ints", "[0, 1, 2]", ">= 0", "evaluation examples whose attention maps are saved"},
      {"sweep.<key>", "list", "", "values of <key>", "one run per combination of the swept keys (e.g. sweep.seed: [1, 2, 3])"},
  };
  return schema;
}

}  // namespace attn
