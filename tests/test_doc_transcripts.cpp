// The pages show attnlab as it is: every console transcript of README.md and docs/ is run in a
// scratch directory and compared with what attnlab prints (tests/tools/doc_transcripts.py; how a
// page writes one: docs/README.md, "How the pages are checked").
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "page_quotes.hpp"
#include "test_support.hpp"

namespace {

std::vector<std::string> pages() {
  namespace fs = std::filesystem;
  const fs::path root = attn::test::source_root;
  std::vector<std::string> out = {(root / "README.md").string()};
  for (const fs::path& dir : {root / "docs", root / "docs" / "concepts"})
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".md") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

attn::test::CommandOutput transcripts_of(const std::string& page, const std::string& options = "") {
  return attn::test::command_output("/usr/bin/python3 " + attn::test::source_root + "/tests/tools/doc_transcripts.py --build " +
                                    attn::test::paths::build_root + " " + options + " " + page + " 2>&1");
}

}  // namespace

TEST_CASE("every transcript on a page is what attnlab prints", "[docs][transcripts]") {
  for (const std::string& page : pages()) {
    const auto checked = transcripts_of(page);
    INFO(checked.text);
    CHECK(checked.status == 0);
  }
}

TEST_CASE("the transcript check fails when a page and attnlab disagree", "[docs][transcripts]") {
  const attn::test::TempDir dir("attnlab-transcripts");
  const std::string page = dir / "page.md";
  const auto check = [&](const std::string& block) {
    std::ofstream(page) << "# a page\n\n```console\n" << block << "```\n";
    return transcripts_of(page);
  };
  CHECK(check("$ attnlab validate experiments/bahdanau-reverse.yaml\n...\n").status == 0);
  CHECK(check("$ attnlab validate experiments/no-such.yaml\n...\n[exit 2]\n").status == 0);
  const auto wrong_exit = check("$ attnlab validate experiments/no-such.yaml\n...\n");
  CHECK(wrong_exit.status == 1);
  CHECK_THAT(wrong_exit.text, Catch::Contains("page.md:3:") && Catch::Contains("+[exit 2]"));
  const auto wrong_line = check("$ attnlab plugins\nscoring functions:\n  additive ... (Bahdanau; option width)\n...\n");
  CHECK(wrong_line.status == 1);
  CHECK_THAT(wrong_line.text, Catch::Contains("-  additive ... (Bahdanau; option width)"));
  CHECK(check("$ attnlab plugins\nscoring functions:\n  additive ... (Bahdanau; option hidden)\n...\n").status == 0);
  // A command continued on the next line is one command, as in bash.
  CHECK(check("$ attnlab validate \\\n    experiments/bahdanau-reverse.yaml\n...\n").status == 0);
  // Numbers: exact where the pages' numbers were made (the file naming that machine says this
  // one), only their place elsewhere; words count everywhere.
  const std::string made_on = dir / "made-on.txt";
  const auto check_made_on = [&](const std::string& machine, const std::string& block) {
    std::ofstream(made_on) << machine << "\n";
    std::ofstream(page) << "# a page\n\n```console\n" << block << "```\n";
    return transcripts_of(page, "--made-on " + made_on);
  };
  const std::string here = attn::test::command_output(attn::test::attnlab_exe + " --version | sed -n 2p").text;
  const std::string other = "plugin API 1; tensors aligned to 8 bytes (XSIMD sse2), GCC C++ ABI 1, C++11 std::string; OpenBLAS Other";
  const std::string wrong_number = "$ attnlab --version\nattnlab 0.1.0\n...\n", wrong_word = "$ attnlab --version\nattnbar 0.2.0\n...\n";
  CHECK(check_made_on(here, wrong_number).status == 1);
  const auto elsewhere = check_made_on(other, wrong_number);
  CHECK(elsewhere.status == 0);
  CHECK_THAT(elsewhere.text, Catch::Contains("numbers are not compared") && Catch::Contains("other numbers (this machine's arithmetic)"));
  CHECK(check_made_on(here, wrong_word).status == 1);
  CHECK(check_made_on(other, wrong_word).status == 1);
  // A prompt in a block that is not a transcript would never be run.
  std::ofstream(page) << "```\n$ attnlab plugins\n```\n";
  CHECK(transcripts_of(page).status == 1);
}

TEST_CASE("a page quotes a measured line: exactly on the pages' arithmetic, its numbers aside elsewhere", "[docs]") {
  const std::string page = "| `gat` | 0.9479 ± 0.0361 |\n| scoring=dot    2/2      0.0910 ± 0.0015 |\n";
  CHECK(attn::test::quotes(page, "| `gat` | 0.9479 ± 0.0361 |"));
  CHECK(attn::test::quotes(page, "| `gat` | 0.9500 ± 0.0361 |") == !attn::test::pages_arithmetic());
  CHECK(attn::test::quotes(page, "| scoring=dot 2/2 0.1000 ± 0.0151 |") == !attn::test::pages_arithmetic());
  CHECK_FALSE(attn::test::quotes(page, "| `dot` | 0.9479 ± 0.0361 |"));    // words count everywhere
  CHECK_FALSE(attn::test::quotes(page, "| `gat` | 0.9479 + 0.0361 |"));
  CHECK_FALSE(attn::test::quotes(page, "| `gat` | 0.9479 ± 0.0361 | 2 |"));  // and so do columns
  CHECK(attn::test::arithmetic_of("plugin API 14; tensors aligned to 32 bytes (XSIMD fma3+avx2); OpenBLAS Zen") ==
        "tensors aligned to 32 bytes (XSIMD fma3+avx2); OpenBLAS Zen");
}
