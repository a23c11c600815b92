#include "attnlab/attention/head_gates.hpp"

#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"

namespace attn {

std::size_t HeadGates::add_site(const HeadSite& site) {
  if (find(site.map, site.layer) != sites_.size())
    throw std::logic_error("two attention layers claim map '" + site.map + "', layer " + std::to_string(site.layer));
  sites_.push_back(site);
  return sites_.size() - 1;
}

std::size_t HeadGates::find(const std::string& map, std::size_t layer) const {
  for (std::size_t i = 0; i < sites_.size(); ++i)
    if (sites_[i].map == map && sites_[i].layer == layer) return i;
  return sites_.size();
}

void HeadGates::set(std::size_t site, const Var& gate, Tensor replacement) {
  const HeadSite& s = sites_.at(site);
  const std::size_t rows = gate.ndim() == 2 ? gate.dim(0) : 1;
  if (gate.ndim() < 1 || gate.ndim() > 2 || gate.dim(gate.ndim() - 1) != s.heads)
    throw std::invalid_argument("a gate of map '" + s.map + "' layer " + std::to_string(s.layer) + " has shape " +
                                shape_str(gate.shape()) + "; expected [" + std::to_string(s.heads) + "] or [B, " +
                                std::to_string(s.heads) + "]");
  if (gates_.empty()) gates_.resize(sites_.size());
  Gate& g = gates_[site];
  g.gate = reshape(gate, {rows, s.heads, 1, 1});
  g.replacement = Var();
  if (replacement.dimension() == 0 || replacement.size() == 0) return;  // (a default Tensor is a 0-d scalar)
  replacement.reshape({1, s.heads, 1, s.head_dim});
  g.replacement = (1.0f - g.gate) * constant(std::move(replacement));  // [G, heads, 1, p]
}

void HeadGates::clear() { gates_.clear(); }

void HeadGates::watch_weights(bool on) {
  watching_ = on;
  watched_.assign(on ? sites_.size() : 0, Var());
}

Var HeadGates::watch(std::size_t site, const Var& weights) {
  if (!watching_ || !graph_recording()) return weights;  // (decoding under NoGrad is not the pass explained)
  if (watched_.at(site).defined())
    throw std::invalid_argument("map '" + sites_[site].map + "' layer " + std::to_string(sites_[site].layer) +
                                " is called more than once in the pass explained (a recurrent decoder's attention, once per step): "
                                "the relevance of its weights would mix its calls");
  Tensor ones = xt::ones<float>(weights.shape());
  Var gate = leaf(std::move(ones));
  watched_.at(site) = gate;
  return weights * gate;
}

void HeadGates::start_means() {
  std::lock_guard<std::mutex> lock(record_mutex_);
  recording_ = true;
  sums_.clear(), counts_.assign(sites_.size(), 0.0);
  for (const HeadSite& s : sites_) sums_.push_back(xt::zeros<float>({s.heads, s.head_dim}));
}

std::vector<Tensor> HeadGates::finish_means() {
  std::lock_guard<std::mutex> lock(record_mutex_);
  recording_ = false;
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < sums_.size(); ++i) out.push_back(counts_[i] > 0 ? Tensor(sums_[i] / static_cast<float>(counts_[i])) : sums_[i]);
  return out;
}

Var HeadGates::apply(std::size_t site, const Var& heads_out) {
  const HeadSite& s = sites_.at(site);
  if (heads_out.ndim() != 3 || heads_out.dim(0) % s.heads != 0 || heads_out.dim(2) != s.head_dim)
    throw std::logic_error("map '" + s.map + "' layer " + std::to_string(s.layer) + ": its heads' output " + shape_str(heads_out.shape()) +
                           " is not [B * " + std::to_string(s.heads) + ", n, " + std::to_string(s.head_dim) + "]");
  const std::size_t batch = heads_out.dim(0) / s.heads, n_q = heads_out.dim(1), p = heads_out.dim(2);
  if (std::lock_guard<std::mutex> lock(record_mutex_); recording_) {
    const float* o = heads_out.value().data();  // rows b*heads + h, [n_q, p] each
    float* sum = sums_[site].data();
    for (std::size_t r = 0; r < batch * s.heads; ++r)
      for (std::size_t q = 0; q < n_q; ++q)
        for (std::size_t d = 0; d < p; ++d) sum[(r % s.heads) * p + d] += o[(r * n_q + q) * p + d];
    counts_[site] += static_cast<double>(batch * n_q);
  }
  if (!active() || !gates_[site].gate.defined()) return heads_out;
  const Gate& g = gates_[site];
  if (g.gate.dim(0) != 1 && g.gate.dim(0) != batch)
    throw std::invalid_argument("a per-example gate of " + std::to_string(g.gate.dim(0)) + " rows meets a batch of " + std::to_string(batch));
  Var out = reshape(heads_out, {batch, s.heads, n_q, p}) * g.gate;
  if (g.replacement.defined()) out = out + g.replacement;
  return reshape(out, {batch * s.heads, n_q, p});
}

}  // namespace attn
