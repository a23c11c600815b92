// `attnlab merge OUT.h5 PART.h5...`: the parts of a sharded sweep into one results file.
#include <cstdio>

#include "arguments.hpp"
#include "lab/results/merge.hpp"
#include "lab/results/results_format.hpp"

namespace attn::cli {

Command merge_command() {
  return {"merge", "join the results files of a sweep's parts (run --shard K/N) into one",
          "usage: attnlab merge OUT.h5 PART.h5... [--allow-missing] [--force]\n"
          "  Writes the file one machine would have written for the whole sweep: every run as its\n"
          "  part holds it, the sweep's header, and the comparison table over all runs. Refuses\n"
          "  (nothing written) parts of another spec, attnlab version or --set, a run in two parts,\n"
          "  damaged parts, and runs in no part (listed).\n"
          "  --allow-missing   merge although some runs of the sweep are in no part\n"
          "  --force           replace an existing OUT.h5\n"
          "  exit codes: 0 merged; 1 a part could not be read; 2 refused (the reason on one line)",
          [](const std::vector<std::string>& args) {
            const Arguments a(args, {"--allow-missing", "--force"}, {});
            if (a.positional().size() < 2) throw UsageError("expected the output file and at least one part");
            const std::vector<std::string> parts(a.positional().begin() + 1, a.positional().end());
            const MergeResult r = merge_results(a.positional()[0], parts, {a.flag("--allow-missing"), a.flag("--force")});
            std::printf("merged %zu of %zu runs from %zu part%s into %s\n", r.runs, r.planned, parts.size(),
                        parts.size() == 1 ? "" : "s", a.positional()[0].c_str());
            if (!r.missing.empty()) std::printf("missing (--allow-missing): %zu runs, e.g. %s\n", r.missing.size(), r.missing[0].c_str());
            if (!r.unfinished.empty())
              std::printf("not finished: %zu runs, e.g. %s (complete their parts with attnlab run --resume, then merge again)\n",
                          r.unfinished.size(), r.unfinished[0].c_str());
            return 0;
          }, true};
}

}  // namespace attn::cli
