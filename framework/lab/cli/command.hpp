// The attnlab command line: one Command per subcommand (one file each), dispatched by main.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attnlab/errors.hpp"

namespace attn::cli {

struct Command {
  std::string name;
  std::string summary;  // one line, shown by `attnlab --help`
  std::string usage;    // shown by `attnlab <name> --help`
  std::function<int(const std::vector<std::string>& args)> run;  // returns the exit code
  // Reads a results file that may be damaged or crafted: run in a child process, so that a
  // crash or a stall inside the HDF5 library becomes a clear error (see main.cpp).
  bool reads_results = false;
};

Command plugins_command();
Command keys_command();
Command run_command();
Command validate_command();
Command compare_command();
Command translate_command();
Command probe_command();
Command predict_command();
Command generate_command();
Command ablate_command();
Command inspect_command();
Command plot_command();
Command report_command();
Command merge_command();
Command slurm_command();
Command new_plugin_command();
Command check_command();

}  // namespace attn::cli
