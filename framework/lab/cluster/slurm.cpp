#include "lab/cluster/slurm.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "attnlab/errors.hpp"
#include "attnlab/file_kind.hpp"
#include "lab/files/absolute_path.hpp"
#include "lab/files/whole_file.hpp"
#include "lab/results/results_format.hpp"
#include "lab/runner/runner.hpp"
#include "lab/spec/spec.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// One word for sh, whatever it holds: '...' with each ' written '\''.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The attnlab binary running now (tasks run the same one).
std::string this_program() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw UsageError("cannot find attnlab's own path (/proc/self/exe): " + ec.message());
  return self.string();
}

std::size_t task_count(std::size_t runs, const SlurmOptions& o) {
  if (o.tasks && o.runs_per_task) throw UsageError("--tasks and --runs-per-task exclude each other: give one");
  const std::size_t n = o.tasks ? o.tasks : (runs + std::max<std::size_t>(o.runs_per_task, 1) - 1) / std::max<std::size_t>(o.runs_per_task, 1);
  if (n > runs)
    throw UsageError("--tasks " + std::to_string(n) + ": the sweep has only " + std::to_string(runs) + " runs; use at most " +
                     std::to_string(runs) + " tasks");
  return n;
}

struct Layout {
  std::string dir, output, spec, program;
  std::size_t tasks = 0;
  std::string part(std::size_t k) const { return dir + "/part-" + std::to_string(k) + ".h5"; }
};

// Why a part was made from something else than the sweep now planned ("" when it was not): the
// spec edited since, another attnlab, or a run of another configuration (other --set values).
std::string stale_because(const ResultsReader& part, const ResultsHeader& header, const SweepOutline& sweep) {
  if (header.spec != sweep.spec_text) return "the spec was changed after it ran";
  if (header.attnlab_version != attnlab_version) return "it was made by attnlab " + header.attnlab_version;
  for (const RunInfo& r : part.runs()) {
    const auto id = std::find(sweep.run_ids.begin(), sweep.run_ids.end(), r.id);
    if (id == sweep.run_ids.end()) return "it holds run '" + r.id + "', which this sweep does not plan";
    if (!same_run_configuration(part.config(r.id), sweep.configs[static_cast<std::size_t>(id - sweep.run_ids.begin())]))
      return "its run '" + r.id + "' was made with another configuration (other --set values?)";
  }
  return "";
}

// The tasks whose part is missing or holds a run that has not finished. A part made from
// something else than this sweep is refused, naming why: its runs would count as done.
std::vector<std::size_t> unfinished_tasks(const Layout& l, const SweepOutline& sweep) {
  const std::vector<std::string>& run_ids = sweep.run_ids;
  std::vector<std::size_t> todo;
  for (std::size_t k = 1; k <= l.tasks; ++k) {
    if (!fs::exists(l.part(k))) {
      todo.push_back(k);
      continue;
    }
    const ResultsReader part(l.part(k));
    const ResultsHeader header = part.header();
    const std::string shard = std::to_string(k) + "/" + std::to_string(l.tasks);
    if (header.shard != shard)
      throw UsageError(l.part(k) + " holds shard " + header.shard + ", not " + shard +
                       ": these parts were made with another number of tasks; keep that number or use another --output-dir");
    if (const std::string why = stale_because(part, header, sweep); !why.empty())
      throw UsageError(l.part(k) + " is stale: " + why + ". Its runs are not this sweep's: remove the parts (rm " +
                       quoted(l.dir) + "/part-*.h5) to run them again, or choose another --output-dir");
    const auto [first, last] = shard_range(run_ids.size(), Shard{k, l.tasks});
    const std::vector<RunInfo> runs = part.runs();
    const auto finished = [&](const std::string& id) {
      return std::any_of(runs.begin(), runs.end(), [&](const RunInfo& r) { return r.id == id && succeeded(r.status); });
    };
    if (!std::all_of(run_ids.begin() + static_cast<long>(first), run_ids.begin() + static_cast<long>(last), finished))
      todo.push_back(k);
  }
  return todo;
}

// One #SBATCH line. sbatch reads these lines itself, not through a shell, so a value is not
// quoted: it is refused unless made of characters that need no quoting.
std::string directive(const std::string& option, const std::string& value) {
  if (value.empty() || value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:,%=+-") != std::string::npos)
    throw UsageError("--" + option + " '" + value + "': only letters, digits and _ . / : , % = + - can go on an #SBATCH line");
  return "#SBATCH --" + option + "=" + value + "\n";
}

// A directory as Slurm's --output pattern reads it: a '%' of the name doubled (Slurm would expand
// "%a", "%j"... in it and write the logs elsewhere).
std::string output_pattern_dir(const std::string& dir) {
  std::string out;
  for (char c : dir) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

// #SBATCH lines every job shares.
std::string common_directives(const SlurmOptions& o, const std::string& name) {
  std::string s = directive("job-name", name);
  if (!o.partition.empty()) s += directive("partition", o.partition);
  if (!o.time.empty()) s += directive("time", o.time);
  if (!o.mem.empty()) s += directive("mem", o.mem);
  return s;
}

std::string array_script(const Layout& l, const SlurmOptions& o, const std::string& name) {
  std::ostringstream s;
  s << "#!/bin/bash\n# Written by `attnlab slurm`: task K of this array runs part K of " << l.tasks << " of the sweep.\n"
    << common_directives(o, name) << "#SBATCH --cpus-per-task=" << o.cpus_per_task << "\n"
    << directive("output", output_pattern_dir(l.dir) + "/logs/task-%a.out")
    << "#SBATCH --signal=B:USR1@90\n"  // 90 s before the time limit: checkpoint (attnlab run stops at the epoch's end)
    << "set -eu\nexport OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1\n"
    << "part=" << quoted(l.dir) << "/part-${SLURM_ARRAY_TASK_ID}.h5\n"
    << "mode=--force\n[ -f \"$part\" ] && mode=--resume  # a part from an earlier attempt: continue it\n"
    << "exec " << quoted(l.program) << " run " << quoted(l.spec) << " --shard \"${SLURM_ARRAY_TASK_ID}/" << l.tasks << "\""
    << " --output \"$part\" --threads " << o.cpus_per_task << " \"$mode\"";
  for (const std::string& v : o.overrides) s << " --set " << quoted(v);
  for (const std::string& p : o.plugins) s << " --plugin " << quoted(absolute_path(p));
  s << "\n";
  return s.str();
}

std::string merge_script(const Layout& l, const SlurmOptions& o, const std::string& name) {
  std::ostringstream s;
  s << "#!/bin/bash\n# Written by `attnlab slurm`: joins the " << l.tasks << " parts into the sweep's results file.\n"
    << common_directives(o, name + "-merge") << directive("output", output_pattern_dir(l.dir) + "/logs/merge.out")
    << "set -eu\nexec " << quoted(l.program) << " merge --force " << quoted(l.output);
  for (std::size_t k = 1; k <= l.tasks; ++k) s << " " << quoted(l.part(k));
  s << "\n";
  return s.str();
}

// Runs sbatch with these arguments (each quoted); returns the job id it prints (--parsable).
std::string sbatch(const std::vector<std::string>& args) {
  std::string command = "sbatch --parsable";
  for (const std::string& a : args) command += " " + quoted(a);
  std::FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) throw FileError("cannot run sbatch: " + command);
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, p)) out += buffer;
  const int status = pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (status != 0 || out.empty() || out.find_first_not_of("0123456789;") != std::string::npos)
    throw FileError("sbatch failed (" + command + "): " + out);
  return out.substr(0, out.find(';'));
}

std::string array_list(const std::vector<std::size_t>& tasks, std::size_t max_parallel) {
  std::string list;
  for (const std::size_t k : tasks) list += (list.empty() ? "" : ",") + std::to_string(k);
  return max_parallel ? list + "%" + std::to_string(max_parallel) : list;
}

std::string job_name(const std::string& spec_name) {
  std::string name = "attnlab-";
  for (const char c : spec_name) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return name.substr(0, 64);
}

}  // namespace

int slurm_experiment(const std::string& spec_path, const SlurmOptions& o) {
  RunnerOptions run;
  run.overrides = o.overrides;
  run.plugins = o.plugins;
  if (!o.output.empty()) run.output = o.output;
  const auto sweep = outline_sweep(spec_path, run);
  if (!sweep) return 2;
  Layout l{"", absolute_path(sweep->output), absolute_path(spec_path), this_program(), task_count(sweep->run_ids.size(), o)};
  l.dir = absolute_path(o.output_dir.empty() ? sweep->output + ".slurm" : o.output_dir);
  // Everything that can refuse the options runs before the first directory is made.
  if (const std::string problem = output_file_problem(l.output, "--output"); !problem.empty()) throw UsageError(problem);
  if (const std::string clash = output_is_input(l.output, sweep->inputs); !clash.empty()) throw UsageError(clash);  // the merge job's
  for (const char* script : {"/array.sbatch", "/merge.sbatch"})  // (their directory is made later)
    if (const std::string problem = non_file_output(l.dir + script, "--output-dir"); !problem.empty()) throw UsageError(problem);
  const std::vector<std::size_t> todo = unfinished_tasks(l, *sweep);
  const std::string name = job_name(sweep->name), array_text = array_script(l, o, name), merge_text = merge_script(l, o, name);
  std::error_code ec;
  fs::create_directories(l.dir + "/logs", ec);
  if (ec) throw UsageError("cannot make the directory for the job scripts, " + l.dir + "/logs: " + ec.message() + " (--output-dir)");
  write_whole_file(l.dir + "/array.sbatch", array_text, true);
  write_whole_file(l.dir + "/merge.sbatch", merge_text, true);
  const std::string array = l.dir + "/array.sbatch", merge = l.dir + "/merge.sbatch", tasks = array_list(todo, o.max_parallel);
  std::printf("%s: %zu runs in %zu tasks (%zu to run%s) -> %s\n  scripts, parts and logs in %s/\n", sweep->name.c_str(),
              sweep->run_ids.size(), l.tasks, todo.size(), todo.size() < l.tasks ? ": the others' parts are finished" : "",
              l.output.c_str(), l.dir.c_str());
  if (!o.submit) {
    std::printf("submit with:\n  %s\n", todo.empty() ? ("sbatch " + quoted(merge)).c_str()
                                                    : ("jid=$(sbatch --parsable --array=" + tasks + " " + quoted(array) +
                                                       ") && sbatch --dependency=afterok:${jid%%;*} " + quoted(merge)).c_str());
    return 0;
  }
  try {
    std::string after;
    if (!todo.empty()) {
      after = sbatch({"--array=" + tasks, array});
      std::printf("submitted array job %s (tasks %s)\n", after.c_str(), tasks.c_str());
    }
    const std::string merged = after.empty() ? sbatch({merge}) : sbatch({"--dependency=afterok:" + after, merge});
    std::printf("submitted merge job %s%s\n", merged.c_str(), after.empty() ? "" : (", after array job " + after + " succeeds").c_str());
  } catch (const FileError& e) {
    std::fprintf(stderr, "attnlab slurm: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace attn
