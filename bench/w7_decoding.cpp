// W7 (BENCHMARKS.md): decoding with W5's trained Transformer. 500 sentences (the sources of the
// first 500 training pairs) for num_steps 50:
//   greedy, beam: one sentence at a time, as `attnlab translate` and d2l's predict_seq2seq do
//     (beam 4: the hypotheses are one batch of 4); the twin is bench/w7_decoding.py;
//   greedy_batched: all 500 in one batch, as attnlab's evaluation decodes;
//   beam_batched: beam 4 of all 500 in one batch of 2000 rows (SequenceModel::beam_search).
// Every sentence runs all 50 steps (<eos> does not end it: the cost per step is measured at
// every length up to 50); its translation is the tokens before the first <eos>. Timed with the
// key/value cache (the default) and without it (model.kv_cache=false, the decoder re-run over
// the whole prefix); their outputs must agree: the same tokens, log-probabilities within 1e-6
// (relative), or the benchmark fails.
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "trained_transformer.hpp"
#include "workloads.hpp"

namespace attn::bench {
namespace {

// The sources of the first n training pairs, as token ids without <eos>.
std::vector<std::vector<int>> first_sources(const SequenceData& data, std::size_t n) {
  const SequenceSplit& train = data.train;
  std::vector<std::vector<int>> sources;
  for (std::size_t i = 0; i < std::min(n, train.size()); ++i) {
    const int* row = train.src.data() + i * data.num_steps;
    std::vector<int> ids(row, row + train.src_lens(i));
    if (!ids.empty() && ids.back() == Vocab::eos) ids.pop_back();
    sources.push_back(std::move(ids));
  }
  return sources;
}

struct Decoded {
  double seconds = 0;
  std::vector<Translation> out;
};

// One at a time (translate), or all in one batch (greedy over the padded sources).
Decoded decode_all(SequenceModel& model, const std::vector<std::vector<int>>& sources, const DecodeOptions& options,
                   bool batched) {
  Decoded d;
  const SequenceData& data = model.data();
  const VectorBatch src = token_sources(sources, data.num_steps);
  const auto start = std::chrono::steady_clock::now();
  if (batched)
    d.out = options.beam > 1 ? model.beam_search(src, options) : model.greedy(src, options.max_len, options.stop_at_eos);
  else
    for (const std::vector<int>& s : sources) d.out.push_back(model.translate(s, options));
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return d;
}

// The cached and uncached decodings agree, or the benchmark is void: the same tokens, and log P
// (a sum of `steps` float32 log-probabilities, each from products of other shapes, so summed
// in another order by OpenBLAS) within 1e-6 per step. Returns the largest difference per step.
double check_equal(const Decoded& cached, const Decoded& uncached, const std::string& what, std::size_t steps) {
  double largest = 0;
  for (std::size_t i = 0; i < cached.out.size(); ++i) {
    const Translation &a = cached.out[i], &b = uncached.out[i];
    const double per_step = std::abs(a.log_prob - b.log_prob) / static_cast<double>(steps);
    largest = std::max(largest, per_step);
    if (a.tokens != b.tokens || per_step > 1e-6)
      throw std::runtime_error(what + ": the cached and uncached decodings of sentence " + std::to_string(i) +
                               " differ (log P " + std::to_string(a.log_prob) + " vs " + std::to_string(b.log_prob) + ")");
  }
  return largest;
}

}  // namespace

std::string run_w7(const Args& args) {
  const TrainedTransformer t = train_transformer(args.seed, 200);
  const std::unique_ptr<RunParts> uncached = rebuild_transformer(t, args.seed, {"model.kv_cache=false"});
  auto& uncached_model = dynamic_cast<SequenceModel&>(*uncached->model);
  const std::vector<std::vector<int>> sources = first_sources(t.data(), 500);
  std::ostringstream json;
  json.precision(6);
  json << "{\"workload\": \"W7\", \"threads\": " << args.threads << ", \"sentences\": " << sources.size()
       << ", \"num_steps\": 50, \"epochs\": " << t.record.history.size();
  for (const std::string name : {"greedy", "beam", "greedy_batched", "beam_batched"}) {
    DecodeOptions options;
    options.max_len = 50, options.beam = name.rfind("beam", 0) == 0 ? 4 : 1, options.stop_at_eos = false;
    const bool batched = name.find("_batched") != std::string::npos;
    std::fprintf(stderr, "%s: cached ...\n", name.c_str());
    const Decoded cached = decode_all(t.model(), sources, options, batched);
    std::fprintf(stderr, "%s: uncached ...\n", name.c_str());
    const Decoded slow = decode_all(uncached_model, sources, options, batched);
    const double difference = check_equal(cached, slow, name, options.max_len);
    double length = 0;
    for (const Translation& tr : cached.out) length += static_cast<double>(tr.tokens.size());
    json << ", \"" << name << "_s\": " << cached.seconds << ", \"" << name << "_uncached_s\": " << slow.seconds << ", \""
         << name << "_ms_per_sentence\": " << 1e3 * cached.seconds / static_cast<double>(sources.size()) << ", \"" << name
         << "_cache_speedup\": " << slow.seconds / cached.seconds << ", \"" << name
         << "_largest_log_p_difference_per_step\": " << difference << ", \"mean_" << name << "_length\": "
         << length / static_cast<double>(sources.size());
  }
  return json.str() + "}";
}

}  // namespace attn::bench
