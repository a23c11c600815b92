#include "lab/results/merge.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "attnlab/errors.hpp"
#include "attnlab/footprint.hpp"
#include "attnlab/file_kind.hpp"
#include "lab/files/output_claim.hpp"
#include "lab/results/hdf5_file.hpp"
#include "lab/results/layout.hpp"
#include "lab/results/results_format.hpp"

namespace attn {
namespace {

// Up to 8 names, then how many more.
std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 8) out += " and " + std::to_string(names.size() - 8) + " more";
  return out;
}

// The part's header agrees with the first part's on everything that makes the sweep.
void check_same_sweep(const std::string& first, const ResultsHeader& a, const std::string& part, const ResultsHeader& b) {
  const auto refuse = [&](const std::string& what) {
    throw UsageError(part + " is a part of another sweep than " + first + ": " + what + "; merge parts of one sweep only");
  };
  if (a.spec != b.spec) refuse("its spec text differs");
  if (a.attnlab_version != b.attnlab_version) refuse("attnlab " + b.attnlab_version + " wrote it, " + a.attnlab_version + " the other");
  if (a.format_version != b.format_version) refuse("its results format is " + std::to_string(b.format_version));
  if (a.run_order != b.run_order) refuse("its sweep has other runs (another --set of the sweep?)");
}

// The --set values of a run but those of its swept keys: one sweep's runs share them.
std::string fixed_overrides(const RunInfo& r) {
  std::string out;
  for (const auto& set : r.overrides)  // (a structured binding cannot be captured in C++17)
    if (std::none_of(r.point.begin(), r.point.end(), [&](const auto& kv) { return kv.first == set.first; }))
      out += (out.empty() ? "" : " ") + set.first + "=" + set.second;
  return out;
}

// Copies each run's group, as it is, from the part that holds it.
void copy_runs(const std::string& output, const std::map<std::string, std::string>& owner) {
  Hdf5File out(output, Hdf5File::Mode::read_write);
  std::map<std::string, std::vector<std::string>> by_part;
  for (const auto& [id, part] : owner) by_part[part].push_back(id);
  for (const auto& [part, ids] : by_part) {
    const Hdf5File in(part, Hdf5File::Mode::read);
    for (const std::string& id : ids) out.copy_from(in, layout::group_of(id));
  }
}

struct Parts {
  ResultsHeader header;                      // of the first part
  std::map<std::string, std::string> owner;  // run id -> the part holding it
  std::vector<std::string> unfinished;
  std::map<std::string, std::string> overrides;  // run id -> its --set values, as written
};

// Refuses a part given twice (by the same or another name of one file): each part is looked at
// once (thousands of parts on a cluster's file system).
void require_distinct_parts(const std::vector<std::string>& parts) {
  std::map<std::pair<dev_t, ino_t>, const std::string*> seen;
  for (const std::string& part : parts) {
    struct stat st {};
    if (stat(part.c_str(), &st) != 0) continue;  // survey() says why it cannot be read
    const auto [it, fresh] = seen.emplace(std::make_pair(st.st_dev, st.st_ino), &part);
    if (!fresh)
      throw UsageError(part + " is given twice" + (part == *it->second ? "" : " (also as " + *it->second + ")") +
                       "; give each part once");
  }
}

// Reads every part's header and runs; refuses parts that do not belong together.
Parts survey(const std::vector<std::string>& parts) {
  require_distinct_parts(parts);
  Parts s;
  std::string overrides_seen, overrides_part;
  for (const std::string& path : parts) {
    const ResultsReader part(path);
    const ResultsHeader h = part.header();
    if (h.run_order.empty())
      throw UsageError(path + " has no run_order (written before attnlab could shard a sweep): run its sweep again to merge it");
    if (path == parts[0]) s.header = h;
    else check_same_sweep(parts[0], s.header, path, h);
    for (const RunInfo& r : part.runs()) {
      if (s.owner.count(r.id)) throw UsageError("run '" + r.id + "' is in two parts, " + s.owner[r.id] + " and " + path +
                                                "; merge each run from one part only");
      s.owner[r.id] = path;
      if (!succeeded(r.status)) s.unfinished.push_back(r.id);
      const std::string set = fixed_overrides(r);
      if (overrides_part.empty()) {
        overrides_seen = set, overrides_part = path;
      } else if (set != overrides_seen) {
        throw UsageError(path + " was run with other --set values than " + overrides_part + " ('" + set + "' against '" +
                         overrides_seen + "'); merge parts run with the same --set");
      }
    }
  }
  return s;
}

// The output must be a file path in a writable directory (whatever --force says, a directory,
// FIFO or device is never replaced), on a file system with room for the parts' runs (the merged
// file is about their sizes together; the file it replaces counts as free).
void check_output_room(const std::string& output, const std::vector<std::string>& parts) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const std::string problem = output_file_problem(output, "output"); !problem.empty()) throw UsageError(problem);
  const bool exists = fs::exists(output, ec);
  const fs::path dir = fs::path(output).parent_path().empty() ? fs::path(".") : fs::path(output).parent_path();
  double needed = 64 * 1024;
  const auto size_of = [&](const std::string& path) {  // 0 for a file that is not there (survey() says so)
    const auto size = fs::file_size(path, ec);
    return ec ? 0.0 : static_cast<double>(size);
  };
  for (const std::string& p : parts) needed += size_of(p);
  const double free = free_space_for(output) + (exists ? size_of(output) : 0);
  if (free >= 0 && free < needed)
    throw UsageError("no space left for the merged file in '" + dir.string() + "': it needs about " + memory_text(needed) +
                     ", and the file system has " + memory_text(free) + " free; free some space, or write elsewhere");
}

}  // namespace

MergeResult merge_results(const std::string& output, const std::vector<std::string>& parts, const MergeOptions& options) {
  namespace fs = std::filesystem;
  if (parts.empty()) throw UsageError("no parts to merge: give the files of `attnlab run --shard K/N`");
  std::error_code ec;
  std::vector<InputFile> inputs;
  for (const std::string& p : parts) inputs.push_back({p, "a part"});
  check_output_room(output, parts);  // first: a directory or FIFO is refused even with --force
  const Parts s = survey(parts);
  inputs.push_back({s.header.spec_path, "the spec the parts were run from"});
  const OutputClaim claim(output, inputs);  // until the merged file is in place
  if (fs::exists(output, ec) && !options.force) throw UsageError(output + " already exists; use --force to replace it");
  MergeResult result;
  result.planned = s.header.run_order.size();
  for (const std::string& id : s.header.run_order)
    if (!s.owner.count(id)) result.missing.push_back(id);
  if (!result.missing.empty() && !options.allow_missing)
    throw UsageError(std::to_string(result.missing.size()) + " of the sweep's " + std::to_string(result.planned) +
                     " runs are in no part: " + listed(result.missing) +
                     "; give their parts too, or --allow-missing to merge the others");
  result.unfinished = s.unfinished;
  remove_leftovers(output);  // only now: a refused merge leaves everything as it was
  const std::string partial = output + ".merging-" + std::to_string(getpid());
  try {
    ResultsHeader header = s.header;
    header.shard.clear();
    create_results_file(partial, header);
    copy_runs(partial, s.owner);
    const Summary summary = summarize(ResultsReader(partial).runs());  // the reader closes before the writer opens
    write_summary(partial, summary);
    fs::rename(partial, output, ec);
    if (ec) throw FileError("cannot put the merged file in place as " + output + ": " + ec.message());
  } catch (...) {
    fs::remove(partial, ec);
    throw;
  }
  result.runs = s.owner.size();
  return result;
}

}  // namespace attn
