// How much memory one run may use, and the checks that refuse a run that would not fit — at the
// spec key responsible, before its data, its parameters or its activations are allocated — so
// that an absurd size is a spec error in a second, not std::bad_alloc (or the kernel's OOM
// killer) after minutes (footprint.hpp says who estimates what).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnlab/footprint.hpp"
#include "attnlab/models/model.hpp"
#include "lab/spec/spec.hpp"

namespace attn {

struct MemoryLimit {
  double bytes = 0;    // what one run may use; 0: no limit
  std::string origin;  // how it was set, for messages: "--max-memory 2G", "the available 22.1 GB / 2 runs at once"
};

// --max-memory's value: a number of bytes with an optional unit K, M, G or T (powers of 1024;
// "B" after it allowed): "512M", "2G", "1.5GB". Nothing for anything else.
std::optional<double> parse_memory_size(const std::string& text);

// The default limit: the memory available now (/proc/meminfo's MemAvailable) divided by the
// runs that go at once.
MemoryLimit default_memory_limit(std::size_t runs_at_once);

// Before the data is loaded: the dataset's own estimate (DatasetSource::footprint). Throws
// SpecError at the option responsible for the largest part. Returns the data's bytes.
double check_data_fits(const RunPlan& plan, const DatasetSource& source, const MemoryLimit& limit);

// What the model may keep (parameters, tables) once the data takes `data_bytes`; 0: no limit.
double model_allowance(const MemoryLimit& limit, double data_bytes);

// A model part refused by ParamStore's limit, as a spec error at the option whose value is one
// of the refused shape's sizes (model.d_model: 65536 for a [65536, 65536] weight), else at
// model.name.
SpecError memory_limit_at_key(const RunPlan& plan, const MemoryLimitError& e, const MemoryLimit& limit);

// After the model is built: the activations of a training batch (the graph of the example with
// the longest input, measured under a TensorMemoryWatch, times the batch, doubled for the gradients), evaluation (256 examples at a time)
// and `attnlab translate`'s decoding (beam x max_len steps), on top of the data and what the
// model keeps. A problem goes to `out` at the key responsible.
void check_training_fits(const RunPlan& plan, Model& model, double data_bytes, double kept_bytes, const MemoryLimit& limit,
                         std::vector<Diagnostic>& out);

// Evaluation of a built model (at another input length, for evaluation.lengths): the longest
// example's forward pass measured (no graph kept) times 256 examples at a time, on top of the data and
// the parameters. A problem goes to `out` at `where`, its message after `what` ("at length 4096").
void check_evaluation_fits(const RunPlan& plan, Model& model, double data_bytes, double kept_bytes, const MemoryLimit& limit,
                           const std::string& where, const std::string& what, std::vector<Diagnostic>& out);

}  // namespace attn
