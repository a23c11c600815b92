// The conformance checks of a scoring function (conformance.hpp).
#include "attnlab/attention/pooling.hpp"
#include "lab/conformance/conformance.hpp"

namespace attn {
namespace {

// Queries of `q_dim` against keys of 5: taken (scores of the right shape, gradients), or refused
// at construction with a message that says "size".
void different_sizes(Checker& c, const Registries& r, const std::string& name, const Options& options, const Var& k, float fd_step) {
  Rng rng(4);
  ParamStore store;
  std::shared_ptr<ScoringFunction> mixed;
  try {
    mixed = r.scoring.create(name, ScoringArgs{ParamScope(store, rng, "m"), options, 3, 5});
  } catch (const std::invalid_argument& e) {
    const std::string why = e.what();
    c.expect(why.find("size") != std::string::npos, "queries and keys of different sizes: taken or refused saying 'size'",
             "queries of 3, keys of 5", "a message that names the sizes", why);
    return;
  }
  Var q3 = leaf(random_normal({3, 4, 3}, rng));
  c.guarded("queries and keys of different sizes: taken or refused saying 'size'", "queries [3, 4, 3], keys [3, 6, 5]", [&] {
    const Shape got = mixed->score(q3, k).shape();
    c.expect(got == Shape{3, 4, 6}, "queries and keys of different sizes: taken or refused saying 'size'",
             "queries [3, 4, 3], keys [3, 6, 5]", "scores [3, 4, 6]", shape_str(got));
  });
  c.gradients("gradients with queries and keys of different sizes", "queries [3, 4, 3], keys [3, 6, 5]",
              [&] { return mixed->score(q3, k); }, leaves_of(store, {{"q", q3}, {"k", k}}), fd_step);
}

}  // namespace

ConformanceRun check_scoring(const Registries& r, const std::string& name, const Options& options, float fd_step) {
  Checker c(r.scoring.describe(name), "");
  c.guarded("builds and scores", "queries [3, 4, 5], keys [3, 6, 5], values [3, 6, 2], valid lengths [6, 2, 0]", [&] {
    Rng rng(3);
    ParamStore store;
    auto scoring = r.scoring.create(name, ScoringArgs{ParamScope(store, rng, "s"), options, 5, 5});
    options.require_all_read(c.plugin());  // an option it does not read is a typo, not a default
    Var q = leaf(random_normal({3, 4, 5}, rng)), k = leaf(random_normal({3, 6, 5}, rng)), v = leaf(random_normal({3, 6, 2}, rng));
    const Var scores = scoring->score(q, k);
    if (!c.expect(scores.shape() == Shape{3, 4, 6}, "scores of shape [batch, queries, keys]", "queries [3, 4, 5], keys [3, 6, 5]",
                  "[3, 4, 6]", shape_str(scores.shape())))
      return;
    for (const IntTensor& lens : {IntTensor{6, 2, 0}, IntTensor{{1, 2, 3, 4}, {6, 0, 5, 1}, {0, 0, 2, 6}}})
      c.masked_weights("softmax of its scores, valid lengths " + lens_text(lens), masked_softmax(scores, lens).value(), lens, true);
    for (std::size_t b = 0; b < 3; ++b)
      c.close("each batch item scored alone scores the same", "item " + std::to_string(b) + " of 3",
              scoring->score(slice(q, 0, b, b + 1), slice(k, 0, b, b + 1)).value(), slice(scores, 0, b, b + 1).value(), 1e-5, 1e-5,
              "its scores within the batch");
    if (const std::optional<float> scale = scoring->dot_product_scale())
      c.close("a declared dot product (dot_product_scale) holds", "queries [3, 4, 5], keys [3, 6, 5]", scores.value(),
              bmm(q, k, false, true, *scale).value(), 1e-5, 1e-6, option_text(*scale) + " q k^T");
    c.gradients("gradients of attention through its scores", "queries [3, 4, 5], keys [3, 6, 5], valid lengths [6, 3, 1]",
                [&] { return attention_pooling(masked_softmax(scoring->score(q, k), IntTensor{6, 3, 1}), v).output; },
                leaves_of(store, {{"q", q}, {"k", k}, {"v", v}}), fd_step);
    different_sizes(c, r, name, options, k, fd_step);
  });
  return c.result();
}

}  // namespace attn
