// `attnlab translate RESULTS.h5 --run ID "go ."`: decode new input with a trained run.
#include <cstdio>

#include "arguments.hpp"
#include "attnlab/data/text.hpp"
#include "lab/results/results_format.hpp"
#include "lab/spec/schema.hpp"
#include "attnlab/plugin_loader.hpp"
#include "lab/builtins.hpp"

namespace attn::cli {
namespace {

// A trained run of a results file, rebuilt for decoding: the model from the run's stored config,
// its weights and its vocabularies. The model refers to `data`, so the parts live together.
struct TrainedRun {
  RunPlan plan;
  Registries registries;
  SequenceData vocabularies;
  Data data;
  ParamStore store;
  std::shared_ptr<Model> model;
  SequenceModel* decoder = nullptr;
};

// The decoding flags are the evaluation.* keys they override, checked by the same schema rows.
std::vector<std::string> decoding_overrides(const Arguments& a) {
  const std::pair<const char*, const char*> flags[] = {
      {"--beam", "evaluation.beam"}, {"--alpha", "evaluation.alpha"}, {"--max-len", "evaluation.max_len"}};
  std::vector<std::string> overrides;
  for (const auto& [flag, key] : flags) {
    if (!a.has(flag)) continue;
    const std::string problem = check_value(*find_spec_key(key), a.value(flag, ""));
    if (!problem.empty()) throw UsageError(std::string(flag) + ": " + problem);
    overrides.push_back(std::string(key) + "=" + a.value(flag, ""));
  }
  return overrides;
}

void rebuild(TrainedRun& run, const ResultsReader& file, const std::string& id, const Arguments& a) {
  const std::optional<Vocabularies> vocab = file.vocabularies(id);
  if (!vocab) throw UsageError("run '" + id + "' is not a sequence model (no vocabulary to translate with)");
  const SpecResult spec = read_spec_text(file.config(id), file.path() + ":/runs/" + id, decoding_overrides(a));
  if (!spec.spec) throw FileError("the run's stored config does not read back: " + spec.diagnostics[0].str());
  run.plan = spec.spec->runs.at(0);
  register_builtins(run.registries);
  for (const std::string& p : spec.spec->plugins) load_plugin(p, run.registries);
  for (const std::string& p : a.all("--plugin")) load_plugin(p, run.registries);
  SequenceData& data = run.vocabularies;
  data.src_vocab = Vocab(vocab->source);
  data.tgt_vocab = Vocab(vocab->target);
  data.num_steps = vocab->num_steps;
  data.train = data.valid = make_split({}, {}, data.num_steps);
  run.data = data;
  Rng rng(0);
  run.model = run.registries.models.create(run.plan.model, ModelArgs{run.registries, ParamScope(run.store, rng),
                                                                     run.plan.model_options, run.data});
  for (const auto& [name, var] : run.store.items()) var.mutable_value() = file.param(id, name);
  run.decoder = dynamic_cast<SequenceModel*>(run.model.get());
  if (!run.decoder) throw UsageError("model '" + run.plan.model + "' does not translate");
}

// The cross-attention of one translation: one row per output token, one column per source token.
void print_attention(const Translation& t, const std::vector<std::string>& rows, const std::vector<std::string>& columns) {
  if (t.attention.empty()) std::printf("  (this model has no attention to show)\n");
  for (const auto& [name, w] : t.attention) {
    if (name == "decoder_self" || name == "encoder_self") continue;  // shown by `attnlab plot` (token x token)
    std::printf("\n  %s attention, layer 0, head 0 of %zu (rows: output tokens, columns: source tokens)\n", name.c_str(), w.shape()[1]);
    std::printf("  %8s", "");
    for (const auto& c : columns) std::printf(" %6.6s", c.c_str());
    std::printf("\n");
    for (std::size_t q = 0; q < w.shape()[2] && q < rows.size(); ++q) {
      std::printf("  %8.8s", rows[q].c_str());
      for (std::size_t k = 0; k < columns.size() && k < w.shape()[3]; ++k) std::printf(" %6.2f", w(0, 0, q, k));
      std::printf("\n");
    }
  }
}

int translate(const std::vector<std::string>& args) {
  const Arguments a(args, {"--attention"}, {"--run", "--beam", "--alpha", "--max-len", "--plugin"});
  if (a.positional().size() < 2) throw UsageError("expected a results file and at least one sentence");
  const ResultsReader file(a.positional()[0]);
  const std::vector<std::string> ids = file.run_ids();
  const std::string id = a.value("--run", ids.size() == 1 ? ids[0] : "");
  if (id.empty()) throw UsageError("the file holds " + std::to_string(ids.size()) + " runs; pick one with --run ID (attnlab compare lists them)");
  TrainedRun run;
  rebuild(run, file, id, a);
  DecodeOptions decode = run.plan.evaluation;
  decode.max_len = run.plan.max_len.value_or(run.vocabularies.num_steps);
  const SequenceData& data = run.vocabularies;
  for (std::size_t i = 1; i < a.positional().size(); ++i) {
    const std::string& sentence = a.positional()[i];
    if (invalid_utf8_at(sentence)) throw UsageError("the sentence is not valid UTF-8");
    const std::vector<int> src_ids = data.src_vocab.encode(split_tokens(preprocess_nmt(sentence)));
    const Translation t = run.decoder->translate(src_ids, decode);
    std::printf("%s => %s\n", sentence.c_str(), join_tokens(data.tgt_vocab.decode(t.tokens)).c_str());
    if (!a.flag("--attention")) continue;
    std::vector<std::string> rows, columns;  // output tokens then <eos>; source tokens then <eos>
    for (int token : t.tokens) rows.push_back(data.tgt_vocab.token(token));
    for (int token : src_ids) columns.push_back(data.src_vocab.token(token));
    rows.push_back("<eos>");
    columns.push_back("<eos>");
    print_attention(t, rows, columns);
  }
  return 0;
}

}  // namespace

Command translate_command() {
  return {"translate", "decode new sentences with a trained run of a results file",
          "usage: attnlab translate RESULTS.h5 [--run ID] [--beam K] [--alpha A] [--max-len N] [--attention]\n"
          "                         [--plugin PATH]... SENTENCE...\n"
          "  Loads the run's weights and vocabularies and decodes each sentence (greedy, or beam\n"
          "  search with --beam K and length penalty --alpha, default from the spec's evaluation:).\n"
          "  --attention also prints the cross-attention weights: one row per output token, one column per source token.",
          translate, true};
}

}  // namespace attn::cli
