// A vocabulary: token <-> id. Reserved tokens come first (<pad> 0, <bos> 1, <eos> 2, and
// <unk> 3 when the vocabulary has one), then the tokens by descending frequency, ties in order
// of first appearance (d2l's Vocab, with its reserved tokens in this order).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace attn {

class Vocab {
 public:
  static constexpr int pad = 0, bos = 1, eos = 2, unk = 3;

  Vocab() = default;
  // Exactly these tokens in this order (the reserved ones first).
  explicit Vocab(std::vector<std::string> tokens);
  // Counts tokens of `sentences`, keeps those seen at least min_freq times.
  static Vocab build(const std::vector<std::vector<std::string>>& sentences, std::size_t min_freq,
                     bool with_unk = true);

  std::size_t size() const { return tokens_.size(); }
  bool has_unk() const { return tokens_.size() > unk && tokens_[unk] == "<unk>"; }
  // The id of a token: <unk> when unknown (an error when the vocabulary has no <unk>).
  int id(const std::string& token) const;
  const std::string& token(int id) const;
  const std::vector<std::string>& tokens() const { return tokens_; }
  std::vector<int> encode(const std::vector<std::string>& tokens) const;
  // Tokens of ids up to the first <eos>, without <pad>/<bos>.
  std::vector<std::string> decode(const std::vector<int>& ids) const;

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> index_;
};

// Tokens joined by single spaces.
std::string join_tokens(const std::vector<std::string>& tokens);
// Split on spaces, dropping empty tokens.
std::vector<std::string> split_tokens(const std::string& text);

}  // namespace attn
