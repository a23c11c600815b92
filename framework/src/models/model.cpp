#include "attnlab/models/model.hpp"

namespace attn {

Options sub_options(const Options& options, const std::string& prefix) {
  Options out;
  const std::string dotted = prefix + ".";
  for (const std::string& key : options.keys())
    if (key.compare(0, dotted.size(), dotted) == 0) {
      out.set(key.substr(dotted.size()), options.text(key), options.where(key));
      options.mark_read(key);
    }
  return out;
}

}  // namespace attn
