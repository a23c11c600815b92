// Model `vit`: the Vision Transformer of d2l 1.0 section 11.8 (Dosovitskiy et al. 2021), over an
// image given as its pixels on a grid (H x W vectors of C channels):
//   patches   X_p = patchify(image, p)           [B, m, p*p*C], m = (H/p)(W/p), row-major patches
//   embed     E = X_p W_e + b_e                   [B, m, d]   (d2l's conv of kernel = stride = p)
//   tokens    X = dropout([<cls>; E] + P)         [B, m+1, d] <cls> learned (zeros), P learned (or
//                                                 any positional scheme: option positional)
//   block     X = X + MHA(LN1(X))                 pre-norm; MHA without biases, dropout on weights
//             X = X + dropout(W_2 dropout(GELU(LN2(X) W_1 + b_1)) + b_2)
//   head      logits = LN(X[:, 0]) W_h + b_h      [B, classes]
// With pool: mean (d2l's exercise) there is no <cls>: X = dropout(E + P), and the head reads the
// mean of X over the patches.
// Options: pool, patch_size, d_model, mlp_hidden, heads, layers, emb_dropout, dropout, scoring,
// normalizer, positional, positional_options.*, position_init (the std of a learned P's initial
// N(0, s^2): 0.02 as the ViT paper and the next d2l edition; d2l 1.0 draws N(0, 1)). Linear weights start as PyTorch's, U(-a, a) with
// a = 1/sqrt(fan_in); biases at 0.
#include <cmath>

#include "attnlab/attention/attention.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/models/transformer_blocks.hpp"
#include "attnlab/nn/layer_norm.hpp"
#include "attnlab/nn/linear.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

struct VitConfig {
  std::size_t patch = 16, d_model = 512, mlp_hidden = 2048, heads = 8, layers = 2;
  float emb_dropout = 0.1f, dropout = 0.1f, position_init = 0.02f;
  bool cls = true;  // pool: cls (read <cls>) or mean (the mean over the patches, no <cls>)
  PluginChoice scoring{"scaled_dot", {}, ""};
  PluginChoice normalizer = AttentionConfig{}.normalizer;
  PluginChoice positional{"learned", {}, ""};
};

// The divisors of n up to n, as "1, 2, 4, 7, 14, 28".
std::string divisors(std::size_t n) {
  std::string out;
  for (std::size_t k = 1; k <= n; ++k)
    if (n % k == 0) out += (out.empty() ? "" : ", ") + std::to_string(k);
  return out;
}

VitConfig vit_config(const Options& o, const VectorData& data) {
  VitConfig c;
  c.patch = o.get<std::size_t>("patch_size", c.patch, 1, 4096);
  c.d_model = o.get<std::size_t>("d_model", c.d_model, 1, 1 << 16);
  c.mlp_hidden = o.get<std::size_t>("mlp_hidden", c.mlp_hidden, 1, 1 << 20);
  c.heads = o.get<std::size_t>("heads", c.heads, 1, 1024);
  c.layers = o.get<std::size_t>("layers", c.layers, 1, 64);
  c.emb_dropout = o.get<float>("emb_dropout", c.emb_dropout, 0.0f, 0.99f);
  c.dropout = o.get<float>("dropout", c.dropout, 0.0f, 0.99f);
  c.position_init = o.get<float>("position_init", c.position_init, 0.0f, 10.0f);
  c.scoring = plugin_choice(o, "scoring", c.scoring.name);
  c.normalizer = plugin_choice(o, "normalizer", c.normalizer.name);
  c.positional = positional_choice(o, c.positional.name);
  const std::string pool = o.get<std::string>("pool", "cls");
  if (pool != "cls" && pool != "mean") throw SpecError(o.where("pool"), "option 'pool' must be 'cls' or 'mean'; got '" + pool + "'");
  c.cls = pool == "cls";
  if (data.kind != InputKind::image || data.grid_rows == 0)
    throw SpecError(o.where("patch_size"), std::string("model 'vit' reads images (dataset fashion_mnist); this dataset gives ") +
                                               to_string(data.kind) + " (for those: encoder_classifier)");
  if (data.grid_rows % c.patch != 0 || data.grid_cols % c.patch != 0)
    throw SpecError(o.where("patch_size"), "option 'patch_size' (" + std::to_string(c.patch) + ") must divide the image's " +
                                               std::to_string(data.grid_rows) + " x " + std::to_string(data.grid_cols) +
                                               " pixels (dataset option 'resize'); sizes that do: " + divisors(data.grid_rows));
  if (c.d_model % c.heads != 0)
    throw SpecError(o.where("heads"), "option 'd_model' (" + std::to_string(c.d_model) + ") must be a multiple of 'heads' (" +
                                          std::to_string(c.heads) + ")");
  return c;
}

PositionsOf vit_positions(const VitConfig& c, std::size_t tokens) {
  PositionsOf p{c.d_model, c.heads, tokens};
  p.init_std = c.position_init;
  return p;
}

PreNormConfig block_config(const VitConfig& c, const Positions& positions, const SiteTag& site) {
  PreNormConfig b;
  b.site = site;
  b.d_model = c.d_model, b.mlp_hidden = c.mlp_hidden, b.heads = c.heads, b.dropout = c.dropout;
  b.scoring = c.scoring, b.normalizer = c.normalizer;
  b.positions = positions.in_attention();
  return b;
}

class Vit final : public Classifier {
 public:
  explicit Vit(const ModelArgs& a)
      : Classifier(a, "vit"),
        c_(vit_config(a.options, data_)),
        rows_(data_.grid_rows / c_.patch),
        cols_(data_.grid_cols / c_.patch),
        embed_(a.params.child("patch_embedding"), patch_dim(), c_.d_model, true, torch_linear(patch_dim())),
        cls_(c_.cls ? a.params.param("cls", {1, 1, c_.d_model}, Init::zeros()) : Var()),
        positions_(a.registries, c_.positional, a.params.child("positional"), vit_positions(c_, rows_ * cols_ + (c_.cls ? 1 : 0))),
        head_norm_(a.params.child("head").child("norm"), c_.d_model),
        head_(a.params.child("head").child("output"), c_.d_model, data_.classes.size(), true, torch_linear(c_.d_model)) {
    for (std::size_t l = 0; l < c_.layers; ++l)
      blocks_.emplace_back(a.registries, a.params.child("block" + std::to_string(l)), block_config(c_, positions_, site("encoder_self", l)));
  }

 protected:
  Var logits(const VectorBatch& batch, const ForwardContext& context, std::vector<Var>* weights) override {
    const std::size_t b = batch.size();
    Var x = embed_(patchify(constant(batch.vectors)));                                     // [B, m, d]
    if (c_.cls) x = concat({cls_ + constant(xt::zeros<float>({b, std::size_t(1), c_.d_model})), x}, 1);  // [B, m+1, d]
    x = positions_(x, context, c_.emb_dropout);
    for (const PreNormBlock& block : blocks_) {
      Var w;
      x = block(x, context, weights ? &w : nullptr);
      if (weights) weights->push_back(w);
    }
    const Var read = c_.cls ? reshape(slice(x, 1, 0, 1), {b, c_.d_model}) : mean(x, {1});  // [B, d]
    return head_(head_norm_(read));  // [B, classes]
  }

  std::vector<std::string> position_labels(const VectorBatch&, std::size_t) const override {
    std::vector<std::string> out;
    if (c_.cls) out.push_back("<cls>");
    for (std::size_t r = 0; r < rows_; ++r)
      for (std::size_t col = 0; col < cols_; ++col) out.push_back("(" + std::to_string(r) + "," + std::to_string(col) + ")");
    return out;
  }

 private:
  std::size_t patch_dim() const { return c_.patch * c_.patch * data_.dim; }

  // pixels [B, H*W, C] -> patches [B, (H/p)(W/p), p*p*C], each patch's pixels row by row.
  Var patchify(const Var& pixels) const {
    const std::size_t b = pixels.dim(0), p = c_.patch, ch = data_.dim;
    const Var grid = reshape(pixels, {b, rows_, p, cols_, p, ch});
    return reshape(permute(grid, {0, 1, 3, 2, 4, 5}), {b, rows_ * cols_, p * p * ch});
  }

  VitConfig c_;
  std::size_t rows_, cols_;
  Linear embed_;
  Var cls_;
  Positions positions_;
  std::vector<PreNormBlock> blocks_;
  LayerNorm head_norm_;
  Linear head_;
};

}  // namespace

void register_model_vit(Registry<Model, ModelArgs>& r) {
  r.add<Vit>("vit", "the Vision Transformer (d2l 11.8): patches of an image, <cls>, pre-norm blocks, a linear head");
}

}  // namespace attn
