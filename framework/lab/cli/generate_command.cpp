// `attnlab generate RESULTS.h5 --run ID --prompt TEXT [--steps N] [--temperature T] [--top-k K]
// [--seed S] [--attention]`: text written by a trained language model after a prompt
// (text_generator.hpp), and with --attention where each written token's position looked.
#include <cmath>
#include <cstdio>
#include <numeric>

#include "attnlab/data/text.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/models/text_generator.hpp"
#include "trained_run.hpp"

namespace attn::cli {
namespace {

constexpr int max_steps = 100000;
constexpr double max_attention_bytes = 1 << 30;  // what --attention may keep

// The prompt's tokens (text_tokens: characters for a character model, else words).
std::vector<int> prompt_ids(const std::string& text, const Vocab& vocab) {
  std::vector<std::string> tokens;
  try {
    tokens = text_tokens(text, vocab);
  } catch (const UsageError& e) {
    throw UsageError(std::string("--prompt: ") + e.what());
  }
  if (tokens.empty()) throw UsageError("--prompt: give at least one token to start from");
  try {
    return vocab.encode(tokens);
  } catch (const std::out_of_range& e) {
    throw UsageError(std::string("--prompt: ") + e.what() + " (the run's text had no such token)");
  }
}

SamplingOptions sampling(const Arguments& a, std::size_t vocab) {
  SamplingOptions o;
  o.steps = static_cast<std::size_t>(a.integer("--steps", 100, 1, max_steps));
  const double t = a.number("--temperature", 1.0);
  if (!(t >= 1e-6 && t <= 100.0)) throw UsageError("--temperature must be in [1e-06, 100] (near 0: the likeliest token every time), got " + a.value("--temperature", ""));
  o.temperature = static_cast<float>(t);
  o.top_k = static_cast<std::size_t>(a.integer("--top-k", 0, 0, static_cast<int>(vocab)));
  o.attention = a.flag("--attention");
  return o;
}

// Each written token and the three earlier positions its position read most (last layer, the
// heads' mean).
void print_attention(const Generation& g, const std::vector<int>& all, const Vocab& vocab, std::size_t prompt) {
  const Tensor& w = g.attention;  // [layer, head, steps, total]
  const std::size_t layer = w.shape()[0] - 1, heads = w.shape()[1];
  std::printf("\nwhere each written token's position looked (last layer, mean of %zu heads):\n", heads);
  for (std::size_t s = 0; s < g.tokens.size(); ++s) {
    const std::size_t at = prompt + s - 1;  // the position that wrote token s
    std::vector<double> row(at + 1, 0.0);
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t k = 0; k <= at; ++k) row[k] += w(layer, h, s, k) / static_cast<double>(heads);
    std::vector<std::size_t> order(row.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return row[a] > row[b]; });
    std::printf("  '%s':", vocab.token(g.tokens[s]).c_str());
    for (std::size_t i = 0; i < std::min<std::size_t>(3, order.size()); ++i)
      std::printf(" '%s'@%zu %.2f", vocab.token(all[order[i]]).c_str(), order[i], row[order[i]]);
    std::printf("\n");
  }
}

int generate(const std::vector<std::string>& args) {
  const Arguments a(args, {"--attention"}, {"--run", "--prompt", "--steps", "--temperature", "--top-k", "--seed", "--plugin"});
  if (a.positional().size() != 1) throw UsageError("expected one results file (and the prompt as --prompt TEXT)");
  if (!a.has("--prompt")) throw UsageError("--prompt TEXT is needed: the text to continue");
  const ResultsReader file(a.positional()[0]);
  const std::string id = chosen_run(file, a);
  Registries registries;
  RunPlan plan;
  const auto parts = rebuilt_run(file, id, a, registries, plan);  // the data again, for its vocabulary
  auto* generator = dynamic_cast<TextGenerator*>(parts->model.get());
  if (!generator) throw UsageError("model '" + plan.model + "' does not write text (language_model does)");
  const Vocab& vocab = dynamic_cast<Classifier&>(*parts->model).data().vocab;
  const std::vector<int> prompt = prompt_ids(a.value("--prompt", ""), vocab);
  const SamplingOptions options = sampling(a, vocab.size());
  const std::size_t read = prompt.size() + options.steps - 1;  // positions read (the last token written is not)
  if (const std::size_t limit = generator->max_positions(); limit && read > limit)
    throw UsageError("the model's positions stop at " + std::to_string(limit) + " (its positional table, option max_len): a prompt of " +
                     std::to_string(prompt.size()) + " tokens leaves " + (prompt.size() <= limit ? std::to_string(limit + 1 - prompt.size()) : "no") +
                     " steps; ask for fewer, or train with a scheme without a table (sinusoidal, rope, alibi, t5_bias, none)");
  if (const std::size_t trained = dynamic_cast<Classifier&>(*parts->model).data().max_len; read > trained)
    std::fprintf(stderr, "note: the model was trained on windows of %zu tokens; this text reaches position %zu, further than any it "
                         "saw: it writes on all the same (how well a model reads past its training length: evaluation.lengths, "
                         "docs/concepts/length-generalization.md)\n",
                 trained, read - 1);
  if (options.attention) {  // every written token's weights over every position before it, in every layer and head
    double heads = 0;  // over every layer
    for (const HeadSite& site : parts->model->head_gates().sites()) heads += static_cast<double>(site.heads);
    const double bytes = sizeof(float) * heads * static_cast<double>(options.steps) * static_cast<double>(read + 1);
    if (bytes > max_attention_bytes)
      throw UsageError("--attention keeps the weights of every written token over every position before it: " + memory_text(bytes) + " for " +
                       std::to_string(options.steps) + " steps, more than " + memory_text(max_attention_bytes) + "; ask for fewer --steps with --attention");
  }
  Rng rng(static_cast<std::uint64_t>(a.integer("--seed", 1, 0, 1 << 30)));
  const Generation g = generator->generate(prompt, options, rng);
  std::vector<int> all = prompt;
  all.insert(all.end(), g.tokens.begin(), g.tokens.end());
  const bool characters = plan.dataset == "text_corpus" && plan.dataset_options.get<std::string>("tokens", "char") == "char";
  std::printf("%s\n", tokens_text(all, vocab, characters).c_str());
  if (g.cache_keys.size() == 3)
    std::fprintf(stderr, "key/value cache: %.1f KB (%zu positions x %zu key/value heads of %zu, keys and values, every layer)\n",
                 static_cast<double>(g.cache_bytes) / 1024.0, g.cache_keys[1], g.cache_keys[0], g.cache_keys[2]);
  if (a.flag("--attention")) print_attention(g, all, vocab, prompt.size());
  return 0;
}

}  // namespace

Command generate_command() {
  return {"generate", "write text with a trained language model after a prompt",
          "usage: attnlab generate RESULTS.h5 [--run ID] --prompt TEXT [--steps N] [--temperature T]\n"
          "                        [--top-k K] [--seed S] [--attention] [--plugin PATH]...\n"
          "  Rebuilds the run's model and writes N tokens (default 100, at most 100000) after TEXT,\n"
          "  each drawn from the model's next-token distribution, softened or sharpened by T\n"
          "  (default 1; near 0: the likeliest token every time) among the K likeliest (default all),\n"
          "  with the random stream of seed S (default 1). Each block keeps the keys and values of\n"
          "  the earlier positions, so a step costs one position's work.\n"
          "  --attention also prints, for each written token, the three earlier positions its\n"
          "  position read most (last layer, the heads' mean).",
          generate, true};
}

}  // namespace attn::cli
