// `attnlab translate RESULTS.h5 --run ID "go ."`: decode new input with a trained run.
#include <cstdio>

#include "arguments.hpp"
#include "attnlab/data/text.hpp"
#include "lab/results/results_format.hpp"
#include "lab/spec/spec.hpp"
#include "attnlab/plugin_loader.hpp"
#include "lab/builtins.hpp"

namespace attn::cli {
namespace {

int translate(const std::vector<std::string>& args) {
  const Arguments a(args, {"--attention"}, {"--run", "--beam", "--alpha", "--max-len", "--plugin"});
  if (a.positional().size() < 2) throw UsageError("expected a results file and at least one sentence");
  const std::string path = a.positional()[0];
  const ResultsReader file(path);
  const std::vector<std::string> ids = file.run_ids();
  std::string id = a.value("--run", ids.size() == 1 ? ids[0] : "");
  if (id.empty()) throw UsageError("the file holds " + std::to_string(ids.size()) + " runs; pick one with --run ID (attnlab compare lists them)");
  const std::optional<Vocabularies> vocab = file.vocabularies(id);
  if (!vocab) throw UsageError("run '" + id + "' is not a sequence model (no vocabulary to translate with)");

  // Rebuild the model from the run's resolved config, with the saved vocabularies.
  const SpecResult spec = read_spec_text(file.config(id), path + ":/runs/" + id, {});
  if (!spec.spec) throw FileError("the run's stored config does not read back: " + spec.diagnostics[0].str());
  const RunPlan& plan = spec.spec->runs.at(0);
  Registries registries;
  register_builtins(registries);
  for (const std::string& p : spec.spec->plugins) load_plugin(p, registries);
  for (const std::string& p : a.all("--plugin")) load_plugin(p, registries);
  SequenceData data;
  data.src_vocab = Vocab(vocab->source);
  data.tgt_vocab = Vocab(vocab->target);
  data.num_steps = vocab->num_steps;
  data.train = data.valid = make_split({}, {}, data.num_steps);
  const Data d = data;
  ParamStore store;
  Rng rng(0);
  auto model = registries.models.create(plan.model, ModelArgs{registries, ParamScope(store, rng), plan.model_options, d});
  for (const auto& [name, var] : store.items()) var.mutable_value() = file.param(id, name);
  auto* seq = dynamic_cast<SequenceModel*>(model.get());
  if (!seq) throw UsageError("model '" + plan.model + "' does not translate");
  DecodeOptions decode = plan.evaluation;
  if (!plan.evaluation_max_len_given) decode.max_len = data.num_steps;
  decode.beam = static_cast<std::size_t>(a.integer("--beam", static_cast<int>(decode.beam), 1, 1000));
  decode.alpha = a.number("--alpha", decode.alpha);
  decode.max_len = static_cast<std::size_t>(a.integer("--max-len", static_cast<int>(decode.max_len), 1, 100000));
  for (std::size_t i = 1; i < a.positional().size(); ++i) {
    const std::string& sentence = a.positional()[i];
    if (invalid_utf8_at(sentence)) throw UsageError("the sentence is not valid UTF-8");
    std::vector<int> src_ids = data.src_vocab.encode(split_tokens(preprocess_nmt(sentence)));
    const Translation t = seq->translate(src_ids, decode);
    std::printf("%s => %s\n", sentence.c_str(), join_tokens(data.tgt_vocab.decode(t.tokens)).c_str());
    if (!a.flag("--attention")) continue;
    // Rows: the decoder's outputs (then <eos>); columns: the source tokens (then <eos>).
    std::vector<std::string> rows, columns;
    for (int id : t.tokens) rows.push_back(data.tgt_vocab.token(id));
    rows.push_back("<eos>");
    for (int id : src_ids) columns.push_back(data.src_vocab.token(id));
    columns.push_back("<eos>");
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
