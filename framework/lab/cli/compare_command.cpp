// `attnlab compare RESULTS.h5 [--format text|csv|markdown]`: the comparison table again.
#include <cstdio>

#include "arguments.hpp"
#include "lab/results/results_format.hpp"

namespace attn::cli {

Command compare_command() {
  return {"compare", "print the comparison table of a results file (text, CSV or Markdown)",
          "usage: attnlab compare RESULTS.h5 [--format text|csv|markdown]\n"
          "  One row per sweep point: each metric as mean ± std over seeds, and wall time.",
          [](const std::vector<std::string>& args) {
            const Arguments a(args, {}, {"--format"});
            if (a.positional().size() != 1) throw UsageError("expected exactly one results file");
            const std::string f = a.value("--format", "text");
            if (f != "text" && f != "csv" && f != "markdown")
              throw UsageError("--format must be text, csv or markdown, got '" + f + "'");
            const TableFormat format = f == "csv" ? TableFormat::csv : f == "markdown" ? TableFormat::markdown : TableFormat::text;
            std::printf("%s", format_summary(summarize(ResultsReader(a.positional()[0]).runs()), format).c_str());
            return 0;
          }, true};
}

}  // namespace attn::cli
