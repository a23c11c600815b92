// Text files of whitespace-separated fields, one record a line, '#' starting a comment (the
// regression points, a graph's edges, labels and features). Blank and comment lines are
// skipped; each record keeps its line number for messages ("edges.txt:7: ...").
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attn {

struct TableRow {
  std::size_t line = 0;            // 1-based
  std::vector<std::string> fields;
  std::string text;                // the line as written, for messages
};

// The rows of `path`; a line that is not text (not UTF-8, a control character) is a SpecError
// at `where` naming its line and column; a file that is missing, unreadable or not a regular file (a FIFO is never
// opened) is a SpecError at `where` naming the file as `noun` ("points file") and `option`.
std::vector<TableRow> read_table(const std::string& path, const std::string& noun, const std::string& option,
                                 const std::string& where);

// "path:LINE: " for messages about a row.
std::string row_place(const std::string& path, const TableRow& row);

// A non-negative whole number written in decimal digits only, below `limit`; none otherwise.
std::optional<std::size_t> parse_index(const std::string& text, std::size_t limit);

// Why parse_option<float> refused `word`, for "x = WORD " + this: "is not a number (…)", or
// that it is beyond what a 32-bit float can hold.
std::string unreadable_float(const std::string& word);

}  // namespace attn
