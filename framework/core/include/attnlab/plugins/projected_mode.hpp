// A helper base for attention modes: the optional learned projections every built-in mode
// offers. Options: `project` (bool, default false) — learn W_q, W_k, W_v (no bias);
// `dim` (int, default the query size) — size of projected queries and keys;
// `value_dim` (int, default the value size) — size of projected values.
#pragma once

#include <optional>

#include "attnlab/nn/linear.hpp"
#include "attnlab/plugins/attention_mode.hpp"

namespace attn {

class ProjectedMode : public AttentionMode {
 public:
  // Sizes of the three sources this mode reads (a qvv mode reads its values from the keys).
  ProjectedMode(const ModeArgs& args, std::size_t query_in, std::size_t key_in, std::size_t value_in);

  std::size_t query_dim() const override { return query_dim_; }
  std::size_t key_dim() const override { return key_dim_; }
  std::size_t value_dim() const override { return value_dim_; }

 protected:
  // Q = q W_q, K = k W_k, V = v W_v when projecting; q, k, v as they are otherwise.
  FormedQkv project(const Var& q, const Var& k, const Var& v) const;

 private:
  bool project_;
  std::size_t query_dim_, key_dim_, value_dim_;
  std::optional<Linear> w_q_, w_k_, w_v_;
};

}  // namespace attn
