#include "table_file.hpp"

#include <fstream>
#include <sstream>

#include "attnlab/data/text.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/file_kind.hpp"
#include "attnlab/options.hpp"

namespace attn {

std::vector<TableRow> read_table(const std::string& path, const std::string& noun, const std::string& option,
                                 const std::string& where) {
  const std::string kind = noun + " '" + path + "'";
  if (const std::string what = not_a_regular_file(path); !what.empty() && what != "no such file")  // a FIFO is never opened
    throw SpecError(where, kind + ": " + what + ", not a text file (option '" + option + "')");
  std::ifstream in(path);
  if (!in)
    throw SpecError(where, kind + " cannot be read (option '" + option + "'; relative paths are resolved against the spec's directory)");
  std::vector<TableRow> rows;
  std::string line;
  for (std::size_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line_no == 1) line = without_byte_order_mark(line);
    if (const auto why = not_text_at(line))
      throw SpecError(where, path + ":" + std::to_string(line_no) + ":" + *why + " (" + noun + ", option '" + option + "')");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream fields(line.substr(0, line.find('#')));
    TableRow row{line_no, {}, utf8_shortened(line, 200)};
    for (std::string w; fields >> w;) row.fields.push_back(w);
    if (!row.fields.empty()) rows.push_back(std::move(row));
  }
  return rows;
}

std::string row_place(const std::string& path, const TableRow& row) { return path + ":" + std::to_string(row.line) + ": "; }

std::optional<std::size_t> parse_index(const std::string& text, std::size_t limit) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::size_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  if (v >= limit) return std::nullopt;
  return v;
}

std::string unreadable_float(const std::string& word) {
  const NumberType type = number_type<float>();
  const NumberProblem problem = number_problem(word, type);
  if (problem == NumberProblem::not_a_number) return "is not a number (decimal notation, e.g. 1.5 or -2e3)";
  return number_problem_words(problem, type);
}

}  // namespace attn
