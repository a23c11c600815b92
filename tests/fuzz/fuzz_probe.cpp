// libFuzzer target: `attnlab probe` with inputs a user types. The input is split at newlines
// into up to four sentences, given to a trained seq2seq and a trained Transformer
// (tests/fuzz/corpus/results/), whose attention maps are recorded and measured and written to
// a copy of the results file as probes. Any input must give maps or an error with a message
// (a token outside the vocabulary, invalid UTF-8), never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>

#include "../../framework/lab/cli/trained_run.hpp"
#include "attnlab/autodiff/var.hpp"
#include "attnlab/models/attention_metrics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string copy = "/dev/shm/attnlab-fuzz-probe-" + std::to_string(getpid()) + ".h5";
  std::vector<std::string> sentences;
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(lines, line) && sentences.size() < 4;) sentences.push_back(line);
  if (sentences.empty()) return 0;
  for (const char* model : {"seq2seq", "transformer"}) {
    const std::string source = std::string(ATTNLAB_FUZZ_CORPUS "/results/") + model + ".h5";
    std::filesystem::copy_file(source, copy, std::filesystem::copy_options::overwrite_existing);
    try {
      attn::cli::TrainedRun run;
      std::string id;
      {
        const attn::ResultsReader file(copy);
        id = file.run_ids().at(0);
        attn::cli::rebuild(run, file, id, attn::cli::Arguments({}, {}, {}), sentences);
      }
      std::vector<std::size_t> all(sentences.size());
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
      const attn::NoGrad no_grad;
      const auto looked = run.model->record_attention(all);
      (void)attn::attention_metrics(looked);
      (void)attn::add_probes(copy, id, looked);
    } catch (const std::exception&) {
    }
  }
  return 0;
}
