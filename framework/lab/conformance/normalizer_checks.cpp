// The conformance checks of a normalizer, held to its declared traits (conformance.hpp).
#include "lab/conformance/conformance.hpp"

namespace attn {

ConformanceRun check_normalizer(const Registries& r, const std::string& name, const Options& options, float fd_step) {
  Checker c(r.normalizers.describe(name), "");
  c.guarded("builds and normalizes", "scores [3, 4, 6], valid lengths [6, 2, 0], then [[1, 2, 3, 4], [6, 0, 5, 1], [0, 0, 2, 6]]", [&] {
    Rng rng(5);
    ParamStore store;
    auto normalizer = r.normalizers.create(name, NormalizerArgs{ParamScope(store, rng, "n"), options});
    options.require_all_read(c.plugin());  // an option it does not read is a typo, not a default
    const NormalizerTraits traits = normalizer->traits();
    Tensor raw = random_normal({3, 4, 6}, rng);
    if (traits.non_negative_scores_only) raw = xt::abs(raw) + 0.1f;
    Var scores = leaf(raw);
    for (const IntTensor& lens : {IntTensor{6, 2, 0}, IntTensor{{1, 2, 3, 4}, {6, 0, 5, 1}, {0, 0, 2, 6}}}) {
      const Var weights = normalizer->normalize(scores, lens);
      if (c.expect(weights.shape() == scores.shape(), "weights of the scores' shape", "scores [3, 4, 6]", "[3, 4, 6]",
                   shape_str(weights.shape())))
        c.masked_weights("scores [3, 4, 6], valid lengths " + lens_text(lens) + (traits.rows_sum_to_one ? "" : " (rows need not sum to 1)"),
                         weights.value(), lens, traits.rows_sum_to_one);
    }
    const int len[] = {6, 3, 1};
    const Var together = normalizer->normalize(scores, IntTensor{6, 3, 1});
    for (std::size_t b = 0; b < 3; ++b)
      c.close("each batch item normalized alone gets the same weights", "item " + std::to_string(b) + " of 3, valid length " + std::to_string(len[b]),
              normalizer->normalize(slice(scores, 0, b, b + 1), IntTensor{len[b]}).value(), slice(together, 0, b, b + 1).value(), 1e-6,
              1e-6, "its weights within the batch");
    if (traits.masked_softmax)
      c.close("a declared masked softmax (traits().masked_softmax) holds", "scores [3, 4, 6], valid lengths [6, 3, 1]", together.value(),
              masked_softmax(scores, IntTensor{6, 3, 1}).value(), 1e-6, 1e-6, "the masked softmax");
    if (traits.non_negative_scores_only) {
      std::string refusal = "no error";
      try {
        normalizer->normalize(leaf(-raw), IntTensor{6, 3, 1});
      } catch (const std::exception& e) {
        refusal = e.what();
      }
      c.expect(refusal.find("negative") != std::string::npos, "negative scores refused (traits().non_negative_scores_only)",
               "scores [3, 4, 6], all negative", "an error that says 'negative'", refusal);
    }
    // A piecewise-linear normalizer (sparsemax) has kinks: a small step stays on one piece.
    c.gradients("gradients", "scores [3, 4, 6], valid lengths [6, 3, 1]",
                [&] { return normalizer->normalize(scores, IntTensor{6, 3, 1}); }, leaves_of(store, {{"scores", scores}}),
                fd_step > 0.0f ? fd_step : 1e-3f);
  });
  return c.result();
}

}  // namespace attn
