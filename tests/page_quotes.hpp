// Whether a page quotes what a test measured. A training run's numbers depend on the machine's
// arithmetic (its SIMD target and OpenBLAS kernel round the last bits of every float, and
// training carries them on), so a page's numbers are those of the machine named in
// docs/transcripts-made-on.txt: there a quote must be on the page as it is; on a machine with
// other arithmetic, with other numbers in the same places (as tests/tools/doc_transcripts.py
// compares transcripts; docs/README.md, "How the pages are checked").
#pragma once

#include <string>

namespace attn::test {

// What decides the floats in a build signature (`attnlab --version`'s second line): all but
// its leading "plugin API N; " (an API bump changes no arithmetic).
std::string arithmetic_of(const std::string& signature);

// Whether this build computes as the machine the pages' numbers were made on.
bool pages_arithmetic();

// Whether `text` holds `quote`: as it is on the pages' arithmetic; elsewhere with any number in
// place of each of its numbers, and any run of spaces or of three or more dashes (table columns
// and rules follow their numbers) for each of its own.
bool quotes(const std::string& text, const std::string& quote);

}  // namespace attn::test
