#include "attnlab/plugin_choice.hpp"

namespace attn {

Options sub_options(const Options& options, const std::string& prefix) {
  Options out;
  const std::string dotted = prefix + ".";
  for (const std::string& key : options.keys())
    if (key.compare(0, dotted.size(), dotted) == 0) {
      out.set(key.substr(dotted.size()), options.text(key), options.where(key), options.key_where(key));
      options.mark_read(key);
    }
  return out;
}

PluginChoice plugin_choice(const Options& options, const std::string& key, const std::string& fallback) {
  return {options.get<std::string>(key, fallback), sub_options(options, key + "_options"), options.where(key)};
}

}  // namespace attn
