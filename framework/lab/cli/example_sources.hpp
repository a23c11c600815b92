// The example plugins of plugins/examples/, one per kind, compiled in from their sources by
// embed_text.py (a build step in framework/lab/meson.build): `attnlab new-plugin` starts from them.
#pragma once

namespace attn {

extern const char example_scoring_source[];     // cosine.cpp
extern const char example_cell_source[];        // min_gru.cpp
extern const char example_mode_source[];        // shared_qk.cpp
extern const char example_normalizer_source[];  // learned_temperature.cpp
extern const char example_positional_source[];  // xpos.cpp

}  // namespace attn
