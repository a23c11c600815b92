// A path as every process can use it, from any directory: absolute, its symbolic links resolved
// (not folded: `link/../x` is where the link's target's parent holds x). The part that does not
// exist yet is kept as given; a path whose links cannot be read is made absolute only.
#pragma once

#include <string>

namespace attn {

std::string absolute_path(const std::string& path);

}  // namespace attn
