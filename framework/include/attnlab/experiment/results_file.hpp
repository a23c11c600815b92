// The results file of an experiment (layout: docs/hdf5-layout.md). One writer: the runner
// writes each finished run as soon as it ends and closes the file again, so an interrupted
// sweep leaves a valid file holding every finished run.
#pragma once

#include <string>
#include <vector>

#include "attnlab/experiment/run.hpp"
#include "attnlab/experiment/summary.hpp"

namespace attn {

constexpr const char* results_format = "attnlab-results";
constexpr const char* attnlab_version = "0.1.0";

class ResultsFile {
 public:
  // create: a new file with the spec; otherwise open an existing one for --resume.
  static void create(const std::string& path, const Spec& spec);
  static void write_run(const std::string& path, const RunPlan& plan, const RunResult& result);
  static void write_summary(const std::string& path, const Summary& summary);

  // Reading (compare, translate, inspect): throws a clear error when the file is not an
  // attnlab results file.
  static void check(const std::string& path);
  static std::string spec_text(const std::string& path);
  static std::vector<std::string> run_ids(const std::string& path);
  static std::vector<RunSummaryInput> runs(const std::string& path);
};

// "encoder.rnn.layer0.W_ih" -> "encoder/rnn/layer0/W_ih"
std::string param_path(const std::string& dotted);

}  // namespace attn
