// Sweep expansion: the Cartesian product of the sweep axes, keys in the order written, the last
// one varying fastest. Each point is the fixed table with the swept keys set to the point's values.
#include <cctype>

#include "lab/spec/stages.hpp"

namespace attn {

std::vector<PointSpec> expand_sweep(const WrittenSpec& spec) {
  std::vector<PointSpec> points;
  std::vector<std::size_t> index(spec.sweep.size(), 0);
  while (true) {
    PointSpec p{spec.table, {}};
    for (std::size_t a = 0; a < spec.sweep.size(); ++a) {
      const SpecValue& v = spec.sweep[a].values;
      p.table[spec.sweep[a].key] = SpecValue{{v.items[index[a]]}, {v.item_where[index[a]]}, false, v.where};
      p.point.emplace_back(spec.sweep[a].key, v.items[index[a]]);
    }
    points.push_back(std::move(p));
    std::size_t a = spec.sweep.size();
    while (a > 0 && ++index[a - 1] == spec.sweep[a - 1].values.items.size()) index[--a] = 0;
    if (a == 0) return points;
  }
}

std::string run_id(const SweepPoint& point) {
  if (point.empty()) return "run";
  // The last segment of each swept key, unless two keys share it.
  std::map<std::string, int> last_count;
  for (const auto& [k, v] : point) last_count[k.substr(k.find_last_of('.') + 1)]++;
  std::string id;
  for (const auto& [k, v] : point) {
    const std::string last = k.substr(k.find_last_of('.') + 1);
    std::string part = (last_count[last] > 1 ? k : last) + "-" + v;
    for (char& c : part)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) c = '_';
    id += (id.empty() ? "" : "_") + part;
  }
  return id;
}

}  // namespace attn
