// The redesign changed no behaviour: the specs in tests/golden/behaviour/, run by today's code,
// write bit-identical parameters, history and attention maps to the files the code of commit
// 5e5723e wrote (regenerate.sh beside them says how they were made). Timings differ, and
// format 2 adds the grad_norm history column; everything else must match to the bit.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>

#include "lab/results/results_format.hpp"
#include "lab/runner/runner.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::source_root;
using attn::test::TempDir;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Every dataset under `group` of a results file, by path.
void datasets_under(const Hdf5File& f, const std::string& group, std::map<std::string, Tensor>& out) {
  if (!f.exists(group)) return;  // a model without parameters
  for (const std::string& c : f.children(group)) {
    const std::string p = group + "/" + c;
    if (f.is_group(p)) datasets_under(f, p, out);
    else out[p.substr(p.find("/params/"))] = f.read(p);
  }
}

// What differs between run `id` of `expected` and of `actual` (empty: bit-identical).
std::vector<std::string> differences(const ResultsReader& expected, const ResultsReader& actual, const std::string& id) {
  std::vector<std::string> found;
  std::map<std::string, Tensor> params_e, params_a;
  datasets_under(expected.hdf5(), expected.run_group(id) + "/params", params_e);
  datasets_under(actual.hdf5(), actual.run_group(id) + "/params", params_a);
  if (params_e.size() != params_a.size()) found.push_back(id + ": another number of parameters");
  for (const auto& [name, t] : params_e)
    if (!params_a.count(name) || !same_bits(t, params_a.at(name))) found.push_back(id + name);
  const HistoryColumns he = expected.history(id), ha = actual.history(id);
  for (const auto& [column, values] : he) {
    if (column == "seconds") continue;
    const auto it = std::find_if(ha.begin(), ha.end(), [&](const auto& c) { return c.first == column; });
    if (it == ha.end() || std::memcmp(values.data(), it->second.data(), values.size() * sizeof(double)) != 0 ||
        values.size() != it->second.size())
      found.push_back(id + " history " + column);
  }
  for (const std::string& ex : expected.examples(id)) {
    const ExampleAttention e = expected.example(id, ex), a = actual.example(id, ex);
    for (std::size_t m = 0; m < e.maps.size(); ++m)
      if (m >= a.maps.size() || !same_bits(e.maps[m].weights, a.maps[m].weights) || e.maps[m].keys != a.maps[m].keys ||
          e.maps[m].queries != a.maps[m].queries)
        found.push_back(id + " " + ex + " " + e.maps[m].name);
  }
  if (expected.run(id).metrics != actual.run(id).metrics) found.push_back(id + " final metrics");
  return found;
}

std::vector<std::string> run_and_compare(const std::string& name, const std::vector<std::string>& overrides) {
  TempDir tmp("attnlab-behaviour");
  RunnerOptions options;
  options.threads = 2;
  options.output = tmp / (name + ".h5");
  options.overrides = overrides;
  const std::string dir = source_root + "/tests/golden/behaviour/";
  REQUIRE(run_experiment(dir + name + ".yaml", options) == 0);
  const ResultsReader expected(dir + name + ".h5"), actual(*options.output);
  REQUIRE(expected.run_ids() == actual.run_ids());
  std::vector<std::string> found;
  for (const std::string& id : expected.run_ids())
    for (const std::string& d : differences(expected, actual, id)) found.push_back(d);
  return found;
}

}  // namespace

TEST_CASE("today's code reproduces the behaviour golden files bit for bit", "[behaviour][golden]") {
  for (const std::string name : {"nadaraya-watson", "seq2seq", "seq2seq-no-attention", "transformer"}) {
    DYNAMIC_SECTION(name) {
      const std::vector<std::string> found = run_and_compare(name, {});
      INFO("differences: " << found.size() << (found.empty() ? "" : ", first: " + found[0]));
      CHECK(found.empty());
    }
  }
}

TEST_CASE("the behaviour comparison can fail: another seed differs", "[behaviour][golden]") {
  const std::vector<std::string> found = run_and_compare("transformer", {"seed=12"});
  CHECK(found.size() > 10);
}
