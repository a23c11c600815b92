// `attnlab predict RESULTS.h5 --run ID --example N | --node N | INPUT...`: a trained classifier's
// answer for an image, a sentence or a node (translate's counterpart for one label per input),
// with its attention: <cls>'s (or the node's) in the last layer, the heads' mean. For a language
// model, the likeliest tokens after the input's last one, and that position's attention.
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "attnlab/data/text.hpp"
#include "attnlab/models/classifier.hpp"
#include "trained_run.hpp"

namespace attn::cli {
namespace {

// "ankle boot 0.93, sneaker 0.05, sandal 0.01": the three likeliest classes.
std::string likeliest(const std::vector<float>& p, const std::vector<std::string>& classes) {
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  std::string out;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, order.size()); ++i) {
    char prob[16];
    std::snprintf(prob, sizeof prob, " %.2f", p[order[i]]);
    out += (i ? ", " : "") + classes[order[i]] + prob;
  }
  return out;
}

// Row `query` of the last layer's map, the heads' mean: what the answer was read from.
std::vector<double> last_layer_row(const AttentionMap& m, std::size_t query) {
  const std::size_t layers = m.weights.shape()[0], heads = m.weights.shape()[1], keys = m.weights.shape()[3];
  std::vector<double> row(keys, 0.0);
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t k = 0; k < keys; ++k) row[k] += m.weights(layers - 1, h, query, k) / static_cast<double>(heads);
  return row;
}

// The attention of one row over its keys: a grid of numbers for a patch grid, else "key weight" pairs (largest first).
void print_attention(const AttentionMap& m, std::size_t query, const VectorData& data) {
  const std::vector<double> row = last_layer_row(m, query);
  std::printf("  %s attention of %s, last layer, mean of %zu heads:\n", m.name.c_str(), m.queries[query].c_str(), m.weights.shape()[1]);
  const bool grid = data.kind == InputKind::image && m.keys.size() > 1 && m.keys[0] == "<cls>";
  if (grid) {
    const std::size_t side = static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(m.keys.size() - 1))));
    std::printf("    <cls> %.2f; the patches, row by row:\n", row[0]);
    for (std::size_t r = 0; r < side; ++r) {
      std::printf("   ");
      for (std::size_t c = 0; c < side; ++c) std::printf(" %5.2f", row[1 + r * side + c]);
      std::printf("\n");
    }
    return;
  }
  std::vector<std::size_t> order(row.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return row[a] > row[b]; });
  std::printf("   ");
  for (std::size_t k : order)
    if (row[k] > 0.0 && m.keys[k] != "<pad>") std::printf(" %s %.2f", m.keys[k].c_str(), row[k]);
  std::printf("\n");
}

struct Asked {
  VectorSplit split;                  // where the inputs are
  std::vector<std::size_t> rows;      // which sets
  std::vector<std::string> names;     // how to name each
  std::vector<std::size_t> lengths;   // typed inputs: their tokens
};

// A model whose labels are each token's next one (language_model on text_corpus).
bool next_token_model(const VectorData& data) { return data.kind == InputKind::tokens && data.train.labels.dimension() == 2; }

// "'e' 0.39, ' ' 0.22, 'o' 0.18": the three likeliest next tokens, quoted (a space is one).
std::string likeliest_tokens(const std::vector<float>& p, const std::vector<std::string>& classes) {
  std::vector<std::string> quoted;
  for (const std::string& c : classes) quoted.push_back("'" + c + "'");
  return likeliest(p, quoted);
}

// The inputs: --example N of the evaluation split, --node N of a graph, or typed token strings.
Asked asked_inputs(const Arguments& a, const VectorData& data) {
  Asked out;
  out.split = data.valid.size() ? data.valid : data.train;
  const std::vector<std::string> typed(a.positional().begin() + 1, a.positional().end());
  if (data.kind == InputKind::graph) {
    if (a.all("--node").empty() || !typed.empty() || a.has("--example"))
      throw UsageError("the run classifies the nodes of a graph: name them with --node N");
    out.rows = {0};
    return out;
  }
  if (a.has("--node")) throw UsageError("--node is for graph runs; this run classifies whole inputs (--example N, or typed tokens)");
  const int split_size = static_cast<int>(out.split.size());
  for (const std::string& e : a.all("--example")) {
    const Arguments one({"--example", e}, {}, {"--example"});
    const int row = one.integer("--example", 0, 0, split_size - 1);
    out.rows.push_back(static_cast<std::size_t>(row));
    out.names.push_back((data.valid.size() ? "validation example " : "training example ") + e);
  }
  if (typed.empty()) {
    if (out.rows.empty()) throw UsageError("name inputs: --example N (of the evaluation split), or type token inputs");
    return out;
  }
  if (data.kind != InputKind::tokens || !out.rows.empty())
    throw UsageError(std::string("typed inputs are for token runs; this run reads ") + to_string(data.kind) + ": use --example N");
  std::vector<std::vector<int>> ids;
  for (const std::string& text : typed) {
    require_typed_text(text);
    std::vector<std::string> tokens = next_token_model(data) ? text_tokens(text, data.vocab) : split_tokens(text);
    if (!next_token_model(data) && tokens.size() == 1 && tokens[0].size() > 1) {  // "3141" as digits, as the tasks write them
      std::vector<std::string> chars;
      for (char c : tokens[0]) chars.emplace_back(1, c);
      tokens = chars;
    }
    if (tokens.empty() || tokens.size() > data.max_len)
      throw UsageError("\"" + text + "\": give 1 to " + std::to_string(data.max_len) + " tokens (the run's inputs are at most that long)");
    try {
      ids.push_back(data.vocab.encode(tokens));
    } catch (const std::out_of_range& e) {
      throw UsageError("\"" + text + "\": " + e.what());
    }
    out.names.push_back("\"" + text + "\"");
  }
  out.split = token_split(data.vocab, ids, data.max_len, std::vector<int>(ids.size(), -1));
  for (const std::vector<int>& one : ids) out.lengths.push_back(one.size());
  out.rows.resize(ids.size());
  std::iota(out.rows.begin(), out.rows.end(), std::size_t{0});
  return out;
}

int predict(const std::vector<std::string>& args) {
  const Arguments a(args, {"--attention"}, {"--run", "--example", "--node", "--plugin"});
  if (a.positional().empty()) throw UsageError("expected a results file");
  const ResultsReader file(a.positional()[0]);
  const std::string id = chosen_run(file, a);
  Registries registries;
  RunPlan plan;
  const auto parts = rebuilt_run(file, id, a, registries, plan);  // the data again, as the run read them
  auto* classifier = dynamic_cast<Classifier*>(parts->model.get());
  if (!classifier) throw UsageError("model '" + plan.model + "' does not classify (for sequence models: attnlab translate)");
  const VectorData& data = classifier->data();
  const Asked asked = asked_inputs(a, data);
  const NoGrad no_grad;
  const std::vector<Classifier::Prediction> predictions = classifier->predict(asked.split, asked.rows);
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const Classifier::Prediction& p = predictions[i];
    if (data.kind == InputKind::graph) {
      for (const std::string& node_text : a.all("--node")) {
        const Arguments one({"--node", node_text}, {}, {"--node"});
        const auto node = static_cast<std::size_t>(one.integer("--node", 0, 0, static_cast<int>(p.labels.size()) - 1));
        const int gold = data.valid.labels(0, node) >= 0 ? data.valid.labels(0, node) : data.train.labels(0, node);
        std::printf("node %zu: %s  (class %s%s)\n", node, likeliest(p.probabilities[node], data.classes).c_str(),
                    data.classes[static_cast<std::size_t>(gold)].c_str(), data.train.labels(0, node) >= 0 ? ", labelled for training" : "");
        if (a.flag("--attention"))
          for (const AttentionMap& m : p.attention.maps) print_attention(m, node, data);
      }
      continue;
    }
    if (next_token_model(data)) {  // the token after the input's last one
      const std::size_t last = i < asked.lengths.size() ? asked.lengths[i] - 1 : p.probabilities.size() - 1;
      std::printf("%s: next token %s\n", asked.names[i].c_str(), likeliest_tokens(p.probabilities[last], data.classes).c_str());
      if (a.flag("--attention") && !p.attention.maps.empty()) print_attention(p.attention.maps.back(), last, data);
      continue;
    }
    const std::string gold = p.attention.target == "?" ? "" : "  (label: " + p.attention.target + ")";
    std::printf("%s: %s%s\n", asked.names[i].c_str(), likeliest(p.probabilities[0], data.classes).c_str(), gold.c_str());
    if (a.flag("--attention") && !p.attention.maps.empty()) print_attention(p.attention.maps.back(), 0, data);
  }
  return 0;
}

}  // namespace

Command predict_command() {
  return {"predict", "classify inputs with a trained classifier of a results file (an image, a sentence, a node)",
          "usage: attnlab predict RESULTS.h5 [--run ID] [--attention] [--plugin PATH]...\n"
          "                       (--example N... | --node N... | INPUT...)\n"
          "  Rebuilds the run's model and data and prints the three likeliest classes of each input:\n"
          "  --example N   example N of the evaluation split (an image of Fashion-MNIST's test set, a string)\n"
          "  --node N      node N of a graph run\n"
          "  INPUT         typed tokens for a token run (\"3 1 4\" or \"314\"); for a language model, text:\n"
          "                the three likeliest tokens after its last one\n"
          "  --attention also prints what the answer was read from: <cls>'s attention in the last layer\n"
          "  (the heads' mean; on the patch grid for an image), the node's over its neighbours, or the\n"
          "  last token's over the text before it.",
          predict, true};
}

}  // namespace attn::cli
