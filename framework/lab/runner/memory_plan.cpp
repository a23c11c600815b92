#include "lab/runner/memory_plan.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <unordered_set>

#include "attnlab/errors.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/models/sequence_model.hpp"
#include "attnlab/tensor_memory.hpp"

namespace attn {
namespace {

// The parts, largest first, as "what: bytes; what: bytes".
std::string listed(Footprint parts) {
  std::sort(parts.begin(), parts.end(), [](const MemoryUse& a, const MemoryUse& b) { return a.bytes > b.bytes; });
  std::string out;
  for (const MemoryUse& p : parts)
    if (p.bytes > 0) out += (out.empty() ? "" : "; ") + p.what + ": " + memory_text(p.bytes);
  return out;
}

double total(const Footprint& parts) {
  double sum = 0;
  for (const MemoryUse& p : parts) sum += p.bytes;
  return sum;
}

// The refusal: every part, the limit and how it was set, and what to change.
SpecError too_big(const Footprint& parts, const MemoryLimit& limit, const std::string& where, const std::string& what_to_lower) {
  return SpecError(where, "this run needs about " + memory_text(total(parts)) + " (" + listed(parts) + "), more than the " +
                              memory_text(limit.bytes) + " it may use (" + limit.origin + "); lower " + what_to_lower +
                              ", or raise the limit with --max-memory");
}

// The bytes of the values a graph's inner nodes hold (leaves are parameters or data), each once.
double graph_bytes(const Var& root) {
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> stack{root.node().get()};
  double bytes = 0;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!n || !seen.insert(n).second) continue;
    if (!n->parents.empty()) bytes += static_cast<double>(n->value.size()) * sizeof(float);
    for (const NodePtr& p : n->parents) stack.push_back(p.get());
  }
  return bytes;
}

// The option of `options` whose value is `size`, as "'model.d_model' (65536)" with its place.
std::optional<std::pair<std::string, std::string>> option_of_size(const Options& options, const std::string& section,
                                                                  std::size_t size) {
  for (const std::string& key : options.keys()) {
    const auto value = parse_option<long>(options.text(key));
    if (value && *value >= 0 && static_cast<std::size_t>(*value) == size)
      return std::make_pair(options.where(key), "'" + section + "." + key + "' (" + std::to_string(size) + ")");
  }
  return std::nullopt;
}

// What one example may take while it is measured, when `copies` of it share `allowance`: its
// share, or up to 64 MB when that is more (measured, a small example gives the plan's message
// with its size; only a larger one is stopped at its share).
double measuring_ceiling(double allowance, std::size_t copies) {
  return std::max(allowance / static_cast<double>(std::max<std::size_t>(copies, 1)), std::min(allowance, 64.0 * 1024 * 1024));
}

// The training example with the longest input (a set of vectors' length, for a model that reads
// sets of vectors): the one the plan measures, so an utterance of 60 s among ones of 1 s is
// planned by the longest. Example 0 when it is as long as the data's longest.
std::size_t longest_example(const Model& model) {
  const auto* classifier = dynamic_cast<const Classifier*>(&model);
  if (!classifier || !classifier->data().train.sets || classifier->data().train.size() == 0) return 0;
  const VectorSets& sets = *classifier->data().train.sets;
  const auto length = [&](std::size_t row) { return static_cast<std::size_t>(sets.batch({row}).lens(0)); };
  if (length(0) >= classifier->data().max_len) return 0;
  std::size_t best = 0;
  for (std::size_t row = 1, longest = length(0); row < std::min<std::size_t>(sets.size(), 100000); ++row)
    if (const std::size_t n = length(row); n > longest) longest = n, best = row;
  return best;
}

// The bytes the longest example takes, measured while a TensorMemoryWatch keeps it under
// `ceiling` (std::bad_alloc past it): the graph a training step keeps for the gradients, or,
// `for_evaluation`, the peak of its forward pass without one.
double example_bytes(const RunPlan& plan, Model& model, double ceiling, bool for_evaluation) {
  Rng rng(plan.seed);
  const std::size_t example = longest_example(model);
  const TensorMemoryWatch watch(ceiling);
  if (!for_evaluation) return graph_bytes(model.loss({example}, TrainingStep{rng}).loss);
  const NoGrad no_grad;
  (void)model.loss({example}, TrainingStep{rng});
  return watch.peak();
}

// One training example's activations, measured by building its graph while a TensorMemoryWatch
// keeps it under `ceiling`: the most one example may take for the run to fit (the memory left
// over the examples that are in memory at once), so a huge example is refused when it passes
// that, never after it took the machine. Nothing when a plugin misbehaves (its run fails when it
// runs) or when the example does not fit or cannot be built: then the problem is in `out`.
std::optional<double> one_example_bytes(const RunPlan& plan, Model& model, double ceiling, const std::string& at_once,
                                        const MemoryLimit& limit, std::vector<Diagnostic>& out) {
  const std::string where = plan.values.count("training.batch_size") ? plan.where("training.batch_size") : plan.where("model.name");
  try {
    return example_bytes(plan, model, ceiling, false);
  } catch (const std::bad_alloc&) {  // the watch's ceiling, or the machine's memory
    out.push_back({where, "one training example's activations take more than " + memory_text(std::max(ceiling, 0.0)) + ", and " + at_once +
                              " would not fit in the " + memory_text(limit.bytes) + " this run may use (" + limit.origin +
                              ") with its data and parameters; lower 'training.batch_size' or the inputs' or the model's sizes, "
                              "or raise the limit with --max-memory"});
  } catch (const PluginFault&) {
  } catch (const std::exception& e) {
    out.push_back({plan.where("model.name"), std::string("one training example cannot be computed (") + e.what() +
                                                 "): make the inputs shorter or the model smaller"});
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_memory_size(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(used);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b') && unit.size() <= 2) unit.pop_back();
  static const std::string units = "KMGT";
  double scale = 1;
  if (unit.size() == 1) {
    const auto at = units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
    if (at == std::string::npos) return std::nullopt;
    scale = std::pow(1024.0, static_cast<double>(at + 1));
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  if (!std::isfinite(value) || value <= 0 || text.find_first_of("xXpP") != std::string::npos) return std::nullopt;
  return value * scale;
}

MemoryLimit default_memory_limit(std::size_t runs_at_once) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kb = 0;
  for (std::string unit; meminfo >> key >> kb >> unit;)
    if (key == "MemAvailable:") break;
  if (key != "MemAvailable:" || kb <= 0) return {};
  const double available = kb * 1024;
  runs_at_once = std::max<std::size_t>(runs_at_once, 1);
  return {available / static_cast<double>(runs_at_once),
          "the memory available now, " + memory_text(available) +
              (runs_at_once > 1 ? ", divided by the " + std::to_string(runs_at_once) + " runs that go at once" : "")};
}

double check_data_fits(const RunPlan& plan, const DatasetSource& source, const MemoryLimit& limit) {
  const Footprint parts = source.footprint();
  if (limit.bytes <= 0 || total(parts) <= limit.bytes) return total(parts);
  const MemoryUse& largest = *std::max_element(parts.begin(), parts.end(),
                                               [](const MemoryUse& a, const MemoryUse& b) { return a.bytes < b.bytes; });
  throw too_big(parts, limit, largest.where.empty() ? plan.where("dataset.name") : largest.where,
                "the dataset's sizes (" + largest.what + ")");
}

double model_allowance(const MemoryLimit& limit, double data_bytes) {
  return limit.bytes <= 0 ? 0 : std::max(limit.bytes - data_bytes, 1.0);
}

SpecError memory_limit_at_key(const RunPlan& plan, const MemoryLimitError& e, const MemoryLimit& limit) {
  const std::string limit_origin = " (" + limit.origin + ")";
  std::vector<std::size_t> sizes = e.shape();
  std::sort(sizes.rbegin(), sizes.rend());
  for (std::size_t size : sizes) {
    auto found = option_of_size(plan.model_options, "model", size);
    if (!found) found = option_of_size(plan.dataset_options, "dataset", size);
    if (found) return SpecError(found->first, e.what() + limit_origin + "; lower " + found->second + ", or raise the limit with --max-memory");
  }
  return SpecError(plan.where("model.name"), e.what() + limit_origin + "; make the model smaller, or raise the limit with --max-memory");
}

void check_training_fits(const RunPlan& plan, Model& model, double data_bytes, double kept_bytes, const MemoryLimit& limit,
                         std::vector<Diagnostic>& out) {
  if (limit.bytes <= 0 || model.train_size() == 0) return;
  const std::size_t batch = std::min(plan.training.batch_size, model.train_size());
  const std::optional<double> measured = one_example_bytes(plan, model, measuring_ceiling(limit.bytes - data_bytes - kept_bytes, 2 * batch),
                                                           "a training batch of " + std::to_string(batch) + " (twice, for the gradients)", limit, out);
  if (!measured) return;
  const double example = *measured;  // one example's activations (or the whole set's, for a model that trains on it at once)
  Footprint parts = {{"the data", data_bytes, ""}, {"parameters with gradients and Adam's moments, and tables", kept_bytes, ""}};
  parts.push_back({"a training batch of " + std::to_string(batch) + " (one example's activations, " + memory_text(example) +
                       ", twice for the gradients)",
                   2 * example * static_cast<double>(batch), plan.where("training.batch_size")});
  if (auto* seq = dynamic_cast<SequenceModel*>(&model)) {
    const double steps = static_cast<double>(std::max<std::size_t>(seq->data().num_steps, 1));
    const double beam = static_cast<double>(plan.evaluation.beam), len = static_cast<double>(plan.max_len.value_or(seq->data().num_steps));
    const std::size_t evaluated = seq->data().valid.size() ? seq->data().valid.size() : seq->data().train.size();
    const std::size_t chunk = std::min<std::size_t>(256, evaluated);
    parts.push_back({"evaluation, " + std::to_string(chunk) + " examples at a time", example * static_cast<double>(chunk), ""});
    parts.push_back({"translate's beam search, " + std::to_string(plan.evaluation.beam) + " x " + std::to_string(static_cast<std::size_t>(len)) +
                         " steps", example / steps * beam * len,
                     plan.where(plan.values.count("evaluation.beam") ? "evaluation.beam" : "evaluation.max_len")});
  }
  for (const MemoryUse& part : model.evaluation_footprint()) parts.push_back(part);
  if (total(parts) <= limit.bytes) return;
  // At the written key of the largest part, else at the model's name.
  const MemoryUse& largest = *std::max_element(parts.begin(), parts.end(),
                                               [](const MemoryUse& a, const MemoryUse& b) { return a.bytes < b.bytes; });
  const bool batch_part = largest.where == plan.where("training.batch_size") && !largest.where.empty();
  const std::string where = largest.where.empty() ? plan.where("model.name") : largest.where;
  out.push_back({where, too_big(parts, limit, "", batch_part       ? "'training.batch_size'"
                                                 : largest.where.empty() ? "the model's or the data's sizes"
                                                                         : "'evaluation.beam' or 'evaluation.max_len'")
                            .message()});
}

void check_evaluation_fits(const RunPlan& plan, Model& model, double data_bytes, double kept_bytes, const MemoryLimit& limit,
                           const std::string& where, const std::string& what, std::vector<Diagnostic>& out) {
  if (limit.bytes <= 0 || model.train_size() == 0) return;
  const std::size_t chunk = std::min<std::size_t>(256, model.train_size());
  const double ceiling = measuring_ceiling(limit.bytes - data_bytes - kept_bytes, chunk);
  double example = 0;
  try {
    example = example_bytes(plan, model, ceiling, true);
  } catch (const std::bad_alloc&) {  // passed the ceiling: the chunk would not fit
    out.push_back({where, what + ": one example's activations in evaluation take more than " + memory_text(std::max(ceiling, 0.0)) + ", and " +
                              std::to_string(chunk) + " examples at a time (as evaluation reads them) would not fit in the " +
                              memory_text(limit.bytes) + " this run may use (" + limit.origin + ") with its data and parameters; "
                              "lower it, or raise the limit with --max-memory"});
    return;
  } catch (const PluginFault&) {
    return;
  }
  const Footprint parts = {{"the data", data_bytes, ""},
                           {"parameters and tables", kept_bytes, ""},
                           {"evaluation, " + std::to_string(chunk) + " examples at a time (one example's activations, " + memory_text(example) + ")",
                            example * static_cast<double>(chunk), ""}};
  if (total(parts) > limit.bytes) out.push_back({where, what + ": " + too_big(parts, limit, "", "it").message()});
}

}  // namespace attn
