// A trained run of a results file, rebuilt: the model from the run's stored config, its weights
// and its vocabularies (for `attnlab translate` and `attnlab probe`). The model refers to
// `data`, so the parts live together.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "attnlab/models/sequence_model.hpp"
#include "lab/results/results_format.hpp"
#include "lab/runner/run.hpp"
#include "lab/spec/spec.hpp"

namespace attn::cli {

struct TrainedRun {
  RunPlan plan;
  Registries registries;
  SequenceData vocabularies;
  Data data;
  ParamStore store;
  std::shared_ptr<Model> model;
  SequenceModel* decoder = nullptr;
};

// Rebuilds run `id` (plugins from the spec and --plugin; evaluation.* from --beam, --alpha,
// --max-len). `probe` sentences, when given, become the model's probe set (their tokens after
// d2l's preprocessing); a token outside the vocabulary is a UsageError naming it.
void rebuild(TrainedRun& run, const ResultsReader& file, const std::string& id, const Arguments& a,
             const std::vector<std::string>& probe = {});

// The run's plan, read back from its stored config (evaluation.* overridden from --beam,
// --alpha, --max-len), with the built-ins and the run's plugins (the spec's and --plugin's)
// registered into `registries`.
RunPlan stored_plan(const ResultsReader& file, const std::string& id, const Arguments& a, Registries& registries);
// Sets every parameter of `store` to the run's stored value; a missing parameter or one of
// another shape is a damaged file.
void load_parameters(ParamStore& store, const ResultsReader& file, const std::string& id);

// Run `id` as it trained: its stored plan (into `plan`), its data read again as the run read
// them (paths relative to the spec's directory) and its weights (for predict, generate, ablate).
std::unique_ptr<RunParts> rebuilt_run(const ResultsReader& file, const std::string& id, const Arguments& a,
                                      Registries& registries, RunPlan& plan);

// The run a command works on: --run ID, or the only run of the file.
std::string chosen_run(const ResultsReader& file, const Arguments& a);

// A sentence as source token ids (d2l's preprocessing; UTF-8 checked).
std::vector<int> source_ids(const SequenceData& data, const std::string& sentence);

// Typed text is UTF-8 without control characters (it is echoed in messages): a UsageError otherwise.
void require_typed_text(const std::string& text);

// Text as a language model's tokens: its UTF-8 characters when every token of the vocabulary but
// the reserved ones is one character (a character model reads the text as it is; a space only
// separates when the vocabulary has none, as in a task's "3 1 4 ="), else its words. Text that
// is not UTF-8 or holds a control character is a UsageError.
std::vector<std::string> text_tokens(const std::string& text, const Vocab& vocab);
// Tokens as text_tokens reads them: the characters of a text (`characters_of_a_text`: a
// text_corpus read as characters), or of a vocabulary that holds a space, as they are; words, or
// a task's characters, separated by spaces.
std::string tokens_text(const std::vector<int>& ids, const Vocab& vocab, bool characters_of_a_text);

}  // namespace attn::cli
