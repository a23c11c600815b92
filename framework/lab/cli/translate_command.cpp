// `attnlab translate RESULTS.h5 --run ID "go ."`: decode new input with a trained run.
#include <cstdio>

#include "attnlab/data/text.hpp"
#include "attnlab/options.hpp"
#include "trained_run.hpp"

namespace attn::cli {
namespace {

// The maps --attention prints as tokens against tokens: the decoder's attention to the source.
bool shown_as_cross(const std::string& name) { return name != "decoder_self" && name != "encoder_self" && name != "decoder_state"; }

// What --attention prints of a map [layer, head, steps, n_k]: layer L of --layer (default 0) and
// heads [first, last) of --head H (default 0), or all of them for --head mean.
struct ShownHeads {
  std::size_t layer, first, last;
  bool mean() const { return last - first > 1; }
};

ShownHeads shown_heads(const Arguments& a, const Tensor& w) {
  const int layers = static_cast<int>(w.shape()[0]), heads = static_cast<int>(w.shape()[1]);
  const auto layer = static_cast<std::size_t>(a.integer("--layer", 0, 0, layers - 1));
  const std::string given = a.value("--head", "0");
  if (given == "mean") return {layer, 0, w.shape()[1]};
  const auto head = parse_option<int>(given);
  if (!head || *head < 0 || *head >= heads)
    throw UsageError("--head must be a head of the map, 0 to " + std::to_string(heads - 1) + ", or mean (the heads' mean), got '" +
                     given + "'");
  return {layer, static_cast<std::size_t>(*head), static_cast<std::size_t>(*head) + 1};
}

// The cross-attention of one translation: one row per output token, one column per source token.
void print_attention(const Translation& t, const std::vector<std::string>& rows, const std::vector<std::string>& columns,
                     const Arguments& a) {
  if (t.attention.empty()) std::printf("  (this model has no attention to show)\n");
  for (const auto& [name, w] : t.attention) {
    if (name == "decoder_state") {
      std::printf("\n  this decoder attends to one key, its own state (its mode forms the keys from the query): it never looks at the source\n");
      continue;
    }
    if (!shown_as_cross(name)) continue;  // self-attention: shown by `attnlab plot` (token x token)
    const ShownHeads shown = shown_heads(a, w);
    const std::size_t heads = w.shape()[1];
    const std::string which = shown.mean() ? "the mean of its " + std::to_string(heads) + " heads"
                                           : "head " + std::to_string(shown.first) + " of " + std::to_string(heads);
    std::printf("\n  %s attention, layer %zu of %zu, %s (rows: output tokens, columns: source tokens)\n", name.c_str(), shown.layer,
                w.shape()[0], which.c_str());
    std::printf("  %8s", "");
    for (const auto& c : columns) std::printf(" %s", utf8_fit(c, 6).c_str());
    std::printf("\n");
    for (std::size_t q = 0; q < w.shape()[2] && q < rows.size(); ++q) {
      std::printf("  %s", utf8_fit(rows[q], 8).c_str());
      for (std::size_t k = 0; k < columns.size() && k < w.shape()[3]; ++k) {
        double weight = 0;
        for (std::size_t h = shown.first; h < shown.last; ++h) weight += w(shown.layer, h, q, k);
        std::printf(" %6.2f", weight / static_cast<double>(shown.last - shown.first));
      }
      std::printf("\n");
    }
  }
}

int translate(const std::vector<std::string>& args) {
  const Arguments a(args, {"--attention"}, {"--run", "--beam", "--alpha", "--max-len", "--plugin", "--layer", "--head"});
  if (a.positional().size() < 2) throw UsageError("expected a results file and at least one sentence");
  if ((a.has("--layer") || a.has("--head")) && !a.flag("--attention"))
    throw UsageError("--layer and --head choose the attention --attention prints: give --attention too");
  const ResultsReader file(a.positional()[0]);
  const std::string id = chosen_run(file, a);
  TrainedRun run;
  rebuild(run, file, id, a);
  DecodeOptions decode = run.plan.evaluation;
  decode.max_len = run.plan.max_len.value_or(run.vocabularies.num_steps);
  const SequenceData& data = run.vocabularies;
  for (std::size_t i = 1; i < a.positional().size(); ++i) {
    const std::string& sentence = a.positional()[i];
    std::vector<int> src_ids = source_ids(data, sentence);
    if (const std::size_t room = data.num_steps - 1; src_ids.size() > room) {  // (a source is its tokens and <eos>)
      std::fprintf(stderr, "attnlab translate: \"%s\" has %zu tokens; the run's sources hold at most %zu and <eos> "
                           "(num_steps %zu): its first %zu were translated\n",
                   sentence.c_str(), src_ids.size(), room, data.num_steps, room);
      src_ids.resize(room);
    }
    const Translation t = run.decoder->translate(src_ids, decode);
    if (a.flag("--attention") && (a.has("--layer") || a.has("--head"))) {  // checked before anything is printed
      std::size_t cross = 0;
      for (const auto& [name, w] : t.attention)
        if (shown_as_cross(name)) (void)shown_heads(a, w), ++cross;
      if (cross == 0) throw UsageError("this model has no attention to the source to show: --layer and --head choose nothing");
    }
    std::printf("%s => %s\n", sentence.c_str(), join_tokens(data.tgt_vocab.decode(t.tokens)).c_str());
    if (t.cache_bytes > 0)
      std::fprintf(stderr, "key/value cache: %.1f KB (the decoder's self-attention and its keys and values of the source, every "
                           "layer and beam)\n", static_cast<double>(t.cache_bytes) / 1024.0);
    if (!a.flag("--attention")) continue;
    std::vector<std::string> rows, columns;  // output tokens then <eos>; source tokens then <eos>
    for (int token : t.tokens) rows.push_back(data.tgt_vocab.token(token));
    for (int token : src_ids) columns.push_back(data.src_vocab.token(token));
    rows.push_back("<eos>");
    columns.push_back("<eos>");
    print_attention(t, rows, columns, a);
  }
  return 0;
}

}  // namespace

Command translate_command() {
  return {"translate", "decode new sentences with a trained run of a results file",
          "usage: attnlab translate RESULTS.h5 [--run ID] [--beam K] [--alpha A] [--max-len N]\n"
          "                         [--attention [--layer L] [--head H|mean]] [--plugin PATH]... SENTENCE...\n"
          "  Loads the run's weights and vocabularies and decodes each sentence (greedy, or beam\n"
          "  search with --beam K and length penalty --alpha, default from the spec's evaluation:).\n"
          "  --attention also prints the cross-attention weights: one row per output token, one\n"
          "  column per source token, of layer L (default 0) and head H (default 0; mean: the heads'\n"
          "  mean).",
          translate, true};
}

}  // namespace attn::cli
