// Model `gat`: the graph attention network of Velickovic et al. (2018), which classifies a
// graph's nodes. It is masked self-attention over the nodes, with an additive scoring function
// and the adjacency as the mask:
//   layer l:  Z = dropout(H) W_l                  [B, n, heads * F], split into heads [B*heads, n, F]
//             e_ij = score(z_i, z_j)              gat: LeakyReLU(a_q . z_i + a_k . z_j) (any scoring)
//             alpha_ij = softmax_j(e_ij) over j in N(i) + {i}   (the adjacency: masked_score off it)
//             h_i' = sum_j dropout(alpha_ij) z_j  heads concatenated, then ELU
//   last:     the same with out_heads heads of size classes, averaged: the node's logits [B, n, C]
// Options: hidden (F), heads, layers, out_heads, dropout (inputs of each layer and the weights),
// scoring, normalizer, positional (default none: a graph's nodes have no order; any other scheme
// makes node numbers positions, in every layer: added to Z (sinusoidal, learned) or inside its
// attention (rope, alibi, t5_bias), and the model is then no longer the same under a
// renumbering of the nodes). The weights W_l are Glorot-uniform, as the paper's code.
#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/positions.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/models/transformer_blocks.hpp"
#include "attnlab/nn/linear.hpp"
#include "attnlab/registries.hpp"
#include "attnlab/registry.hpp"

namespace attn {
namespace {

AttentionConfig graph_attention(const Options& o, float dropout) {
  AttentionConfig c;
  c.mode = {"qkv", {}, ""};  // the heads are split by the model: one W for queries, keys and values
  c.scoring = plugin_choice(o, "scoring", "gat");
  c.normalizer = plugin_choice(o, "normalizer", c.normalizer.name);
  c.dropout = dropout;
  return c;
}

class GatLayer {
 public:
  GatLayer(const PluginKinds& kinds, const ParamScope& s, AttentionConfig config, const PluginChoice& positional, std::size_t nodes,
           std::size_t in, std::size_t heads, std::size_t out)
      : w_(s.child("W"), in, heads * out, false),
        positions_(kinds, positional, s.child("positional"), PositionsOf{heads * out, heads, nodes}),
        attention_(kinds, s.child("attention"), with_positions(std::move(config), positions_), out, out, out),
        heads_(heads) {}

  // h [B, n, in], bias [B, n, n] -> per head [B*heads, n, out]; the weights [B, heads, n, n] to *weights.
  Var operator()(const Var& h, const Var& bias, const ForwardContext& context, float dropout, Var* weights) const {
    const Var z = split_heads(positions_(w_(context.dropout(h, dropout)), context, 0.0f), heads_);  // [B*heads, n, out]
    const AttentionResult a = attention_({z, z, z}, std::nullopt, context, bias);
    if (weights) {
      const std::size_t b = h.dim(0), n = h.dim(1);
      *weights = reshape(a.weights, {b, heads_, n, n});
    }
    return a.output;
  }

 private:
  static AttentionConfig with_positions(AttentionConfig config, const Positions& positions) {
    config.positions = positions.in_attention();  // (the heads are in the batch axis, b * heads + h)
    return config;
  }

  Linear w_;
  Positions positions_;
  Attention attention_;
  std::size_t heads_;
};

class GraphAttentionNetwork final : public Classifier {
 public:
  explicit GraphAttentionNetwork(const ModelArgs& a)
      : Classifier(a, "gat", true) {
    const Options& o = a.options;
    const std::size_t hidden = o.get<std::size_t>("hidden", 8, 1, 1 << 16), layers = o.get<std::size_t>("layers", 2, 1, 16);
    heads_ = o.get<std::size_t>("heads", 8, 1, 256);
    out_heads_ = o.get<std::size_t>("out_heads", 1, 1, 256);
    dropout_ = o.get<float>("dropout", 0.6f, 0.0f, 0.99f);
    if (data_.kind != InputKind::graph)
      throw SpecError(o.where("hidden"), std::string("model 'gat' classifies the nodes of a graph (dataset graph); this dataset gives ") +
                                             to_string(data_.kind) + " (for those: encoder_classifier, vit)");
    const PluginChoice positional = positional_choice(o, "none");
    // the sites of the maps: hidden layers 0 .. layers - 2, and the output layer
    const auto config = [&](const std::string& map, std::size_t l, std::size_t heads) {
      AttentionConfig c = graph_attention(o, dropout_);
      c.site = site(map, l), c.site.heads = heads;
      return c;
    };
    std::size_t in = data_.dim;
    for (std::size_t l = 0; l + 1 < layers; ++l, in = heads_ * hidden)
      layers_.emplace_back(a.registries, a.params.child("layer" + std::to_string(l)), config("hidden", l, heads_), positional,
                           data_.max_len, in, heads_, hidden);
    layers_.emplace_back(a.registries, a.params.child("layer" + std::to_string(layers - 1)), config("output", 0, out_heads_),
                         positional, data_.max_len, in, out_heads_, data_.classes.size());
  }

  NamedTensors plot_data() override {
    NamedTensors out = Classifier::plot_data();
    const IntTensor adjacency = data_.train.sets->batch({0}).adjacency;  // [1, n, n]
    Tensor a = Tensor::from_shape({adjacency.shape()[1], adjacency.shape()[2]});
    std::copy(adjacency.begin(), adjacency.end(), a.begin());
    out.emplace_back("adjacency", std::move(a));
    return out;
  }

 protected:
  Var logits(const VectorBatch& batch, const ForwardContext& context, std::vector<Var>* weights) override {
    const std::size_t b = batch.size(), n = batch.vectors.shape()[1], classes = data_.classes.size();
    const Var mask = structure_bias(batch.adjacency);  // 0 on an edge (and a node's own loop), masked_score off it
    Var h = constant(batch.vectors);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      Var w;
      const Var out = layers_[l](h, mask, context, dropout_, weights ? &w : nullptr);  // [B*heads, n, F]
      if (weights) weights->push_back(w);
      const bool last = l + 1 == layers_.size();
      h = last ? mean(reshape(out, {b, out_heads_, n, classes}), {1})  // [B, n, C]: heads averaged
               : elu(merge_heads(out, heads_));                         // [B, n, heads * F]: concatenated
    }
    return h;
  }

  // The hidden layers' attention ("hidden", [B, layers - 1, heads, n, n]) and the output
  // layer's ("output", [B, 1, out_heads, n, n]): their head counts differ.
  std::vector<std::pair<std::string, Tensor>> maps_of(const std::vector<Var>& weights) const override {
    std::vector<std::pair<std::string, Tensor>> out;
    if (weights.size() > 1) out.emplace_back("hidden", stack_layers({weights.begin(), weights.end() - 1}));
    out.emplace_back("output", stack_layers({weights.back()}));
    return out;
  }

  std::vector<std::string> position_labels(const VectorBatch& batch, std::size_t) const override {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < batch.vectors.shape()[1]; ++i) out.push_back(std::to_string(i));
    return out;
  }

 private:
  std::size_t heads_ = 8, out_heads_ = 1;
  float dropout_ = 0.6f;
  std::vector<GatLayer> layers_;
};

}  // namespace

void register_model_gat(Registry<Model, ModelArgs>& r) {
  r.add<GraphAttentionNetwork>("gat", "graph attention network (Velickovic et al.): masked self-attention over a graph's nodes, a label per node");
}

}  // namespace attn
