// The head-analysis part of the results format (layout.hpp): what `attnlab ablate` measured.
//   heads/                                  attrs replacement, baseline.<metric>
//   heads/ablation/<map>/<metric>           float32 [layer, head]: metric(head off) - metric
//   heads/layer_ablation/<map>/<metric>     float32 [layer]: metric(layer's attention off) - metric
//   heads/importance/<map>/importance, importance_raw   float32 [layer, head]
//   heads/pruning/kept, pruning/<metric>    float64 [step]; pruning/removed: "map/layer/head"
#include <cmath>

#include "attnlab/errors.hpp"
#include "lab/results/layout.hpp"

namespace attn::layout {
namespace {

const std::string baseline_prefix = "baseline.";

void write_grids(Hdf5File& f, const std::string& group, const std::vector<HeadGrid>& grids, bool per_layer,
                 const std::string& what) {
  f.create_group(group);
  for (const HeadGrid& g : grids) {
    f.create_group(group + "/" + g.map);
    for (const auto& [name, values] : g.values) {
      Tensor t = per_layer ? Tensor::from_shape({g.layers}) : Tensor::from_shape({g.layers, g.heads});
      std::copy(values.begin(), values.end(), t.begin());
      const std::string path = group + "/" + g.map + "/" + name;
      f.write(path, t);
      describe(f, path, per_layer ? "layer" : "layer,head", "", what + " (" + name + ", map " + g.map + ")");
    }
  }
}

// The grids of `group`: every dataset of a map [layer, head] (per_layer: [layer]), all of one
// shape; anything else is a damaged or hand-edited file.
std::vector<HeadGrid> read_grids(const Hdf5File& f, const std::string& group, bool per_layer) {
  std::vector<HeadGrid> out;
  if (!f.exists(group)) return out;
  for (const std::string& map : f.children(group)) {
    HeadGrid g{map, 0, 0, {}};
    for (const std::string& name : f.children(group + "/" + map)) {
      const std::string path = group + "/" + map + "/" + name;
      const Tensor t = f.read(path);
      const std::size_t layers = t.dimension() >= 1 ? t.shape()[0] : 0, heads = per_layer ? 1 : t.dimension() == 2 ? t.shape()[1] : 0;
      if (t.dimension() != (per_layer ? 1u : 2u) || layers == 0 || heads == 0 || (!g.values.empty() && (layers != g.layers || heads != g.heads)))
        throw FileError(f.path() + ": " + path + " has shape " + shape_str(shape_of(t)) + ", not " + (per_layer ? "[layer]" : "[layer, head]") +
                        " as the map's other grids (a damaged or edited file)");
      g.layers = layers, g.heads = heads;
      g.values[name] = std::vector<double>(t.begin(), t.end());
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

void write_head_analysis(Hdf5File& f, const std::string& group, const HeadAnalysis& a) {
  f.remove(group);
  f.create_group(group);
  f.set_attr(group, "replacement", a.replacement);
  for (const auto& [name, value] : a.baseline) f.set_attr(group, baseline_prefix + name, value);
  write_grids(f, group + "/ablation", a.ablation, false, "the change of the metric with this head switched off");
  write_grids(f, group + "/layer_ablation", a.layer_ablation, true, "the change of the metric with this layer's attention switched off");
  write_grids(f, group + "/importance", a.importance, false, "head importance, Michel et al. 2019");
  if (a.pruning.kept.empty()) return;
  const std::string p = group + "/pruning";
  f.create_group(p);
  f.write(p + "/kept", a.pruning.kept);
  describe(f, p + "/kept", "step", "share", "the share of heads kept at each step of the pruning");
  for (const auto& [name, values] : a.pruning.metrics) {
    f.write(p + "/" + name, values);
    describe(f, p + "/" + name, "step", "metric", "the model's " + name + " with the heads kept at each step");
  }
  if (a.pruning.removed.empty()) return;
  f.write(p + "/removed", a.pruning.removed);
  describe(f, p + "/removed", "step", "map/layer/head", "the heads in the order pruning removed them");
}

std::optional<HeadAnalysis> read_head_analysis(const Hdf5File& f, const std::string& group) {
  if (!f.exists(group)) return std::nullopt;
  HeadAnalysis a;
  a.replacement = f.attr_string(group, "replacement");
  for (const std::string& name : f.attr_names(group))
    if (name.rfind(baseline_prefix, 0) == 0) a.baseline[name.substr(baseline_prefix.size())] = f.attr_double(group, name);
  a.ablation = read_grids(f, group + "/ablation", false);
  a.layer_ablation = read_grids(f, group + "/layer_ablation", true);
  a.importance = read_grids(f, group + "/importance", false);
  const std::string p = group + "/pruning";
  if (f.exists(p)) {
    for (const std::string& name : f.children(p)) {
      if (name == "removed") a.pruning.removed = f.read_strings(p + "/removed");
      else if (name == "kept") a.pruning.kept = f.read_doubles(p + "/kept");
      else a.pruning.metrics[name] = f.read_doubles(p + "/" + name);
    }
    for (const auto& [name, values] : a.pruning.metrics)
      if (values.size() != a.pruning.kept.size())
        throw FileError(f.path() + ": " + p + "/" + name + " has " + std::to_string(values.size()) + " steps, pruning/kept " +
                        std::to_string(a.pruning.kept.size()) + " (a damaged or edited file)");
  }
  return a;
}

}  // namespace attn::layout
