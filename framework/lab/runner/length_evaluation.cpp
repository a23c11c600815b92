#include "lab/runner/length_evaluation.hpp"

#include <algorithm>

#include "lab/runner/memory_plan.hpp"

namespace attn {
namespace {

std::string lengths_where(const RunPlan& plan) {
  const auto it = plan.values.find("evaluation.lengths");
  return it == plan.values.end() ? "" : it->second.where;
}

// The plan with the dataset's options at `length`.
RunPlan plan_at_length(const RunPlan& plan, const RunParts& trained, std::size_t length) {
  const std::optional<Options> options = trained.source->at_length(plan.dataset_options, length);
  if (!options)
    throw SpecError(lengths_where(plan), "dataset '" + plan.dataset + "' has no input length to vary (text_corpus and sequence_task have: "
                                         "a text's context, a task's source length); remove 'evaluation.lengths'");
  RunPlan at = plan;
  at.dataset_options = *options;
  return at;
}

// Copies every trained parameter into `into`, which must have the same names and shapes.
void copy_parameters(const ParamStore& from, ParamStore& into, const RunPlan& plan, std::size_t length) {
  for (const auto& [name, var] : from.items()) {
    if (!into.contains(name))
      throw SpecError(lengths_where(plan), "at length " + std::to_string(length) + " model '" + plan.model + "' has no parameter '" + name + "'");
    Var target = into.get(name);
    if (target.shape() != var.shape())
      throw SpecError(lengths_where(plan), "at length " + std::to_string(length) + " parameter '" + name + "' would be " + shape_str(target.shape()) +
                                               ", but the run trains " + shape_str(var.shape()) +
                                               ": its size follows the input length (a learned positional table has max_len rows); "
                                               "raise model.max_len to cover the longest length, or use a positional scheme "
                                               "without a table (sinusoidal, rope, alibi, t5_bias, none)");
    target.mutable_value() = var.value();
  }
}

}  // namespace

std::unique_ptr<RunParts> model_at_length(const RunPlan& plan, const RunParts& trained, const Registries& registries,
                                          const std::string& spec_dir, std::size_t length, const MemoryLimit& limit) {
  const RunPlan at = plan_at_length(plan, trained, length);
  std::unique_ptr<RunParts> parts;
  try {
    parts = build_run(at, registries, spec_dir, limit);
  } catch (const SpecError& e) {
    throw SpecError(lengths_where(plan), "at length " + std::to_string(length) + ": " + e.message());
  }
  copy_parameters(trained.params, parts->params, plan, length);
  return parts;
}

bool evaluate_at_lengths(const RunPlan& plan, const RunParts& trained, const Registries& registries, const std::string& spec_dir,
                         const MemoryLimit& limit, const std::function<bool(const std::string&)>& stage, LengthMetrics& out) {
  for (std::size_t i = 0; i < plan.lengths.size(); ++i) {
    const std::size_t length = plan.lengths[i];
    const std::string what = "evaluating at length " + std::to_string(length) + " (" + std::to_string(i + 1) + " of " +
                             std::to_string(plan.lengths.size()) + ")";
    if (stage && !stage(what)) return false;
    const auto parts = model_at_length(plan, trained, registries, spec_dir, length, limit);
    const NoGrad no_grad;
    out.emplace_back(length, parts->model->evaluate(true));
  }
  return true;
}

void check_lengths(const RunPlan& plan, const RunParts& parts, const Registries& registries, const std::string& spec_dir,
                   const MemoryLimit& limit, std::vector<Diagnostic>& out) {
  for (std::size_t i = 0; i < plan.lengths.size(); ++i)
    if (std::count(plan.lengths.begin(), plan.lengths.begin() + static_cast<std::ptrdiff_t>(i), plan.lengths[i])) {
      out.push_back({lengths_where(plan), "'evaluation.lengths' gives " + std::to_string(plan.lengths[i]) + " twice; give each length once"});
      return;
    }
  for (const std::size_t length : plan.lengths) {
    try {
      const auto at = model_at_length(plan, parts, registries, spec_dir, length, limit);
      const std::size_t before = out.size();
      check_evaluation_fits(plan, *at->model, at->data_bytes, at->params.kept_bytes(), limit, lengths_where(plan),
                            "at length " + std::to_string(length), out);
      if (out.size() > before) return;
    } catch (const SpecError& e) {
      out.push_back({e.where(), e.message()});
      return;
    }
  }
}

}  // namespace attn
