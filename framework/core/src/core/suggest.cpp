#include "attnlab/suggest.hpp"

#include <algorithm>
#include <string>

namespace attn {

namespace {

// The characters of UTF-8 text (a byte that does not start a valid sequence counts as one), so
// that "modèle" is 2 edits from "model", not 3.
std::u32string characters(const std::string& text) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    char32_t code = n == 1 ? c : c & (0x7F >> n);
    std::size_t k = 1;
    for (; k < n && i + k < text.size() && (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2; ++k)
      code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    out.push_back(k == n ? code : c);
    i += k == n ? n : 1;
  }
  return out;
}

}  // namespace

std::size_t edit_distance(const std::string& a_text, const std::string& b_text) {
  // Optimal string alignment distance over characters, rows of the DP table kept two at a time.
  const std::u32string a = characters(a_text), b = characters(b_text);
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_name(const std::string& name, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const std::string& k : known) {
    const std::size_t d = edit_distance(name, k);
    if (d < best_distance) best_distance = d, best = k;
  }
  // A plausible typo: at most a third of the longer name differs (at least 1, at most 3 edits).
  const std::size_t allowed = std::clamp<std::size_t>(std::max(characters(name).size(), characters(best).size()) / 3, 1, 3);
  return best_distance <= allowed ? best : "";
}

std::string unknown_name_message(const std::string& what, const std::string& name,
                                 std::vector<std::string> known) {
  std::sort(known.begin(), known.end());
  std::string msg = "unknown " + what + " '" + name + "'";
  const std::string guess = closest_name(name, known);
  msg += guess.empty() ? ";" : "; did you mean '" + guess + "'?";
  msg += " known: ";
  if (known.empty()) msg += "(none)";
  for (std::size_t i = 0; i < known.size(); ++i) msg += (i ? ", " : "") + known[i];
  return msg;
}

}  // namespace attn
