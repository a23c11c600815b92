// attnlab COMMAND [ARGS]: the command-line front door.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "attnlab/suggest.hpp"
#include "attnlab/tensor.hpp"
#include "command.hpp"

namespace {

using attn::cli::Command;

void print_help(const std::vector<Command>& commands) {
  std::printf("attnlab: learn attention mechanisms by running experiments\n\n"
              "usage: attnlab COMMAND [ARGS]    (attnlab COMMAND --help for its options)\n\ncommands:\n");
  for (const Command& c : commands) std::printf("  %-10s %s\n", c.name.c_str(), c.summary.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  attn::keep_tensor_memory_in_heap();
  const std::vector<Command> commands = {attn::cli::run_command(), attn::cli::validate_command(),
                                         attn::cli::compare_command(), attn::cli::translate_command(),
                                         attn::cli::inspect_command(), attn::cli::plot_command(),
                                         attn::cli::report_command(), attn::cli::plugins_command()};
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_help(commands);
    return args.empty() ? 2 : 0;
  }
  std::vector<std::string> names;
  for (const Command& c : commands) names.push_back(c.name);
  for (const Command& c : commands) {
    if (c.name != args[0]) continue;
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (!rest.empty() && (rest[0] == "--help" || rest[0] == "-h")) {
      std::printf("%s\n", c.usage.c_str());
      return 0;
    }
    try {
      return c.run(rest);
    } catch (const attn::cli::UsageError& e) {
      std::fprintf(stderr, "attnlab %s: %s\n%s\n", c.name.c_str(), e.message.c_str(), c.usage.c_str());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attnlab %s: %s\n", c.name.c_str(), e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "attnlab: %s\nRun 'attnlab --help' for the list.\n",
               attn::unknown_name_message("command", args[0], names).c_str());
  return 2;
}
