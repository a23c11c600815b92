#include "trained_transformer.hpp"

#include <cstdio>
#include <stdexcept>

#include "attnlab/data/text.hpp"
#include "training_steps.hpp"
#include "workloads.hpp"

namespace attn::bench {
namespace {

RunPlan w5_plan(std::uint64_t seed, std::size_t epochs, const std::vector<std::string>& overrides) {
  std::vector<std::string> set = {"seed=" + std::to_string(seed), "training.epochs=" + std::to_string(epochs),
                                  "training.eval_every=" + std::to_string(epochs)};
  set.insert(set.end(), overrides.begin(), overrides.end());
  return bench_plan("w5-transformer.yaml", set);
}

}  // namespace

TrainedTransformer train_transformer(std::uint64_t seed, std::size_t epochs) {
  const Registries& registries = bench_registries();
  const RunPlan plan = w5_plan(seed, epochs, {});
  RunObserver observer;
  observer.epoch = [&](const EpochRecord& e) {
    if (e.epoch % 20 == 0) std::fprintf(stderr, "epoch %zu/%zu: loss %.4f, %.3f s\n", e.epoch, epochs, e.train_loss, e.seconds);
    return true;
  };
  TrainedTransformer t;
  t.record = execute_run(plan, registries, bench_dir, observer);
  if (t.record.status != RunStatus::finished) throw std::runtime_error("the W5 run ended " + std::string(to_string(t.record.status)) + ": " + t.record.error);
  t.parts = rebuild_transformer(t, seed, {});
  return t;
}

std::unique_ptr<RunParts> rebuild_transformer(const TrainedTransformer& trained, std::uint64_t seed,
                                              const std::vector<std::string>& overrides) {
  const Registries& registries = bench_registries();
  const RunPlan plan = w5_plan(seed, trained.record.history.size(), overrides);
  std::unique_ptr<RunParts> parts = build_run(plan, registries, bench_dir);
  for (const auto& [name, value] : trained.record.params) parts->params.get(name).mutable_value() = value;
  return parts;
}

std::vector<int> source_ids(const SequenceData& data, const std::string& sentence) {
  return data.src_vocab.encode(split_tokens(preprocess_nmt(sentence)));
}

std::string target_text(const SequenceData& data, const std::vector<int>& ids) {
  return join_tokens(data.tgt_vocab.decode(ids));
}

}  // namespace attn::bench
