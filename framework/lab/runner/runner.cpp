#include "lab/runner/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <mutex>
#include <set>
#include <thread>

#include <tbb/concurrent_queue.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "lab/files/output_claim.hpp"
#include "lab/process/crash_report.hpp"
#include "lab/results/checkpoints.hpp"
#include "lab/runner/progress.hpp"
#include "lab/results/results_format.hpp"
#include "lab/runner/run.hpp"
#include "attnlab/plugin_loader.hpp"
#include "lab/builtins.hpp"
#include "attnlab/data/text.hpp"
#include "attnlab/file_kind.hpp"

namespace attn {
namespace {

// Ctrl-C; SIGUSR1, Slurm's warning before a time limit (`attnlab slurm` asks for it); SIGTERM,
// what scancel and a time limit send before SIGKILL. Every run stops at the end of its epoch,
// saves its checkpoint, and is marked interrupted.
std::atomic<bool> interrupted{false};
void on_interrupt(int) { interrupted = true; }

// Every problem, up to 50 (a broken generated spec can have thousands), then how many more.
void print(const std::vector<Diagnostic>& diags) {
  constexpr std::size_t shown = 50;
  for (std::size_t i = 0; i < diags.size() && i < shown; ++i) std::fprintf(stderr, "%s\n", utf8_shortened(diags[i].str(), 1000).c_str());
  if (diags.size() > shown) std::fprintf(stderr, "... and %zu more\n", diags.size() - shown);
  std::fprintf(stderr, "%zu problem%s found; nothing was run or written.\n", diags.size(), diags.size() == 1 ? "" : "s");
}

struct Prepared {
  Spec spec;
  Registries registries;
  std::string output;
  MemoryLimit memory;  // what each run may use
  RunsFootprint footprint;  // about what the runs will write, and the data files they read
};

// What `run` reads, which its output must not be: the spec, the data files, the plugins.
std::vector<InputFile> inputs_of(const Prepared& p, const std::string& spec_path) {
  std::vector<InputFile> inputs{{spec_path, "the spec"}};
  for (const std::string& file : p.footprint.data_files) inputs.push_back({file, "a data file the spec reads"});
  for (const std::string& plugin : p.spec.plugins) inputs.push_back({plugin, "a plugin the run loads (plugins: or --plugin)"});
  return inputs;
}

int thread_count(const RunnerOptions& options) {
  return options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
}

// --max-memory, or the memory available divided by the runs that go at once.
MemoryLimit memory_limit(const RunnerOptions& options, std::size_t runs) {
  if (options.max_memory) return {*options.max_memory, "--max-memory " + memory_text(*options.max_memory)};
  if (options.shard) runs = shard_range(runs, *options.shard).second - shard_range(runs, *options.shard).first;
  return default_memory_limit(std::min(runs, static_cast<std::size_t>(std::max(thread_count(options), 1))));
}

// Reads and validates everything; returns nothing and fills `diags` when there are problems.
std::unique_ptr<Prepared> prepare(const std::string& spec_path, const RunnerOptions& options, std::vector<Diagnostic>& diags) {
  SpecResult read = read_spec(spec_path, options.overrides, options.plugins);
  if (!read.spec) {
    diags = std::move(read.diagnostics);
    return nullptr;
  }
  auto p = std::make_unique<Prepared>();
  p->spec = std::move(*read.spec);
  register_builtins(p->registries);
  const auto& plugin_where = p->spec.runs[0].values;
  for (std::size_t i = 0; i < p->spec.plugins.size(); ++i) {
    try {
      load_plugin(p->spec.plugins[i], p->registries);
    } catch (const std::exception& e) {
      diags.push_back({plugin_where.at("plugins").item_where.at(i), e.what()});
    }
  }
  p->memory = memory_limit(options, p->spec.runs.size());
  if (diags.empty()) diags = validate_runs(p->spec, p->registries, p->memory, &p->footprint);
  p->output = options.output ? *options.output : p->spec.output;
  if (!diags.empty()) return nullptr;
  return p;
}

std::unique_ptr<Prepared> prepare_or_print(const std::string& spec_path, const RunnerOptions& options) {
  std::vector<Diagnostic> diags;
  auto p = prepare(spec_path, options, diags);
  if (!p) print(diags);
  return p;
}

// The output must be creatable (or resumable) before any training starts; `claim` holds it from
// before its existence is checked (output_claim.hpp).
std::optional<std::string> output_problem(const Prepared& p, const std::string& spec_path, const RunnerOptions& o,
                                          std::optional<OutputClaim>& claim) {
  namespace fs = std::filesystem;
  const std::string& path = p.output;
  std::error_code ec;
  if (const std::string problem = output_file_problem(path, "output"); !problem.empty()) return problem;
  try {
    claim.emplace(path, inputs_of(p, spec_path));
  } catch (const UsageError& e) {
    return e.what();
  }
  const bool exists = fs::exists(path, ec);
  if (const std::string what = not_a_regular_file(checkpoint_directory(path)); what != "no such file" && what != "this is a directory")
    return "'" + checkpoint_directory(path) + "' (where the runs' checkpoints go): " + (what.empty() ? "a file, not a directory" : what) +
           "; move it away";
  if (o.resume && !exists) return "--resume: '" + path + "' does not exist (run without --resume to start)";
  if (!o.resume && exists && !o.force)
    return "'" + path + "' already exists; use --force to overwrite it or --resume to complete the sweep it holds";
  if (exists && access(path.c_str(), W_OK) != 0) return "'" + path + "' is not writable";
  return std::nullopt;
}

// Room for the results: about what the runs will write, against the space free on the output's
// file system (plus the file a --force run replaces).
std::optional<std::string> space_problem(const Prepared& p, const RunnerOptions& o) {
  std::error_code ec;
  const auto replaced = o.force ? std::filesystem::file_size(p.output, ec) : 0;
  const double free = free_space_for(p.output) + (ec ? 0 : static_cast<double>(replaced));
  const double needed = o.resume ? 0 : p.footprint.results_bytes;  // resuming: each run is checked as it is written
  if (free < 0 || free >= needed + 64 * 1024) return std::nullopt;
  return "no space left for the results in '" + p.output + "': they need about " + memory_text(needed + 64 * 1024) +
         ", and its file system has " + memory_text(free) + " free; free some space, or write elsewhere with --output";
}

struct Finished {
  std::size_t index;
  RunRecord record;
};

// The sweep's run ids in sweep order (a results file's run_order).
std::vector<std::string> planned_ids(const Spec& spec) {
  std::vector<std::string> ids;
  for (const RunPlan& r : spec.runs) ids.push_back(r.id);
  return ids;
}

// With --resume: the runs of the existing file that are done (finished, stopped early or
// diverged), after checking the file was written by this spec with the same overrides.
// Returns the exit code 2 with a message when it cannot resume.
std::optional<int> runs_done_before(const Prepared& p, const RunnerOptions& options, const std::string& spec_path,
                                    std::set<std::string>& done, std::size_t& kept_failures) {
  try {
    const ResultsReader existing(p.output);
    const ResultsHeader header = existing.header();  // read once: each call reads the file's attributes
    if (header.spec != p.spec.text) {
      std::fprintf(stderr, "attnlab run: --resume: '%s' was written by a different spec than %s; "
                           "resume with the same spec (or start anew with --force)\n", p.output.c_str(), spec_path.c_str());
      return 2;
    }
    const std::string shard = options.shard ? options.shard->str() : "";
    if (header.shard != shard) {
      std::fprintf(stderr, "attnlab run: --resume: '%s' holds %s, not %s; resume it with the same --shard\n", p.output.c_str(),
                   header.shard.empty() ? "a whole sweep" : ("shard " + header.shard).c_str(),
                   shard.empty() ? "the whole sweep" : ("shard " + shard).c_str());
      return 2;
    }
    const std::vector<std::string> planned = planned_ids(p.spec);
    if (const auto& order = header.run_order; !order.empty() && order != planned) {
      std::fprintf(stderr, "attnlab run: --resume: '%s' holds another sweep (%zu runs; this spec and --set plan %zu): resume "
                           "with the same --set sweep.* values (or start anew with --force)\n", p.output.c_str(), order.size(),
                   planned.size());
      return 2;
    }
    for (const RunInfo& r : existing.runs()) {
      const auto plan = std::find_if(p.spec.runs.begin(), p.spec.runs.end(), [&](const RunPlan& x) { return x.id == r.id; });
      if (plan != p.spec.runs.end() && !same_run_configuration(existing.config(r.id), plan->config_yaml())) {
        std::fprintf(stderr, "attnlab run: --resume: run '%s' in '%s' was made with another configuration (different --set?); "
                             "resume with the same spec and overrides (or start anew with --force)\n", r.id.c_str(), p.output.c_str());
        return 2;
      }
      if (!succeeded(r.status) && r.status != RunStatus::diverged) continue;
      done.insert(r.id);
      if (r.status == RunStatus::diverged) ++kept_failures;
      // A kill between writing a run and removing its checkpoint leaves the checkpoint of a run
      // that is done: it would never be removed, nor its directory.
      remove_checkpoint(p.output, r.id);
    }
    remove_leftovers(p.output);  // a killed run's unfinished copy; only once resuming is sure
  } catch (const FileError& e) {  // a file that cannot be read: exit 1, as every reading command says it
    std::fprintf(stderr, "attnlab run: --resume: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab run: --resume: %s\n", e.what());
    return 2;
  }
  return std::nullopt;
}

// A new sweep: an empty results file (and no checkpoints of an earlier sweep into it).
std::optional<int> start_results_file(const Prepared& p, const RunnerOptions& options) {
  try {
    remove_leftovers(p.output);
    ResultsHeader header{p.spec.text, p.spec.path, p.spec.name, p.spec.runs.size(), planned_ids(p.spec), "", "", "",
                         results_format_version};
    if (options.shard) header.shard = options.shard->str();
    create_results_file(p.output, header);
    remove_checkpoints(p.output);  // after: a file that cannot be made keeps the old sweep's checkpoints
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab run: cannot create the results file: %s\nNothing was run.\n", e.what());
    return 2;
  }
  return std::nullopt;
}

// The line progress shows for a finished run: its error, or its headline metric.
std::string finished_note(const RunRecord& r) {
  std::string note = r.error;
  if (note.empty())
    for (const char* m : {"valid_exact_match", "trainset_exact_match", "valid_accuracy", "trainset_accuracy", "valid_bleu", "test_mse", "valid_loss", "train_loss"})
      if (r.metrics.count(m)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s %.4g", m, r.metrics.at(m));
        note = buf;
        break;
      }
  if (r.resumed_from_epoch) note += " (continued from its checkpoint after epoch " + std::to_string(r.resumed_from_epoch) + ")";
  return note;
}

// Writes a run if its file system has room for it (never half a run: a file without room keeps
// the runs written before, complete, for --resume).
void write_run_with_room(const std::string& output, const RunRecord& r) {
  std::error_code ec;
  const auto file = std::filesystem::file_size(output, ec);  // the run is written to a copy of the file (update_atomically)
  const double free = free_space_for(output), needed = record_bytes(r) + 64 * 1024 + (ec ? 0 : static_cast<double>(file));
  if (free >= 0 && free < needed)
    throw FileError("no space left on the file system of '" + output + "': run '" + r.id + "' needs about " + memory_text(needed) +
                    ", " + memory_text(free) + " are free. The file keeps the runs written before; free some space and "
                    "complete the sweep with --resume");
  write_run(output, r);
}

// Runs `todo` in parallel, one writer thread saving each as it ends. Returns the runs that did
// not succeed; `write_error` is set when the results file could not be written.
std::size_t execute_sweep(const Prepared& p, const RunnerOptions& options, const std::vector<const RunPlan*>& todo,
                          Progress& progress, std::string& write_error) {
  tbb::concurrent_bounded_queue<std::shared_ptr<Finished>> queue;
  std::size_t failures = 0;
  std::thread writer([&] {
    for (std::size_t written = 0; written < todo.size();) {
      std::shared_ptr<Finished> f;
      if (!queue.try_pop(f)) {
        progress.redraw();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        continue;
      }
      ++written;
      const RunRecord& r = f->record;
      if (!succeeded(r.status)) ++failures;
      try {  // after a write error, nothing more is written: the file keeps the runs written before it
        if (write_error.empty()) write_run_with_room(p.output, r);
        if (r.status != RunStatus::interrupted) remove_checkpoint(p.output, r.id);  // --resume continues the others
      } catch (const std::exception& e) {
        write_error = e.what();
      }
    }
  });
  tbb::task_group group;  // in run_experiment's arena
  for (const RunPlan* plan : todo)
    group.run([&, plan] {
      auto f = std::make_shared<Finished>();
      f->index = plan->index;
      if (interrupted) {
        f->record = planned_record(*plan);
        f->record.status = RunStatus::interrupted;
      } else {
        const RunCheckpoint checkpoint{checkpoint_path(p.output, plan->id), plan->config_yaml(),
                                       options.checkpoint_seconds, options.resume};
        RunObserver observer;
        observer.started = [&](std::size_t epochs) { progress.started(plan->id, plan->index, epochs); };
        observer.stage = [&](const std::string& what) {
          progress.stage(plan->id, what);
          return !interrupted.load();
        };
        observer.epoch = [&](const EpochRecord& e) {
          progress.epoch(plan->id, e.epoch, e.train_loss);
          return !interrupted.load();
        };
        f->record = execute_run(*plan, p.registries, p.spec.directory, observer, &checkpoint, p.memory);
      }
      // Said by the run's own task, so that on one thread each run's lines end before the next
      // run's begin, whenever the writer gets to it (a write error is reported at the end).
      progress.finished(f->record.id, to_string(f->record.status), f->record.wall_seconds, finished_note(f->record));
      queue.push(f);
    });
  group.wait();
  writer.join();
  return failures;
}

}  // namespace

std::pair<std::size_t, std::size_t> shard_range(std::size_t runs, const Shard& shard) {
  return {(shard.index - 1) * runs / shard.count, shard.index * runs / shard.count};
}

std::optional<SweepOutline> outline_sweep(const std::string& spec_path, const RunnerOptions& options) {
  const auto p = prepare_or_print(spec_path, options);
  if (!p) return std::nullopt;
  SweepOutline o{p->spec.name, p->output, {}, inputs_of(*p, spec_path), p->spec.text, {}};
  for (const RunPlan& r : p->spec.runs) {
    o.run_ids.push_back(r.id);
    o.configs.push_back(r.config_yaml());
  }
  return o;
}

std::vector<Diagnostic> check_spec(const std::string& spec_path, const RunnerOptions& options) {
  std::vector<Diagnostic> diags;
  prepare(spec_path, options, diags);
  return diags;
}

int validate_experiment(const std::string& spec_path, const RunnerOptions& options) {
  const auto p = prepare_or_print(spec_path, options);
  if (!p) return 2;
  std::printf("%s: valid; %zu run%s:\n", spec_path.c_str(), p->spec.runs.size(), p->spec.runs.size() == 1 ? "" : "s");
  for (const RunPlan& r : p->spec.runs) {
    const std::size_t count = r.training.steps > 0 ? r.training.steps : r.training.epochs;
    const std::string length = std::to_string(count) + (r.training.steps > 0 ? " step" : " epoch") + (count == 1 ? "" : "s");
    std::printf("  %-40s %s on %s, %s\n", r.id.c_str(), r.model.c_str(), r.dataset.c_str(), length.c_str());
  }
  return 0;
}

namespace {

// One line per option `read` asked for: key (type, default, range), then the spec's value.
void print_read_options(const std::string& prefix, const std::vector<Options::Asked>& read, const Options& given) {
  const std::vector<std::string> keys = given.keys();
  std::size_t width = 0;
  for (const Options::Asked& a : read) width = std::max(width, prefix.size() + a.key.size());
  for (const Options::Asked& a : read) {
    const bool in_spec = std::find(keys.begin(), keys.end(), a.key) != keys.end();
    std::printf("  %-*s  (%s, default %s%s)%s\n", static_cast<int>(width), (prefix + a.key).c_str(), a.type.c_str(), a.fallback.c_str(),
                a.range.empty() ? "" : ("; " + a.range).c_str(), in_spec ? ("  spec: " + given.text(a.key)).c_str() : "");
  }
}

}  // namespace

int list_spec_options(const std::string& spec_path, const RunnerOptions& options) {
  const auto p = prepare_or_print(spec_path, options);
  if (!p) return 2;
  std::set<std::string> shown;  // a dataset or model once, as the first run that uses it builds it
  for (const RunPlan& plan : p->spec.runs) {
    const bool new_dataset = shown.insert("dataset " + plan.dataset).second, new_model = shown.insert("model " + plan.model).second;
    if (!new_dataset && !new_model) continue;
    const auto parts = build_run(plan, p->registries, p->spec.directory, p->memory);
    if (new_dataset) {
      std::printf("dataset '%s' (as run %s builds it) reads:\n", plan.dataset.c_str(), plan.id.c_str());
      print_read_options("dataset.", parts->dataset_read, plan.dataset_options);
    }
    if (new_model) {
      std::printf("model '%s' (as run %s builds it) reads:\n", plan.model.c_str(), plan.id.c_str());
      print_read_options("model.", parts->model_read, plan.model_options);
    }
  }
  std::printf("The attention plugins' options: attnlab keys (without a spec).\n");
  return 0;
}

namespace {

// run_experiment inside its arena.
int run_sweep(const std::string& spec_path, const RunnerOptions& options, int threads) {
  set_crash_note("Nothing was run or written.");  // until the results file is there
  const auto p = prepare_or_print(spec_path, options);
  if (!p) return 2;
  const Spec& spec = p->spec;
  std::optional<OutputClaim> claim;
  if (auto problem = output_problem(*p, spec_path, options, claim); problem || (problem = space_problem(*p, options))) {
    std::fprintf(stderr, "attnlab run: %s\nNothing was run or written.\n", problem->c_str());
    return 2;
  }
  std::set<std::string> done;
  std::size_t kept_failures = 0;  // diverged runs kept from before still count against the exit code
  const auto [first, last] = shard_range(spec.runs.size(), options.shard.value_or(Shard{}));
  if (options.shard && options.shard->count > spec.runs.size()) {  // some shard would have no run: refused for every K alike
    std::fprintf(stderr, "attnlab run: --shard %s: the sweep has %zu run%s, so it splits into at most %zu shards; "
                         "use --shard K/%zu or fewer parts\nNothing was run or written.\n",
                 options.shard->str().c_str(), spec.runs.size(), spec.runs.size() == 1 ? "" : "s", spec.runs.size(), spec.runs.size());
    return 2;
  }
  if (const auto refused = options.resume ? runs_done_before(*p, options, spec_path, done, kept_failures)
                                          : start_results_file(*p, options))
    return *refused;
  set_crash_note("The runs finished before are kept in " + p->output + ": `attnlab run " + spec_path +
                 " --resume` with the same options completes the sweep.");

  std::vector<const RunPlan*> todo;
  for (std::size_t i = first; i < last; ++i)
    if (!done.count(spec.runs[i].id)) todo.push_back(&spec.runs[i]);
  const std::size_t mine = last - first;
  std::printf("%s: %zu run%s%s on %d thread%s -> %s\n", spec.name.c_str(), mine, mine == 1 ? "" : "s",
              options.shard ? (" (shard " + options.shard->str() + " of " + std::to_string(spec.runs.size()) + ")").c_str() : "",
              threads, threads == 1 ? "" : "s", p->output.c_str());
  std::fflush(stdout);

  interrupted = false;
  const auto previous = std::signal(SIGINT, on_interrupt);
  const auto previous_usr1 = std::signal(SIGUSR1, on_interrupt);
  const auto previous_term = std::signal(SIGTERM, on_interrupt);  // scancel, and Slurm at a time limit
  Progress progress(stdout, isatty(fileno(stdout)) != 0, mine, mine - todo.size(), spec.runs.size());
  std::string write_error;
  const std::size_t failures = kept_failures + execute_sweep(*p, options, todo, progress, write_error);
  remove_empty_checkpoint_directory(p->output);  // no run is running now: none can be writing into it
  std::signal(SIGINT, previous);
  std::signal(SIGUSR1, previous_usr1);
  std::signal(SIGTERM, previous_term);
  progress.done();
  if (!write_error.empty()) {
    std::fprintf(stderr, "attnlab run: could not write results: %s\n", write_error.c_str());
    return 1;
  }

  const Summary summary = summarize(ResultsReader(p->output).runs());
  write_summary(p->output, summary);
  std::printf("\n%s\nresults: %s  (attnlab compare %s --metrics all: every metric)\n",
              format_summary(summary, TableFormat::text, headline_metrics(summary)).c_str(), p->output.c_str(), p->output.c_str());
  if (interrupted) {
    std::fprintf(stderr, "interrupted: unfinished runs are marked 'interrupted'; complete them with --resume\n");
    return 130;
  }
  if (failures) std::fprintf(stderr, "%zu run%s did not finish (see the table and `attnlab inspect`)\n", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}

}  // namespace

// Everything a run does, from reading its data on, goes on the arena's threads: the runs are its
// tasks, and their work (attnlab/parallel.hpp) nested tasks, so --threads N keeps to N cores.
int run_experiment(const std::string& spec_path, const RunnerOptions& options) {
  const int threads = thread_count(options);
  tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads) + 1);
  tbb::task_arena arena(threads);
  return arena.execute([&] { return run_sweep(spec_path, options, threads); });
}

}  // namespace attn
