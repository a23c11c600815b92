// Model `encoder_classifier`: one label per input (a sentence's sentiment, an image's class,
// a spoken word) from the Transformer's encoder (d2l 11.7) over any set of vectors:
//   X = E[ids] sqrt(d)  (tokens)   or   X = x W_in + b_in  (feature vectors)     [B, n, d]
//   pool cls:  X = [<cls>; X]  (a learned vector first; valid lengths + 1)
//   X = dropout(X (+ P))        positional: any scheme (default sinusoidal); rope, alibi and
//                               t5_bias act in the blocks' self-attention instead
//   H = encoder blocks          LN(X + MHA(X)), LN(Y + FFN(Y)); padded positions masked;
//                               on a graph (mask_edges) node i attends only to its neighbours
//                               (and <cls>): masked_score off the adjacency
//   pool cls:  h = H[:, 0]      pool mean: h = mean of H over each set's valid positions
//   logits = h W + b            [B, classes]
// Options: d_model, heads, layers, ffn_hidden, dropout, scoring, normalizer, window, positional,
// positional_options.*, max_len, pool, mask_edges.
#include <cmath>

#include "attnlab/attention/positions.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/option_choice.hpp"
#include "attnlab/models/transformer_blocks.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

class EncoderClassifier final : public Classifier {
 public:
  explicit EncoderClassifier(const ModelArgs& a)
      : Classifier(a, "encoder_classifier"),
        c_(block_options(a.options, 0.0f)),
        pool_(option_choice(a.options, "pool", "cls", {"cls", "mean"})),
        max_len_(a.options.get<std::size_t>("max_len", std::max<std::size_t>(data_.max_len + 1, 1000), 1, 1 << 20)),
        mask_edges_(a.options.get<bool>("mask_edges", true)) {
    if (a.options.has("mask_edges") && data_.kind != InputKind::graph)
      throw SpecError(a.options.where("mask_edges"), std::string("option 'mask_edges' is for graphs; this dataset's inputs are ") +
                                                       to_string(data_.kind));
    const std::size_t positions = data_.max_len + (pool_ == "cls" ? 1 : 0);
    if (max_len_ < positions)
      throw SpecError(a.options.where("max_len"), "option 'max_len' (" + std::to_string(max_len_) + ") must be at least the " +
                                                      std::to_string(positions) + " positions of the dataset's longest input" +
                                                      (pool_ == "cls" ? " and <cls>" : ""));
    const ParamScope scope = a.params.child("encoder");
    if (data_.kind == InputKind::tokens) embedding_.emplace(scope.child("embedding"), data_.vocab.size(), c_.d_model);
    else input_.emplace(scope.child("input"), data_.dim, c_.d_model);
    if (pool_ == "cls") cls_ = scope.param("cls", {1, 1, c_.d_model}, Init::normal(0.02f));
    positions_.emplace(a.registries, positional_choice(a.options, "sinusoidal"), scope.child("positional"),
                       PositionsOf{c_.d_model, c_.heads, max_len_});
    c_ = with_positions(c_, *positions_);
    for (std::size_t l = 0, layers = a.options.get<std::size_t>("layers", 2, 1, 64); l < layers; ++l) {
      c_.site = site("encoder_self", l);
      blocks_.emplace_back(a.registries, scope.child("block" + std::to_string(l)), c_);
    }
    output_.emplace(a.params.child("output"), c_.d_model, data_.classes.size());
  }

 protected:
  Var logits(const VectorBatch& batch, const ForwardContext& context, std::vector<Var>* weights) override {
    const std::size_t b = batch.size();
    Var x = embedding_ ? (*embedding_)(batch.tokens) * std::sqrt(static_cast<float>(c_.d_model))
                       : (*input_)(constant(batch.vectors));  // [B, n, d]
    IntTensor lens = batch.lens;
    if (cls_.defined()) {
      x = concat({cls_ + constant(xt::zeros<float>({b, std::size_t(1), c_.d_model})), x}, 1);  // [B, 1+n, d]
      lens += 1;
    }
    x = (*positions_)(x, context, c_.dropout);
    const bool edges = mask_edges_ && batch.adjacency.dimension() == 3;
    const Var structure = edges ? structure_bias(batch.adjacency, cls_.defined() ? 1 : 0) : Var();
    for (const TransformerEncoderBlock& block : blocks_) {
      Var w;
      x = block(x, ValidLens(lens), context, weights ? &w : nullptr, structure);
      if (weights) weights->push_back(w);
    }
    const Var pooled = pool_ == "cls" ? reshape(slice(x, 1, 0, 1), {b, c_.d_model}) : masked_mean(x, lens);  // [B, d]
    return (*output_)(pooled);
  }

  std::vector<std::string> position_labels(const VectorBatch& batch, std::size_t row) const override {
    std::vector<std::string> out = Classifier::position_labels(batch, row);
    if (cls_.defined()) out.insert(out.begin(), "<cls>");
    return out;
  }

 private:
  // Mean over each row's first lens[b] positions: x [B, n, d] -> [B, d].
  static Var masked_mean(const Var& x, const IntTensor& lens) {
    const std::size_t b = x.dim(0), n = x.dim(1);
    Tensor w = xt::zeros<float>({b, n, std::size_t(1)});
    for (std::size_t i = 0; i < b; ++i)
      for (std::size_t j = 0; j < static_cast<std::size_t>(std::max(lens(i), 0)) && j < n; ++j) w(i, j, 0) = 1.0f / static_cast<float>(lens(i));
    return sum(x * constant(std::move(w)), {1});
  }

  TransformerBlockConfig c_;
  std::string pool_;
  std::size_t max_len_;
  bool mask_edges_;  // graphs: attention follows the edges
  std::optional<Embedding> embedding_;
  std::optional<Linear> input_;
  Var cls_;
  std::optional<Positions> positions_;
  std::vector<TransformerEncoderBlock> blocks_;
  std::optional<Linear> output_;
};

}  // namespace

void register_model_encoder_classifier(Registry<Model, ModelArgs>& r) {
  r.add<EncoderClassifier>("encoder_classifier", "a Transformer encoder over a set of vectors (tokens, pixels, frames, a graph's nodes), one label per input (pool cls or mean)");
}

}  // namespace attn
