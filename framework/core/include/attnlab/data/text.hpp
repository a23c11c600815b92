// Text preprocessing for parallel corpora (d2l 10.5 preprocess_nmt), on UTF-8:
//   U+202F and U+00A0 become spaces, letters are lowercased, and a space is inserted before
//   , . ! ? when none precedes them.
// Lowercasing covers ASCII, Latin-1 and Latin Extended-A (enough for English and French);
// other characters are kept as they are.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attn {

// The byte offset of the first invalid UTF-8 sequence, or nothing when `s` is valid.
std::optional<std::size_t> invalid_utf8_at(const std::string& s);
// The byte offset of the first control character (below U+0020, or U+007F) that is not in
// `allowed` (e.g. "\t"), or nothing: text that reaches terminals, names and files is printable.
std::optional<std::size_t> control_character_at(const std::string& s, const std::string& allowed = "");
// Why `line` (a line of a text file, without its '\n') is not text, as "COL: what is wrong":
// bytes that are not UTF-8, or a control character other than a tab (a '\r' ending the line,
// as Windows writes it, is text); nothing when it is text. Every reader of text files asks it,
// so no file's bytes reach a message, a token or a terminal unchecked.
std::optional<std::string> not_text_at(const std::string& line);
// `s` with every control character replaced by '?': text that is echoed or stored after its
// control characters were reported.
std::string without_control_characters(std::string s, const std::string& kept = "");
// A file's text without the UTF-8 byte-order mark (EF BB BF) that some editors put first: it is
// no character of the text (the first token would hold it).
std::string without_byte_order_mark(std::string first_line);
// "U+001B": how a control character is named in messages.
std::string code_point_name(char c);
// `s` with every byte that does not start a valid UTF-8 sequence replaced by U+FFFD: what is
// written as UTF-8 (HDF5 strings, the report) is valid UTF-8 whatever a file name held.
std::string valid_utf8(const std::string& s);
// The UTF-8 characters of `s`, one string each (a byte that starts no character is one of its own).
std::vector<std::string> utf8_characters(const std::string& s);
// The longest prefix of `s` of at most `max_bytes` bytes that does not cut a character.
std::string utf8_prefix(const std::string& s, std::size_t max_bytes);
// `s` as a message shows it: whole up to `max_bytes`, else its utf8_prefix and how much is left
// out (an error never echoes a 100 KB value back).
std::string utf8_shortened(const std::string& s, std::size_t max_bytes);
// `s` cut or padded with spaces to `width` characters (code points), for tables of tokens.
std::string utf8_fit(const std::string& s, std::size_t width);
// d2l's preprocessing of one (valid UTF-8) line.
std::string preprocess_nmt(const std::string& line);

}  // namespace attn
