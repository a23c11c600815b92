// Registration of the built-in models (called by register_builtins).
#pragma once

#include "attnlab/registries.hpp"

namespace attn {

void register_model_nadaraya_watson(Registries& r);
void register_model_seq2seq(Registries& r);
void register_model_transformer(Registries& r);

}  // namespace attn
