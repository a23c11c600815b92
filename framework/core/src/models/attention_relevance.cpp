#include "attnlab/models/attention_relevance.hpp"

#include <algorithm>
#include <stdexcept>

#include "attnlab/autodiff/ops.hpp"

namespace attn {
namespace {

// Watching the weights for one backward pass, and not after it, whatever happens.
struct Watching {
  explicit Watching(HeadGates& g) : gates(g) { gates.watch_weights(true); }
  ~Watching() { gates.watch_weights(false); }
  Watching(const Watching&) = delete;
  Watching& operator=(const Watching&) = delete;
  HeadGates& gates;
};

}  // namespace

Tensor attention_relevance(Model& model, std::size_t example, const std::string& map) {
  HeadGates& g = model.head_gates();
  std::vector<std::size_t> sites;  // the layers of `map`, in order
  for (std::size_t s = 0; s < g.sites().size(); ++s)
    if (g.sites()[s].map == map) sites.push_back(s);
  if (sites.empty()) throw std::invalid_argument("the model has no attention layer of map '" + map + "'");
  std::sort(sites.begin(), sites.end(), [&](std::size_t a, std::size_t b) { return g.sites()[a].layer < g.sites()[b].layer; });
  const Watching watching(g);
  const LossResult r = model.prediction_loss({example});
  (0.0f - r.loss).backward();  // y = -L
  Tensor out;
  for (std::size_t l = 0; l < sites.size(); ++l) {
    const Var& gate = g.watched().at(sites[l]);  // [heads, n_q, n_k] for one example
    if (!gate.defined() || gate.ndim() != 3)
      throw std::logic_error("map '" + map + "' layer " + std::to_string(l) + " was not called by the model's loss");
    const std::size_t size = gate.dim(0) * gate.dim(1) * gate.dim(2);
    if (l == 0) out = xt::zeros<float>({sites.size(), gate.dim(0), gate.dim(1), gate.dim(2)});
    if (size * sites.size() != out.size()) throw std::logic_error("the layers of map '" + map + "' have weights of different shapes");
    std::copy(gate.grad().begin(), gate.grad().end(), out.begin() + static_cast<std::ptrdiff_t>(l * size));  // (zeros: y never reached them)
  }
  return out;
}

}  // namespace attn
