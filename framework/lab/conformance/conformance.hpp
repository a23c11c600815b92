// The conformance suite: what every plugin of each kind must do, checked on small random inputs
// (`attnlab check PLUGIN.so`, and the test suite for every built-in and example plugin).
//
// scoring      scores [B, n_q, n_k]; softmax of them masks keys exactly; each batch item scored
//              alone scores the same; a declared dot product holds; gradients; queries and keys
//              of different sizes are taken or refused at construction, saying "size"
// normalizer   masked keys 0, rows summing to 1 as its traits declare; batch independence; a
//              declared masked softmax holds; negative scores refused when it takes none; gradients
// positional   through an attention layer: masked keys 0; a relative scheme's weights unmoved when
//              every position shifts; a table refuses positions past it; positions asked alone
//              (a key/value cache) as among the others; gradients
// cell         through a 2-layer bidirectional RNN with padding: shapes, 0 past each sequence,
//              each sequence alone as in the batch; gradients
// mode         with and without projections: shapes; only the caller's valid keys weighted; rows
//              summing to 1; gradients
#pragma once

#include <string>
#include <vector>

#include "attnlab/registries.hpp"
#include "lab/conformance/checker.hpp"

namespace attn {

enum class PluginKind { scoring, cell, mode, normalizer, positional };
const char* kind_name(PluginKind kind);  // "scoring function", ...

// One plugin checked with one option set; `fd_step` 0 is the suite's step.
ConformanceRun check_scoring(const Registries& r, const std::string& name, const Options& options, float fd_step);
ConformanceRun check_normalizer(const Registries& r, const std::string& name, const Options& options, float fd_step);
ConformanceRun check_positional(const Registries& r, const std::string& name, const Options& options, float fd_step);
ConformanceRun check_cell(const Registries& r, const std::string& name, const Options& options, float fd_step);
ConformanceRun check_mode(const Registries& r, const std::string& name, const Options& options, float fd_step);

// The plugin checked with its defaults, then with each option set it declares
// (ConformanceHints), then with each of `extra`.
std::vector<ConformanceRun> check_plugin(const Registries& r, PluginKind kind, const std::string& name,
                                         const std::vector<ConformanceHints::OptionSet>& extra = {});

// A run as a person reads it: the plugin and options, then each failure (check, input, what a
// correct plugin gives, what this one gave), or "passed N checks".
std::string conformance_report(const ConformanceRun& run);

}  // namespace attn
