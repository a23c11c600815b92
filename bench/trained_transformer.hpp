// The model W5 trains (bench/w5-transformer.yaml), trained by the same code as `attnlab run`
// and rebuilt with its final weights, for W5's translations and W7's decoding.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attnlab/models/sequence_model.hpp"
#include "lab/runner/run.hpp"

namespace attn::bench {

struct TrainedTransformer {
  RunRecord record;                 // history (epoch seconds, losses) and final weights
  std::unique_ptr<RunParts> parts;  // the model rebuilt with those weights, and its data
  SequenceModel& model() const { return dynamic_cast<SequenceModel&>(*parts->model); }
  const SequenceData& data() const { return std::get<SequenceData>(parts->data); }
};

// Trains W5's model for `epochs` epochs with `seed` (progress on stderr); `overrides` are
// --set lines for the rebuilt model (e.g. model.kv_cache=false).
TrainedTransformer train_transformer(std::uint64_t seed, std::size_t epochs);
// The same weights in a model built with `overrides` (e.g. model.kv_cache=false).
std::unique_ptr<RunParts> rebuild_transformer(const TrainedTransformer& trained, std::uint64_t seed,
                                              const std::vector<std::string>& overrides);
// Source token ids of an English sentence (d2l's preprocessing), and a translation as text.
std::vector<int> source_ids(const SequenceData& data, const std::string& sentence);
std::string target_text(const SequenceData& data, const std::vector<int>& ids);

}  // namespace attn::bench
