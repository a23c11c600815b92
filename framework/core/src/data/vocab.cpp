#include "attnlab/data/vocab.hpp"

#include <algorithm>
#include <stdexcept>

namespace attn {

Vocab::Vocab(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
  for (std::size_t i = 0; i < tokens_.size(); ++i)
    if (!index_.emplace(tokens_[i], static_cast<int>(i)).second)
      throw std::invalid_argument("vocabulary has token '" + tokens_[i] + "' twice");
}

Vocab Vocab::build(const std::vector<std::vector<std::string>>& sentences, std::size_t min_freq,
                   bool with_unk) {
  std::vector<std::string> order;  // first appearance
  std::unordered_map<std::string, std::size_t> counts;
  for (const auto& s : sentences)
    for (const auto& t : s)
      if (counts[t]++ == 0) order.push_back(t);
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return counts[a] > counts[b]; });
  std::vector<std::string> tokens = {"<pad>", "<bos>", "<eos>"};
  if (with_unk) tokens.push_back("<unk>");
  for (const auto& t : order)
    if (counts[t] >= min_freq && std::find(tokens.begin(), tokens.end(), t) == tokens.end()) tokens.push_back(t);
  return Vocab(std::move(tokens));
}

int Vocab::id(const std::string& token) const {
  const auto it = index_.find(token);
  if (it != index_.end()) return it->second;
  if (has_unk()) return unk;
  throw std::out_of_range("token '" + token + "' is not in the vocabulary (which has no <unk>)");
}

const std::string& Vocab::token(int id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= tokens_.size())
    throw std::out_of_range("token id " + std::to_string(id) + " outside the vocabulary of " +
                            std::to_string(tokens_.size()));
  return tokens_[static_cast<std::size_t>(id)];
}

std::vector<int> Vocab::encode(const std::vector<std::string>& tokens) const {
  std::vector<int> ids;
  for (const auto& t : tokens) ids.push_back(id(t));
  return ids;
}

std::vector<std::string> Vocab::decode(const std::vector<int>& ids) const {
  std::vector<std::string> out;
  for (int i : ids) {
    if (i == eos) break;
    if (i != pad && i != bos) out.push_back(token(i));
  }
  return out;
}

std::string join_tokens(const std::vector<std::string>& tokens) {
  std::string s;
  for (std::size_t i = 0; i < tokens.size(); ++i) s += (i ? " " : "") + tokens[i];
  return s;
}

std::vector<std::string> split_tokens(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace attn
