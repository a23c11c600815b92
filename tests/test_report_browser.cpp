// The interactive report in a real browser: tests/browser/report_browser.py opens a report in
// Debian's headless Chromium (chromedriver + Selenium, installed by .ci/setup) and uses it as a
// person would: switches run, map, layer and head, moves the epoch slider, hovers a token,
// toggles the colour scale and log y, compares two runs on one grid of positions, saves a panel
// as SVG, narrows the window; it checks the head the explorer opens on against the stated rule
// and the row sums of a sigmoid map against the data. Each check also
// fails on any error in the browser console. A browser that cannot start is a failure with its
// reason, never a skip.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"

using attn::test::attnlab_exe;
using attn::test::command_output;
using attn::test::source_root;

namespace {

// The report of `attnlab run <arguments>` (which names the spec) in `dir`, as <name>.html.
std::string report_of(const std::string& dir, const std::string& name, const std::string& arguments) {
  const std::string h5 = dir + "/" + name + ".h5", page = dir + "/" + name + ".html";
  const auto run = command_output(attnlab_exe + " run " + arguments + " --output " + h5 + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  REQUIRE(command_output(attnlab_exe + " report " + h5 + " -o " + page + " 2>&1").status == 0);
  return page;
}

// One report for every check: tests/specs/good/tiny-transformer.yaml (2 layers x 2 heads,
// d_model 8 and 16 x 2 seeds, a snapshot after every epoch), run with a --set so the config
// has a value of each origin to mark.
const std::string& report() {
  static attn::test::TempDir dir{"attnlab-browser"};
  static const std::string html =
      report_of(dir.path.string(), "tiny-transformer", source_root + "/tests/specs/good/tiny-transformer.yaml --threads 2 --set training.lr=0.02");
  return html;
}

void check_page(const std::string& page, const std::string& check) {
  const auto out = command_output("/usr/bin/python3 " + source_root + "/tests/browser/report_browser.py " + page + " " + check + " 2>&1");
  INFO(out.text);
  CHECK(out.status == 0);
  CHECK(out.text.find(check + ": ok") != std::string::npos);
}

void check_in_browser(const std::string& check) { check_page(report(), check); }

}  // namespace

TEST_CASE("report in a browser: the contents link to every section, and configs mark swept and --set values", "[browser]") {
  check_in_browser("toc");
}

TEST_CASE("report in a browser: choosing run, map, layer and head draws that head's weights", "[browser]") {
  check_in_browser("explorer");
}

TEST_CASE("report in a browser: heatmaps share the [0, 1] colour scale; a panel can take its own", "[browser]") {
  check_in_browser("scale");
}

TEST_CASE("report in a browser: the epoch slider steps through the snapshots to the final maps", "[browser]") {
  check_in_browser("epoch");
}

TEST_CASE("report in a browser: hovering a token draws its lines, thickness by weight", "[browser]") {
  check_in_browser("tokens");
}

TEST_CASE("report in a browser: two runs side by side with their difference map", "[browser]") {
  check_in_browser("side-by-side");
}

TEST_CASE("report in a browser: the explorer opens on the head with the most structure, by the stated rule", "[browser]") {
  check_in_browser("opening");
}

TEST_CASE("report in a browser: the page never scrolls sideways; a table too wide scrolls inside its box", "[browser]") {
  check_in_browser("fit");
}

TEST_CASE("report in a browser: a sigmoid normalizer's map shows each row's sum, a softmax map none", "[browser]") {
  attn::test::TempDir dir("attnlab-browser-sigmoid");
  check_page(report_of(dir.path.string(), "sigmoid", source_root + "/tests/specs/good/tiny-transformer.yaml --set model.normalizer=sigmoid "
                                                            "--set \"sweep.seed=[1]\""),
             "row-sums");
}

TEST_CASE("report in a browser: the heads attnlab ablate took apart, each grid in the contents, each cell the file's value",
          "[browser][heads]") {
  attn::test::TempDir dir("attnlab-browser-heads");
  const std::string h5 = dir / "heads.h5";
  const auto run = command_output(attnlab_exe + " run " + source_root + "/tests/specs/good/tiny-transformer.yaml --set \"sweep.seed=[1]\" --output " +
                                  h5 + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  const auto ablated = command_output(attnlab_exe + " ablate " + h5 + " --run d_model-16_seed-1 2>&1");
  INFO(ablated.text);
  REQUIRE(ablated.status == 0);
  REQUIRE(command_output(attnlab_exe + " report " + h5 + " -o " + (dir / "heads.html") + " 2>&1").status == 0);
  const auto out = command_output("/usr/bin/python3 " + source_root + "/tests/browser/report_browser.py " + (dir / "heads.html") +
                                  " heads --results " + h5 + " 2>&1");
  INFO(out.text);
  CHECK(out.status == 0);
  CHECK(out.text.find("heads: ok") != std::string::npos);
}

TEST_CASE("report in a browser: curves per sweep point with std bands and a log-y toggle", "[browser]") {
  check_in_browser("curves");
}

TEST_CASE("report in a browser: metrics against the input length of evaluation.lengths, one curve per sweep point", "[browser][lengths]") {
  attn::test::TempDir dir("attnlab-browser-lengths");
  std::ofstream(dir / "lm.yaml") << "name: lm\ndataset: {name: text_corpus, path: " << source_root
                                 << "/datasets/timemachine/timemachine.txt, num_steps: 16, num_train: 640, num_valid: 64}\n"
                                    "model: {name: language_model, d_model: 16, heads: 2, layers: 1, max_len: 64}\n"
                                    "training: {optimizer: adam, lr: 0.01, steps: 20, batch_size: 64}\n"
                                    "evaluation: {lengths: [16, 32, 64]}\nsweep: {model.positional: [alibi, learned, none]}\n";
  check_page(report_of(dir.path.string(), "lm", dir / "lm.yaml"), "lengths");
}

TEST_CASE("report in a browser: a panel saves as an SVG file", "[browser]") {
  check_in_browser("svg");
}

TEST_CASE("report: one file with nothing to fetch; the demo's report is under 5 MB", "[report][demo]") {
  attn::test::TempDir dir{"attnlab-demo-report"};
  const std::string h5 = dir / "demo.h5", page = dir / "report.html";
  REQUIRE(command_output(attnlab_exe + " run " + source_root + "/experiments/bahdanau-reverse.yaml --output " + h5 +
                         " --threads 2 > /dev/null 2>&1").status == 0);
  REQUIRE(command_output(attnlab_exe + " report " + h5 + " -o " + page + " 2>&1").status == 0);
  const auto size = std::filesystem::file_size(page);
  INFO("report size " << size << " bytes");
  CHECK(size < 5u * 1024 * 1024);
  // Nothing the page loads comes from elsewhere: no src= or href= but in-page anchors.
  const auto outside = command_output("grep -oE '(src|href)=\"[^#][^\"]*\"' " + page + " | head -5");
  INFO(outside.text);
  CHECK(outside.text.empty());
}

TEST_CASE("report: tokens, run names and spec text are escaped: a corpus of <script>, \" and </svg> tokens", "[browser][security]") {
  attn::test::TempDir dir{"attnlab-escaping"};
  const std::string corpus = dir / "evil.txt", h5 = dir / "evil.h5", page = dir / "evil.html";
  {
    std::ofstream out(corpus);
    for (int i = 0; i < 10; ++i) out << "go <script>alert(1)</script> now .\tva \" </svg> & <b>maintenant</b> .\n";
  }
  const auto run = command_output(attnlab_exe + " run " + source_root + "/tests/specs/good/awkward-corpus.yaml --set dataset.path=" +
                                  corpus + " --set \"record.attention=[0]\" --output " + h5 + " > /dev/null 2>&1");
  REQUIRE(run.status == 0);
  REQUIRE(command_output(attnlab_exe + " report " + h5 + " -o " + page + " 2>&1").status == 0);
  std::ifstream in(page);
  const std::string html(std::istreambuf_iterator<char>(in), {});
  const auto count = [&](const std::string& s) {
    std::size_t n = 0;
    for (std::size_t at = html.find(s); at != std::string::npos; at = html.find(s, at + 1)) ++n;
    return n;
  };
  CHECK(count("<script") == 2);        // the page's data and its viewer, nothing from the corpus
  CHECK(count("</svg>") == count("<svg"));
  CHECK(count("<b>maintenant") == 0);
  CHECK(count("\\u003cscript\\u003ealert(1)") > 0);  // the token is in the data, escaped
  // In the browser: no alert (Selenium would fail on it), no console error.
  const auto opened = command_output("/usr/bin/python3 " + source_root + "/tests/browser/report_browser.py " + page + " open 2>&1");
  INFO(opened.text);
  CHECK(opened.status == 0);
}

TEST_CASE("report in a browser: image, graph and speech runs show their attention on the input, per layer and head in the explorer",
          "[browser]") {
  attn::test::TempDir dir("attnlab-browser-inputs");
  std::ofstream(dir / "edges.txt") << "0 1\n1 2\n2 3\n3 0\n0 2\n";
  std::ofstream(dir / "labels.txt") << "0 0\n1 0\n2 1\n3 1\n";
  std::ofstream(dir / "gat.yaml") << "name: gat\ndataset:\n  name: graph\n  edges: edges.txt\n  labels: labels.txt\n"
                                     "  train_nodes: [0, 2]\nmodel:\n  name: gat\n  heads: 2\ntraining:\n  epochs: 2\n  batch_size: 1\n";
  std::ofstream(dir / "vit.yaml") << "name: vit\ndataset:\n  name: fashion_mnist\n  num_train: 64\n  num_valid: 16\n"
                                     "model:\n  name: vit\n  patch_size: 7\n  d_model: 8\n  mlp_hidden: 8\n  heads: 2\n"
                                     "training:\n  epochs: 1\n  batch_size: 32\n";
  std::ofstream(dir / "speech.yaml") << "name: speech\ndataset:\n  name: spoken_digits\n  path: " << source_root
                                     << "/datasets/spoken-digits/utterances.txt\nmodel:\n  name: encoder_classifier\n  d_model: 8\n"
                                        "  heads: 2\n  layers: 2\ntraining:\n  epochs: 1\n  batch_size: 64\n";
  for (const std::string name : {"gat", "vit", "speech"}) {
    DYNAMIC_SECTION(name) {
      check_page(report_of(dir.path.string(), name, dir / (name + ".yaml")), "inputs");
    }
  }
}
