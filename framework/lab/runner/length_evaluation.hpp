// Evaluation at other lengths (spec key evaluation.lengths): a model trained at one length,
// read at others. For each length L the dataset is loaded again with its options at L
// (DatasetSource::at_length: a text's context, a task's source length; the same seed, so the
// same text or the same kind of strings), a model is built for that data as the run built its
// own, the trained parameters are copied into it, and it is evaluated on that data's
// evaluation split: perplexity at context 512 of a model trained at 128, exact match on strings
// of 12 digits of one trained on 3 to 8. The metrics are kept per length (RunRecord::
// length_metrics; compare's table by length, the report's curve).
// A parameter whose shape follows the length (a learned positional table of max_len rows) must
// cover every length: checked by validate_runs before anything trains.
#pragma once

#include <functional>
#include <string>

#include "lab/runner/run.hpp"

namespace attn {

// The run's model at `length`, with the parameters of `trained` copied in. Throws a SpecError
// at evaluation.lengths when it cannot be: a dataset whose inputs have no length, options the
// dataset or model refuses at that length, or a parameter of another shape there.
std::unique_ptr<RunParts> model_at_length(const RunPlan& plan, const RunParts& trained, const Registries& registries,
                                          const std::string& spec_dir, std::size_t length, const MemoryLimit& limit);

// The trained model's metrics at every length of plan.lengths, appended to `out` one length at
// a time (a failure keeps those before it), telling `stage` of each one. False when `stage`
// asked to stop (an interrupt) before a length.
bool evaluate_at_lengths(const RunPlan& plan, const RunParts& trained, const Registries& registries, const std::string& spec_dir,
                         const MemoryLimit& limit, const std::function<bool(const std::string&)>& stage, LengthMetrics& out);

// validate_runs' part: every length of the plan is refused now, at evaluation.lengths, if the
// run could not be evaluated there after training; so is a length given twice.
void check_lengths(const RunPlan& plan, const RunParts& parts, const Registries& registries, const std::string& spec_dir,
                   const MemoryLimit& limit, std::vector<Diagnostic>& out);

}  // namespace attn
