// The pages show attnlab as it is: every console transcript of README.md and docs/ is run in a
// scratch directory and compared with what attnlab prints (tests/tools/doc_transcripts.py; how a
// page writes one: docs/README.md, "How the pages are checked").
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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

attn::test::CommandOutput transcripts_of(const std::string& page) {
  return attn::test::command_output("/usr/bin/python3 " + attn::test::source_root + "/tests/tools/doc_transcripts.py --build " +
                                    ATTNLAB_BUILD_ROOT + " " + page + " 2>&1");
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
  // A prompt in a block that is not a transcript would never be run.
  std::ofstream(page) << "```\n$ attnlab plugins\n```\n";
  CHECK(transcripts_of(page).status == 1);
}
