// Interventions on attention heads: switching heads off (ablation), replacing them by their
// mean, and Michel et al.'s (2019) head importance. Each attention layer of a model that takes
// part is a site (its map kind and layer) with `heads` heads; the gate xi of a site multiplies
// each head's output o_h (its attention-weighted values, before the heads are merged and W_o):
//   o_h' = xi_h o_h + (1 - xi_h) m_h       m_h: 0, or the head's mean output (replace_by_mean)
// xi = 1 everywhere is the model itself; xi_h = 0 switches head h off, and all of a site's heads
// at 0 switch off its layer's attention. A gate [B, heads] gives each example its own xi, so
// dL/dxi_{b,h} is example b's sensitivity to head h (the importance, docs/concepts/what-attention-computes.md).
// The model owns its gates (Model::head_gates); its attention layers are built with a pointer
// to them and apply the gates of their site at every call (training, evaluation, decoding).
// For gradient-weighted rollout (Chefer et al. 2021) the gates can also watch the attention
// weights A [B*heads, n_q, n_k] of every site: A passes through a gate of ones G (A ⊙ G = A), so
// that after a backward pass of an output y, dy/dG = dy/dA ⊙ A (attention_relevance.hpp).
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "attnlab/autodiff/var.hpp"

namespace attn {

class HeadGates;

struct HeadSite {
  std::string map;           // the map kind its weights are recorded as: encoder_self, cross, ...
  std::size_t layer = 0;     // its layer in that map's stack
  std::size_t heads = 1, head_dim = 0;
};

// Where an attention layer sits, given to it by its model (AttentionConfig::site).
struct SiteTag {
  HeadGates* gates = nullptr;  // none: the layer takes no part in interventions
  std::string map;
  std::size_t layer = 0;
  std::size_t heads = 0;  // a caller that splits heads into the batch itself says how many (gat)
  SiteTag at(std::string m, std::size_t l) const { return {gates, std::move(m), l, heads}; }
};

class HeadGates {
 public:
  // An attention layer's site, at construction; returns its index.
  std::size_t add_site(const HeadSite& site);
  const std::vector<HeadSite>& sites() const { return sites_; }
  // The index of (map, layer); sites().size() when there is none.
  std::size_t find(const std::string& map, std::size_t layer) const;
  // A site's map, once its layer knows what it attends to (a seq2seq decoder whose mode reads
  // its own state: decoder_state, not cross).
  void rename(std::size_t site, const std::string& map) { sites_.at(site).map = map; }

  // Site `site`'s gate: [heads] (every example) or [B, heads] (per example). `replacement`
  // [heads, head_dim]: what a gated-off head becomes (empty: 0).
  void set(std::size_t site, const Var& gate, Tensor replacement = {});
  void clear();  // every gate off: the model itself
  bool active() const { return !gates_.empty(); }

  // Accumulating each head's mean output over the calls that follow (every query row of every
  // call, padding rows included: the mean replacement m_h), until finish_means() returns them
  // per site, [heads, head_dim] (zeros for a site never called).
  void start_means();
  std::vector<Tensor> finish_means();

  // The layer's call: its heads' output [B*heads, n_q, p] (rows b*heads + h), gated.
  Var apply(std::size_t site, const Var& heads_out);

  // Watching the weights (see above): while on, each site's layer passes its weights through
  // watch(), which keeps the site's gate G of this call (a call under NoGrad is passed by;
  // a second call of a site is std::invalid_argument); watched() holds them per site
  // (undefined for a site not called since watching began). One thread watches at a time:
  // a model runs its pass on one thread.
  void watch_weights(bool on);
  bool watching_weights() const { return watching_; }
  Var watch(std::size_t site, const Var& weights);
  const std::vector<Var>& watched() const { return watched_; }

 private:
  struct Gate {
    Var gate;           // [G, heads, 1, 1], G = 1 or B
    Var replacement;    // [G, heads, 1, p] = (1 - gate) m, or undefined
  };
  std::vector<HeadSite> sites_;
  std::vector<Gate> gates_;                      // per site when active
  bool recording_ = false;
  std::vector<Tensor> sums_;                     // per site [heads, head_dim]
  std::vector<double> counts_;
  std::mutex record_mutex_;
  bool watching_ = false;
  std::vector<Var> watched_;  // per site while watching
};

}  // namespace attn
