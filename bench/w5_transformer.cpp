// W5 (BENCHMARKS.md): d2l's Transformer trained on 600 fra-eng pairs (bench/w5-transformer.yaml)
// by the same code as `attnlab run`. Epoch times cover training only. The loss is reported as
// per-token cross-entropy (final_train_loss) and in d2l's printed measure (d2l_loss = that /
// num_steps); d2l's four sentences are translated greedily, as d2l's predict_seq2seq does.
#include <cstdio>
#include <sstream>

#include "attnlab/models/metrics.hpp"
#include "timing.hpp"
#include "trained_transformer.hpp"
#include "workloads.hpp"

namespace attn::bench {

std::string run_w5(const Args& args) {
  const TrainedTransformer t = train_transformer(args.seed, 200);
  const SequenceData& data = t.data();
  std::vector<double> seconds;
  for (const EpochRecord& e : t.record.history) seconds.push_back(e.seconds);
  const double loss = t.record.history.back().train_loss;

  const std::pair<const char*, const char*> d2l_sentences[] = {
      {"go .", "va !"}, {"i lost .", "j'ai perdu ."}, {"he's calm .", "il est calme ."}, {"i'm home .", "je suis chez moi ."}};
  std::ostringstream translations, scores;
  int exact = 0;
  DecodeOptions greedy;
  greedy.max_len = data.num_steps;
  for (const auto& [english, french] : d2l_sentences) {
    const std::string out = target_text(data, t.model().translate(source_ids(data, english), greedy).tokens);
    const double b = bleu(split_tokens(out), split_tokens(french));
    exact += out == french;
    translations << (translations.tellp() > 0 ? ", " : "") << '"' << english << "\": \"" << out << '"';
    scores << (scores.tellp() > 0 ? ", " : "") << '"' << english << "\": " << b;
  }
  std::ostringstream json;
  json.precision(6);
  json << "{\"workload\": \"W5\", \"threads\": " << args.threads << ", \"epochs\": " << t.record.history.size()
       << ", \"median_epoch_s\": " << median(seconds) << ", \"final_train_loss\": " << loss
       << ", \"d2l_loss\": " << loss / static_cast<double>(data.num_steps) << ", \"translations\": {" << translations.str()
       << "}, \"bleu\": {" << scores.str() << "}, \"exact\": " << exact << "}";
  return json.str();
}

}  // namespace attn::bench
