// attnlab COMMAND [ARGS]: the command-line front door.
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/build_info.hpp"
#include "lab/results/hdf5_file.hpp"
#include "lab/runner/chunk_scheduler.hpp"
#include "lab/results/results_format.hpp"
#include "attnlab/suggest.hpp"
#include "attnlab/tensor.hpp"
#include "attnlab/data/text.hpp"
#include "attnlab/options.hpp"
#include "command.hpp"
#include "lab/process/crash_report.hpp"

namespace {

using attn::cli::Command;

// What the command printed must have reached its reader: standard output that cannot be
// written (a full disk, an I/O error) turns success into exit 1, said in words. A pipe whose
// reader stopped early (`| head`) is not an error: the reader wanted no more.
int with_output_written(const Command& c, int code) {
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return code;
  const int error = errno;
  struct stat st {};
  if (error == EPIPE || (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))) return code;
  std::fprintf(stderr, "attnlab %s: could not write to standard output: %s\n", c.name.c_str(),
               error == ENOSPC ? "no space left on the device" : error ? std::strerror(error) : "a write error");
  return code == 0 ? 1 : code;
}

// An error message as printed: at most 2000 bytes (a 100 KB --run value is not echoed whole), and
// text: a control character in a value it quotes is shown as '?', never sent to the terminal.
std::string shown(const char* message) { return attn::utf8_shortened(attn::without_control_characters(message, "\n\t"), 2000); }

// What follows a refusal: the command's synopsis and where its options are described, not the
// whole usage text (the one line that says what was wrong stays easy to see).
std::string usage_hint(const Command& c) {
  return c.usage.substr(0, c.usage.find('\n')) + "  (attnlab " + c.name + " --help for the options)";
}

int run_command(const Command& c, const std::vector<std::string>& rest) {
  try {
    return with_output_written(c, c.run(rest));
  } catch (const attn::UsageError& e) {
    std::fprintf(stderr, "attnlab %s: %s\n%s\n", c.name.c_str(), shown(e.what()).c_str(), usage_hint(c).c_str());
    return 2;
  } catch (const attn::SpecError& e) {  // what the user wrote (a spec, --set, a token): exit 2, as for run
    std::fprintf(stderr, "attnlab %s: %s\n", c.name.c_str(), shown(e.what()).c_str());
    return 2;
  } catch (const attn::PluginError& e) {  // a --plugin that does not load
    std::fprintf(stderr, "attnlab %s: %s\n", c.name.c_str(), shown(e.what()).c_str());
    return 2;
  } catch (const attn::RegistryError& e) {
    std::fprintf(stderr, "attnlab %s: %s\n", c.name.c_str(), shown(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "attnlab %s: ran out of memory: the machine could not give what this command asked for; "
                         "free memory or give it smaller inputs\n", c.name.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab %s: %s\n", c.name.c_str(), shown(e.what()).c_str());
    return 1;
  } catch (...) {  // (every call into a plugin turns such a throw into a PluginFault naming it)
    std::fprintf(stderr, "attnlab %s: an unknown error (something that is not a std::exception was thrown)\n", c.name.c_str());
    return 1;
  }
}

// How long a reading command may take before it is stopped: ATTNLAB_READ_TIMEOUT seconds,
// default 600. A value that is not a positive number is an error, never a silent default.
double read_timeout() {
  const char* text = std::getenv("ATTNLAB_READ_TIMEOUT");
  if (!text) return 600.0;
  const std::optional<double> parsed = attn::parse_option<double>(text);
  const double seconds = parsed.value_or(0.0);
  if (!(seconds > 0))
    throw std::invalid_argument(std::string("ATTNLAB_READ_TIMEOUT='") + text +
                                "' is not a number of seconds; expected a positive number such as 600");
  return seconds;
}

// A second line of defence around libhdf5 (the first is that attnlab reads only HDF5's
// checksummed format, hdf5_file.cpp): commands that read results files run in a child process.
// A child that crashed inside libhdf5 (on a crafted file) is reported as a damaged file, one
// that crashed elsewhere as attnlab's bug with its signal, and one still reading after
// read_timeout() seconds as a damaged file or a file system that does not answer; all exit 1.
// The child's exit code when it crashed inside libhdf5 (see on_crash).
constexpr int crashed_in_hdf5 = 97;

// In the child: a crash inside libhdf5 is the file's damage (exit crashed_in_hdf5); any other
// crash is attnlab's own, and keeps its signal for the parent to report.
void on_crash(int signal) {
  if (attn::inside_hdf5_library()) _exit(crashed_in_hdf5);
  if (attn::in_plugin_code()) attn::report_crash(signal);  // the plugin's, named by the child itself
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

int run_isolated(const Command& c, const std::vector<std::string>& rest) {
  double limit = 0;
  try {
    limit = read_timeout();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab %s: %s\n", c.name.c_str(), shown(e.what()).c_str());
    return 2;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return run_command(c, rest);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the command's work ends with the process the user started (kill PID)
    if (getppid() != parent) _exit(1);
    for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, on_crash);
    const int code = run_command(c, rest);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool stalled = false;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      stalled = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!stalled && WIFEXITED(status) && WEXITSTATUS(status) != crashed_in_hdf5) return WEXITSTATUS(status);
  std::string file;  // the results file the command read: the first argument that is an existing path
  for (const std::string& a : rest)
    if (!a.empty() && a[0] != '-' && access(a.c_str(), F_OK) == 0) { file = a; break; }
  if (stalled)
    std::fprintf(stderr,
                 "attnlab %s: %s: reading took longer than %g s and was stopped: a damaged file, or a file system "
                 "that does not answer (ATTNLAB_READ_TIMEOUT sets the limit)\n",
                 c.name.c_str(), file.c_str(), limit);
  else if (WIFEXITED(status))
    std::fprintf(stderr, "attnlab %s: %s: the HDF5 library crashed reading this file: the file is damaged\n", c.name.c_str(),
                 file.c_str());
  else
    std::fprintf(stderr,
                 "attnlab %s: attnlab crashed (%s) while working on %s: this is a bug in attnlab, not a problem of your "
                 "file; please report it with the command and the file\n",
                 c.name.c_str(), WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "unknown", file.c_str());
  return 1;
}

void print_help(const std::vector<Command>& commands) {
  std::printf("attnlab: learn attention mechanisms by running experiments\n\n"
              "usage: attnlab COMMAND [ARGS]    (attnlab COMMAND --help for its options)\n"
              "       attnlab --version          (the version and what this build's floats depend on)\n\ncommands:\n");
  for (const Command& c : commands) std::printf("  %-10s %s\n", c.name.c_str(), c.summary.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  attn::keep_tensor_memory_in_heap();
  attn::lab::schedule_chunks_on_tbb();  // one run's work on every core of its arena
  // A closed pipe (`attnlab run ... | head`) makes writes fail instead of killing attnlab
  // mid-sweep: the runs go on and the results file is completed.
  std::signal(SIGPIPE, SIG_IGN);
  const std::vector<Command> commands = {attn::cli::run_command(), attn::cli::validate_command(),
                                         attn::cli::compare_command(), attn::cli::translate_command(), attn::cli::predict_command(), attn::cli::generate_command(), attn::cli::ablate_command(),
                                         attn::cli::probe_command(), attn::cli::inspect_command(), attn::cli::plot_command(),
                                         attn::cli::report_command(), attn::cli::merge_command(), attn::cli::slurm_command(), attn::cli::plugins_command(),
                                         attn::cli::new_plugin_command(), attn::cli::check_command(),
                                         attn::cli::keys_command()};
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--version") {
    std::printf("attnlab %s\n%s\n", attn::attnlab_version, attn::build_signature().c_str());
    return 0;
  }
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
    attn::report_crashes(c.name);  // (a reading command's child replaces them by on_crash)
    return c.reads_results ? run_isolated(c, rest) : run_command(c, rest);
  }
  std::fprintf(stderr, "attnlab: %s\nRun 'attnlab --help' for the list.\n",
               attn::unknown_name_message("command", args[0], names).c_str());
  return 2;
}
