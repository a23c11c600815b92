// The conformance checks of an attention mode, with and without learned projections
// (conformance.hpp).
#include <cmath>

#include "attnlab/attention/attention.hpp"
#include "lab/conformance/conformance.hpp"

namespace attn {
namespace {

// A mode is built for sources of sizes 3, 4 and 5. It may refuse query and key sources of
// different sizes at construction (saying "size"); it is then built for 4, 4 and 5. A mode need
// not take the built-ins' projection options (`project`, `dim`): one that reports `project` as
// an unknown option is checked without them, with a note.
std::optional<Attention> build_mode(Checker& c, const Registries& r, const ParamScope& scope, const AttentionConfig& config,
                                    std::size_t& query_dim) {
  for (std::size_t d : {std::size_t{3}, std::size_t{4}}) {
    try {
      query_dim = d;
      return Attention(r, scope, config, d, 4, 5);
    } catch (const SpecError& e) {
      const bool projection_refused = e.message().find("unknown option 'project'") != std::string::npos ||
                                      e.message().find("unknown option 'dim'") != std::string::npos;
      if (config.mode.options.has("project") && projection_refused) {
        c.note("it takes no projection options (project, dim): checked without them");
        return std::nullopt;
      }
      if (d == 4 || e.message().find("size") == std::string::npos) throw;
    }
  }
  return std::nullopt;
}

void check_built(Checker& c, const Attention& attention, ParamStore& store, std::size_t query_dim, Rng& rng, const std::string& how,
                 float fd_step) {
  Var query = leaf(random_normal({2, 5, query_dim}, rng)), key = leaf(random_normal({2, 5, 4}, rng)), value = leaf(random_normal({2, 5, 5}, rng));
  const AttentionSources sources{query, key, value};
  const std::string input = how + ": queries [2, 5, " + std::to_string(query_dim) + "], keys [2, 5, 4], values [2, 5, 5], valid lengths [5, 0]";
  const AttentionResult out = attention(sources, IntTensor{5, 0});
  c.expect(out.output.shape() == Shape{2, 5, attention.output_dim()}, "output of shape [batch, queries, output_dim()]", input,
           shape_str({2, 5, attention.output_dim()}), shape_str(out.output.shape()));
  if (!c.expect(out.weights.shape() == Shape{2, 5, 5}, "weights of shape [batch, queries, keys]", input, "[2, 5, 5]", shape_str(out.weights.shape())))
    return;
  // The mode may tighten the mask (causal); every weight outside the caller's mask is 0, and a
  // row with valid keys sums to 1 (a mode that tightens it leaves each query a key).
  c.masked_weights(input, out.weights.value(), IntTensor{5, 0}, true);
  for (float v : out.output.value())
    if (!c.expect(std::isfinite(v), "every output finite", input, "finite values", option_text(v))) break;
  c.gradients("gradients", how + ", valid lengths [5, 3]", [&] { return attention(sources, IntTensor{5, 3}).output; },
              leaves_of(store, {{"query", query}, {"key", key}, {"value", value}}), fd_step);
}

}  // namespace

ConformanceRun check_mode(const Registries& r, const std::string& name, const Options& options, float fd_step) {
  Checker c(r.modes.describe(name), "");
  for (const bool project : {false, true}) {
    const std::string how = project ? "with projections (project: true, dim: 6)" : "as given";
    c.guarded("builds and attends " + how, "query sources of 3 (or 4), keys of 4, values of 5; queries [2, 5, 3], valid lengths [5, 0]", [&] {
      Rng rng(7);
      ParamStore store;
      AttentionConfig config;
      config.mode = {name, options, ""};
      if (project) {
        config.mode.options.set("project", "true");
        config.mode.options.set("dim", "6");
      }
      config.scoring = {"general", {}, {}};  // takes queries and keys of different sizes
      std::size_t query_dim = 0;
      const std::optional<Attention> built = build_mode(c, r, ParamScope(store, rng, "att"), config, query_dim);
      if (built) check_built(c, *built, store, query_dim, rng, how, fd_step);
    });
  }
  return c.result();
}

}  // namespace attn
