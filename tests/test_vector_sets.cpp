// Inputs that are sets of vectors: the IDX reader and its errors, Fashion-MNIST as pixel sets
// on a grid, sequence_task's classification tasks, and the classifiers (vit,
// encoder_classifier) trained end to end, with their metrics and refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <numeric>

#include <xtensor/xsort.hpp>
#include <xtensor/xview.hpp>
#include <zlib.h>

#include "attnlab/attnlab.hpp"
#include "attnlab/models/classifier.hpp"
#include "attnlab/plugin_loader.hpp"
#include "attnlab/training/trainer.hpp"
#include "lab/builtins.hpp"
#include "lab/results/hdf5_file.hpp"
#include "../framework/core/src/data/idx_file.hpp"
#include "../framework/core/src/data/image_resize.hpp"
#include "../framework/core/src/data/log_mel.hpp"
#include "../framework/core/src/data/wav_file.hpp"
#include "golden.hpp"
#include "test_support.hpp"

using namespace attn;
using attn::test::TempDir;

namespace {

std::string be32(std::uint32_t v) {
  return {char(v >> 24), char((v >> 16) & 255), char((v >> 8) & 255), char(v & 255)};
}

// An IDX file of `rank` sizes and `payload` bytes, plain or gzipped.
void write_idx(const std::string& path, const std::vector<std::uint32_t>& sizes, const std::string& payload, bool gzip = false,
               char type = 0x08) {
  std::string bytes = {0, 0, type, char(sizes.size())};
  for (std::uint32_t s : sizes) bytes += be32(s);
  bytes += payload;
  if (!gzip) {
    std::ofstream(path, std::ios::binary) << bytes;
    return;
  }
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

std::string read_error(const std::string& path, std::size_t rank) {
  try {
    read_idx_bytes(path, rank, 1000000);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// A directory of tiny IDX files: `n` 4x4 images whose pixel (r, c) is 16 r + c + image, labels i % 3.
void write_image_set(const TempDir& dir, std::size_t n) {
  for (const std::string prefix : {"train", "t10k"}) {
    std::string pixels, labels;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t p = 0; p < 16; ++p) pixels += char(16 * (p / 4) + p % 4 + i);
      labels += char(i % 3);
    }
    write_idx(dir / (prefix + "-images-idx3-ubyte.gz"), {std::uint32_t(n), 4, 4}, pixels, true);
    write_idx(dir / (prefix + "-labels-idx1-ubyte"), {std::uint32_t(n)}, labels);
  }
}

// Words spelled as the letters target writes them: "five one" -> "f i v e _ o n e".
std::string spelled(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += " _";
    for (char c : w) out += (out.empty() ? "" : " ") + std::string(1, c);
  }
  return out;
}

Data load(const std::string& dataset, const std::vector<std::pair<std::string, std::string>>& options) {
  Options o;
  for (const auto& [k, v] : options) o.set(k, v, "spec.yaml:4:3");
  auto source = attn::test::builtins().datasets.create(dataset, DatasetArgs{o, ""});
  Rng rng(1);
  return source->load(rng);
}

}  // namespace

TEST_CASE("IDX files: gzipped and plain read alike; every damage is named with the file", "[data][idx]") {
  TempDir dir("attnlab-idx");
  write_idx(dir / "plain", {2, 2, 3}, "abcdefghijkl");
  write_idx(dir / "packed.gz", {2, 2, 3}, "abcdefghijkl", true);
  for (const std::string name : {"plain", "packed.gz"}) {
    const IdxArray a = read_idx_bytes(dir / name, 3, 100);
    CHECK(a.shape == std::vector<std::size_t>{2, 2, 3});
    CHECK(std::string(a.data.begin(), a.data.end()) == "abcdefghijkl");
  }
  write_idx(dir / "labels", {3}, "abc");
  CHECK_THAT(read_error(dir / "labels", 3), Catch::Contains("magic number 0x00000801, expected 0x00000803 (images)"));
  write_idx(dir / "floats", {2}, "abcdefgh", false, 0x0d);
  CHECK_THAT(read_error(dir / "floats", 1), Catch::Contains("magic number 0x00000d01"));
  write_idx(dir / "short", {2, 2, 3}, "abcdefghij");
  CHECK_THAT(read_error(dir / "short", 3), Catch::Contains("truncated: the header promises 12 bytes of data, the file holds 10"));
  write_idx(dir / "long", {2, 2, 3}, "abcdefghijklm");
  CHECK_THAT(read_error(dir / "long", 3), Catch::Contains("goes on after the 12 bytes"));
  write_idx(dir / "absurd", {4000000000u, 60000, 60000}, "abc");
  CHECK_THAT(read_error(dir / "absurd", 3), Catch::Contains("promise more than 1000000 elements"));
  write_idx(dir / "zero", {0, 28, 28}, "");
  CHECK_THAT(read_error(dir / "zero", 3), Catch::Contains("size 0 of the IDX header is 0"));
  std::ofstream(dir / "bad.gz", std::ios::binary) << std::string("\x1f\x8b\x08\x00garbage-not-deflate", 23);
  CHECK_THAT(read_error(dir / "bad.gz", 3), Catch::Contains(dir / "bad.gz"));
  CHECK_THAT(read_error(dir / "missing", 3), Catch::Contains("cannot be opened"));
}

TEST_CASE("fashion_mnist: images reach a model as pixel vectors on a grid, the test split validates", "[data][images]") {
  TempDir dir("attnlab-images");
  write_image_set(dir, 5);
  const Data data = load("fashion_mnist", {{"path", dir.path.string()}, {"num_train", "4"}, {"num_valid", "2"}});
  const auto& d = std::get<VectorData>(data);
  CHECK(d.kind == InputKind::image);
  CHECK(d.grid_rows == 4);
  CHECK(d.grid_cols == 4);
  CHECK(d.classes == std::vector<std::string>{"0", "1", "2"});  // not the package: numbered classes
  CHECK(d.train.size() == 4);
  CHECK(d.valid.size() == 2);
  const VectorBatch b = d.train.sets->batch({3, 1});
  REQUIRE(b.vectors.shape() == std::vector<std::size_t>{2, 16, 1});
  CHECK(b.vectors(0, 6, 0) == Approx((16.0 * 1 + 2 + 3) / 255.0));  // image 3, pixel (1, 2)
  CHECK(b.lens(1) == 16);
  CHECK(d.train.labels(3) == 0);

}

TEST_CASE("resizing matches torchvision's Resize on PIL images byte for byte, up (28 -> 96) and down (28 -> 20)", "[data][images][golden]") {
  const attn::test::Golden g("resize.txt");
  std::vector<std::uint8_t> image(g["image"].begin(), g["image"].end());
  for (const std::size_t side : {96, 20}) {
    std::vector<std::uint8_t> out(side * side);
    ImageResize(28, 28, side, side)(image.data(), out.data());
    const Tensor& expected = g["resized" + std::to_string(side)];
    std::size_t differ = 0;
    for (std::size_t i = 0; i < out.size(); ++i) differ += out[i] != static_cast<std::uint8_t>(expected.data()[i]);
    INFO("side " << side);
    CHECK(differ == 0);
  }
}

namespace {

std::shared_ptr<Model> make_model(const std::string& name, const Data& data, const std::vector<std::pair<std::string, std::string>>& options,
                                  ParamStore& store, Rng& rng) {
  Options o;
  for (const auto& [k, v] : options) o.set(k, v, "spec.yaml:9:" + std::to_string(3 + k.size()));
  auto model = attn::test::builtins().models.create(name, ModelArgs{attn::test::builtins(), ParamScope(store, rng), o, data});
  o.require_all_read("model");
  return model;
}

}  // namespace

TEST_CASE("sequence_task's classification tasks: one label per string, from the strings themselves", "[data][classification]") {
  for (const std::string task : {"sorted", "majority"}) {
    const Data data = load("sequence_task", {{"task", task}, {"num_train", "300"}, {"num_valid", "50"}});
    const auto& d = std::get<VectorData>(data);
    CHECK(d.kind == InputKind::tokens);
    CHECK(d.classes.size() == (task == "sorted" ? 2u : 10u));
    CHECK(d.probe.size() == probe_size);
    const VectorBatch b = d.train.sets->batch({0, 1, 2, 3, 4, 5, 6, 7});
    std::size_t sorted = 0;
    for (std::size_t i = 0; i < 300; ++i) sorted += task == "sorted" && d.train.labels(i) == 1;
    if (task == "sorted") CHECK(sorted > 100);  // half are drawn sorted
    for (std::size_t i = 0; i < b.size(); ++i) {
      std::vector<int> digits(b.tokens.data() + i * d.max_len, b.tokens.data() + i * d.max_len + b.lens(i));
      std::array<int, 13> count{};
      for (int t : digits) ++count[static_cast<std::size_t>(t)];
      const int label = d.train.labels(i);
      if (task == "sorted") CHECK((label == 1) == std::is_sorted(digits.begin(), digits.end()));
      else CHECK(*std::max_element(count.begin() + 3, count.end()) == count[static_cast<std::size_t>(label + 3)]);
    }
  }
  Options o;
  o.set("task", "majority", "spec.yaml:4:9");
  o.set("num_steps", "10", "spec.yaml:5:14");
  CHECK_THROWS_WITH(attn::test::builtins().datasets.create("sequence_task", DatasetArgs{o, ""}),
                    Catch::Contains("spec.yaml:5:14") && Catch::Contains("one label per string"));
}

TEST_CASE("encoder_classifier learns the majority digit, pooling <cls> or the mean; metrics per class and a confusion matrix", "[models][classification][slow]") {
  const Data data = load("sequence_task", {{"task", "majority"}, {"num_train", "1500"}, {"num_valid", "200"}, {"max_len", "7"}});
  for (const std::string pool : {"cls", "mean"}) {
    DYNAMIC_SECTION("pool " << pool) {
      ParamStore store;
      Rng rng(3);
      auto model = make_model("encoder_classifier", data, {{"d_model", "32"}, {"heads", "4"}, {"layers", "2"}, {"pool", pool}}, store, rng);
      TrainConfig c;
      c.lr = 0.003f;
      c.epochs = 12;
      c.batch_size = 32;
      Trainer trainer(*model, store, attn::test::builtins(), c, 5);
      REQUIRE(trainer.run() == RunStatus::finished);
      const Metrics m = model->evaluate(true);
      CHECK(m.at("valid_accuracy") >= 0.9);
      const Tensor confusion = model->plot_data().at(0).second;
      REQUIRE(confusion.shape() == std::vector<std::size_t>{10, 10});
      CHECK(xt::sum(confusion)() == Approx(200.0));
      double diagonal = 0;
      for (std::size_t k = 0; k < 10; ++k) diagonal += confusion(k, k);
      CHECK(diagonal / 200.0 == Approx(m.at("valid_accuracy")));
      CHECK(m.count("valid_accuracy.7"));
      const auto maps = model->record_attention({0, 1});
      REQUIRE(maps.size() == 2);
      const AttentionMap& map = maps[0].maps.at(0);
      CHECK(map.name == "encoder_self");
      CHECK(map.weights.shape()[0] == 2);  // layers
      CHECK(map.weights.shape()[1] == 4);  // heads
      CHECK(map.keys.front() == (pool == "cls" ? "<cls>" : map.keys.front()));
      CHECK(maps[0].prediction.size() == 1);
    }
  }
}

TEST_CASE("vit on pixel sets: shapes, the patch grid's labels, and its refusals", "[models][vit][errors]") {
  TempDir dir("attnlab-vit");
  write_image_set(dir, 6);
  const Data images = load("fashion_mnist", {{"path", dir.path.string()}, {"num_train", "6"}, {"num_valid", "3"}, {"resize", "8"}});
  ParamStore store;
  Rng rng(1);
  auto vit = make_model("vit", images, {{"patch_size", "4"}, {"d_model", "8"}, {"mlp_hidden", "16"}, {"heads", "2"}}, store, rng);
  auto& classifier = dynamic_cast<Classifier&>(*vit);
  const auto predictions = classifier.predict(std::get<VectorData>(images).valid, {0, 2});
  REQUIRE(predictions.size() == 2);
  CHECK(predictions[0].probabilities.at(0).size() == 3);
  const AttentionMap& map = predictions[1].attention.maps.at(0);
  CHECK(map.weights.shape() == std::vector<std::size_t>{2, 2, 5, 5});  // layer, head, <cls> + 4 patches
  CHECK(map.keys == std::vector<std::string>{"<cls>", "(0,0)", "(0,1)", "(1,0)", "(1,1)"});

  ParamStore other;
  CHECK_THROWS_WITH(make_model("vit", images, {{"patch_size", "3"}}, other, rng),
                    Catch::Contains("spec.yaml:9:13: option 'patch_size' (3) must divide the image's 8 x 8 pixels") &&
                        Catch::Contains("sizes that do: 1, 2, 4, 8"));
  const Data tokens = load("sequence_task", {{"task", "sorted"}, {"num_train", "10"}});
  CHECK_THROWS_WITH(make_model("vit", tokens, {}, other, rng), Catch::Contains("reads images"));
  const Data sequences = attn::test::reverse_task(10);
  CHECK_THROWS_WITH(make_model("encoder_classifier", sequences, {}, other, rng),
                    Catch::Contains("predicts one label per input") && Catch::Contains("sequence or regression targets"));
  CHECK_THROWS_WITH(make_model("transformer", tokens, {}, other, rng), Catch::Contains("gives one label per input"));
  const Data graph = load("graph", {{"edges", test::source_root + "/datasets/karate-club/edges.txt"},
                                    {"labels", test::source_root + "/datasets/karate-club/clubs.txt"}});
  CHECK_THROWS_WITH(make_model("encoder_classifier", graph, {}, other, rng), Catch::Contains("this dataset labels each vector: a graph's nodes or a text's next tokens (for those: gat, language_model)"));
  CHECK_THROWS_WITH(make_model("gat", tokens, {}, other, rng), Catch::Contains("model 'gat' gives a label per vector (node), but this dataset labels whole inputs"));
}

TEST_CASE("vit and encoder_classifier: the gradient of the loss to every parameter matches finite differences, with positions of each kind", "[models][classification][gradcheck]") {
  TempDir dir("attnlab-vit-grad");
  write_image_set(dir, 4);
  const Data images = load("fashion_mnist", {{"path", dir.path.string()}, {"num_train", "3"}, {"num_valid", "0"}, {"resize", "4"}});
  const Data tokens = load("sequence_task", {{"task", "sorted"}, {"num_train", "3"}, {"max_len", "4"}});
  struct Case { std::string model; const Data* data; std::vector<std::pair<std::string, std::string>> options; };
  const std::vector<Case> cases = {
      {"vit", &images, {{"patch_size", "2"}, {"d_model", "4"}, {"mlp_hidden", "6"}, {"heads", "2"}, {"emb_dropout", "0"}, {"dropout", "0"}, {"position_init", "1"}}},
      {"vit", &images, {{"patch_size", "2"}, {"d_model", "4"}, {"mlp_hidden", "6"}, {"heads", "2"}, {"emb_dropout", "0"}, {"dropout", "0"}, {"position_init", "1"}, {"pool", "mean"}}},
      {"encoder_classifier", &tokens, {{"d_model", "4"}, {"ffn_hidden", "6"}, {"heads", "2"}, {"pool", "mean"}}},
      {"encoder_classifier", &images, {{"d_model", "4"}, {"ffn_hidden", "6"}, {"heads", "2"}, {"positional", "learned"}}},
      {"vit", &images, {{"patch_size", "2"}, {"d_model", "4"}, {"mlp_hidden", "6"}, {"heads", "2"}, {"emb_dropout", "0"}, {"dropout", "0"}, {"positional", "rope"}}},
      {"encoder_classifier", &tokens, {{"d_model", "4"}, {"ffn_hidden", "6"}, {"heads", "2"}, {"positional", "t5_bias"}}},
      {"encoder_classifier", &images, {{"d_model", "4"}, {"ffn_hidden", "6"}, {"heads", "2"}, {"positional", "alibi"}}},
  };
  for (const Case& k : cases) {
    DYNAMIC_SECTION(k.model << " on " << to_string(std::get<VectorData>(*k.data).kind) << ", " << k.options.back().first << " " << k.options.back().second) {
      ParamStore store;
      Rng init(7);
      auto model = make_model(k.model, *k.data, k.options, store, init);
      Rng rng(1), check_rng(2);
      // float32 central differences, eps 1e-3 (a ReLU's kink is rarely crossed; 1e-2 crossed one)
      const auto result = gradcheck([&] { return model->loss({0, 1, 2}, TrainingStep{rng}).loss; }, store.items(), check_rng,
                                    GradCheckOptions{1e-3f, 1e-3f, 2e-2f, 0});
      INFO(result.report);
      CHECK(result.checked > 0);
      CHECK(result.ok);
    }
  }
}

TEST_CASE("a plugin written for text runs on images, token sets and graphs unchanged: the example cosine scoring in vit, encoder_classifier and gat", "[models][classification][plugins]") {
  Registries r;
  register_builtins(r);
  load_plugin(attn::test::paths::example_plugin, r);  // plugins/examples/cosine.cpp, written for sequences
  TempDir dir("attnlab-vit-plugin");
  write_image_set(dir, 6);
  const Data images = load("fashion_mnist", {{"path", dir.path.string()}, {"num_train", "6"}, {"num_valid", "3"}, {"resize", "8"}});
  const Data tokens = load("sequence_task", {{"task", "majority"}, {"num_train", "40"}, {"num_valid", "10"}});
  const Data graphs = load("coloured_graphs", {{"num_train", "40"}, {"num_valid", "10"}});
  const Data karate = load("graph", {{"edges", test::source_root + "/datasets/karate-club/edges.txt"},
                                     {"labels", test::source_root + "/datasets/karate-club/clubs.txt"}});
  for (const auto& [name, data] : std::vector<std::pair<std::string, const Data*>>{
           {"vit", &images}, {"encoder_classifier", &tokens}, {"encoder_classifier", &graphs}, {"gat", &karate}}) {
    INFO(name << " on " << to_string(std::get<VectorData>(*data).kind));
    ParamStore store;
    Rng rng(1);
    Options o;
    o.set("scoring", "cosine");
    o.set("normalizer", "sparsemax");
    if (name != "gat") o.set("d_model", "8");
    o.set("heads", "2");
    if (name == "vit") o.set("patch_size", "4");
    auto model = r.models.create(name, ModelArgs{r, ParamScope(store, rng), o, *data});
    TrainConfig c;
    c.epochs = 2;
    c.batch_size = 4;
    Trainer trainer(*model, store, r, c, 1);
    CHECK(trainer.run() == RunStatus::finished);
    const auto maps = model->record_attention({0});
    REQUIRE(maps.size() == 1);
    const Tensor& w = maps[0].maps.at(0).weights;  // [layer, head, n, n]: sparsemax rows sum to 1
    CHECK(xt::sum(w)() == Approx(static_cast<float>(w.shape()[0] * w.shape()[1] * w.shape()[2])).epsilon(1e-4));
  }
}

namespace {

// A graph dataset from edge and label lines written to `dir`; the problem it is refused with ("" if none).
std::string graph_problem(const TempDir& dir, const std::string& edges, const std::string& labels, const std::string& train = "[0]") {
  std::ofstream(dir / "edges.txt") << edges;
  std::ofstream(dir / "labels.txt") << labels;
  try {
    load("graph", {{"edges", dir / "edges.txt"}, {"labels", dir / "labels.txt"}, {"train_nodes", train}});
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("coloured_graphs: proper graphs have no edge within a colour, clashing ones exactly one; its refusals", "[data][graph]") {
  const Data data = load("coloured_graphs", {{"num_train", "400"}, {"num_valid", "100"}});
  const auto& d = std::get<VectorData>(data);
  CHECK(d.kind == InputKind::graph);
  CHECK(d.dim == 3);
  CHECK(d.classes == std::vector<std::string>{"proper", "clash"});
  REQUIRE(d.train.size() == 400);
  CHECK(d.valid.size() == 100);
  CHECK(d.probe.size() == probe_size);
  std::vector<std::size_t> rows(400);
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  const VectorBatch b = d.train.sets->batch(rows);
  std::size_t clashes = 0;
  for (std::size_t g = 0; g < 400; ++g) {
    const std::size_t n = static_cast<std::size_t>(b.lens(g));
    REQUIRE(n >= 8);
    REQUIRE(n <= 12);
    std::vector<std::size_t> colour(n);
    for (std::size_t u = 0; u < n; ++u) {
      float total = 0.0f;
      for (std::size_t c = 0; c < 3; ++c) total += b.vectors(g, u, c), colour[u] = b.vectors(g, u, c) == 1.0f ? c : colour[u];
      REQUIRE(total == 1.0f);  // one-hot
    }
    std::size_t same = 0;
    for (std::size_t u = 0; u < n; ++u) {
      REQUIRE(b.adjacency(g, u, u) == 0);  // no self loops
      for (std::size_t v = 0; v < n; ++v) {
        REQUIRE(b.adjacency(g, u, v) == b.adjacency(g, v, u));  // undirected
        if (u < v && b.adjacency(g, u, v) && colour[u] == colour[v]) ++same;
      }
      for (std::size_t v = n; v < b.adjacency.shape()[2]; ++v) REQUIRE(b.adjacency(g, u, v) == 0);  // padding joins nothing
    }
    INFO("graph " << g);
    CHECK(same == static_cast<std::size_t>(d.train.labels(g)));  // proper: none; clash: exactly one
    clashes += static_cast<std::size_t>(d.train.labels(g));
  }
  CHECK(clashes > 160);  // about half
  CHECK(clashes < 240);
  CHECK_THAT(d.valid.sets->describe(0), Catch::StartsWith("a graph of ") && Catch::Contains(" edges"));

  CHECK_THROWS_WITH(load("coloured_graphs", {{"min_nodes", "9"}, {"max_nodes", "8"}}),
                    Catch::Contains("spec.yaml:4:3: option 'min_nodes' (9) must not exceed 'max_nodes' (8)"));
  CHECK_THROWS_WITH(load("coloured_graphs", {{"min_nodes", "3"}, {"colours", "3"}}),
                    Catch::Contains("option 'min_nodes' (3) must exceed 'colours' (3), so that every graph has two nodes of one colour"));
}

TEST_CASE("encoder_classifier on graphs: attention only along edges (and <cls>); mask_edges is for graphs", "[models][graph]") {
  Options data_options;
  auto source = attn::test::builtins().datasets.create("coloured_graphs", DatasetArgs{data_options, ""});
  Rng rng(1);
  const Data data = source->load(rng);
  ParamStore store;
  Rng init(2);
  Options o;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"d_model", "8"}, {"heads", "2"}, {"positional", "none"}})
    o.set(k, v, "spec.yaml:9:3");
  const auto model = attn::test::builtins().models.create("encoder_classifier", ModelArgs{attn::test::builtins(), ParamScope(store, init), o, data});
  const std::vector<ExampleAttention> maps = model->record_attention({0, 1});
  REQUIRE(maps.size() == 2);
  const auto& d = std::get<VectorData>(data);
  for (const ExampleAttention& ex : maps) {
    const VectorBatch g = d.probe.sets->batch({ex.example});
    const Tensor& w = ex.maps.at(0).weights;  // [layer, head, 1 + n, 1 + n]
    const std::size_t n = static_cast<std::size_t>(g.lens(0));
    for (std::size_t h = 0; h < w.shape()[1]; ++h) {
      double cls_row = 0.0;
      for (std::size_t j = 0; j <= n; ++j) cls_row += w(0, h, 0, j);
      CHECK(cls_row == Approx(1.0));  // <cls> attends to every node
      CHECK(w(0, h, 0, 1) > 0.0f);
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(w(0, h, i + 1, 0) > 0.0f);  // every node attends to <cls>
        for (std::size_t j = 0; j < n; ++j)
          if (!g.adjacency(0, i, j)) CHECK(w(0, h, i + 1, j + 1) == 0.0f);
      }
    }
  }
  // a plain set of nodes (mask_edges: false): every node reads every node
  o.set("mask_edges", "false", "spec.yaml:10:3");
  ParamStore store2;
  Rng init2(2);
  const auto plain = attn::test::builtins().models.create("encoder_classifier", ModelArgs{attn::test::builtins(), ParamScope(store2, init2), o, data});
  const Tensor w = plain->record_attention({0}).at(0).maps.at(0).weights;
  CHECK(xt::amin(xt::view(w, 0, 0, xt::range(1, 5), xt::range(1, 5)))() > 0.0f);
  // mask_edges on inputs that are not graphs: refused at the key
  const Data images = load("sequence_task", {{"task", "sorted"}});
  Options on_tokens;
  on_tokens.set("mask_edges", "true", "spec.yaml:11:15");
  ParamStore store3;
  CHECK_THROWS_WITH(attn::test::builtins().models.create("encoder_classifier", ModelArgs{attn::test::builtins(), ParamScope(store3, init2), on_tokens, images}),
                    Catch::Contains("spec.yaml:11:15: option 'mask_edges' is for graphs; this dataset's inputs are tokens"));
}

TEST_CASE("graph: a graph's nodes as one set of vectors with its adjacency; bad files refused at file:line", "[data][graph]") {
  TempDir dir("attnlab-graph");
  const std::string labels = "# node class\n0 0\n1 0\n2 1\n3 1\n";
  CHECK(graph_problem(dir, "0 1\n1 2 0.5\n2 3\n", labels) == "");
  const Data data = load("graph", {{"edges", dir / "edges.txt"}, {"labels", dir / "labels.txt"}, {"train_nodes", "[0, 3]"}});
  const auto& d = std::get<VectorData>(data);
  CHECK(d.kind == InputKind::graph);
  CHECK(d.dim == 4);  // identity features
  const VectorBatch b = d.train.sets->batch({0});
  CHECK(b.vectors(0, 2, 2) == 1.0f);
  CHECK(b.vectors(0, 2, 1) == 0.0f);
  CHECK(b.adjacency(0, 1, 2) == 1);
  CHECK(b.adjacency(0, 2, 1) == 1);  // undirected
  CHECK(b.adjacency(0, 3, 3) == 1);  // its own loop
  CHECK(b.adjacency(0, 0, 3) == 0);
  CHECK(d.train.labels == IntTensor{{0, -1, -1, 1}});
  CHECK(d.valid.labels == IntTensor{{-1, 0, 1, -1}});

  CHECK_THAT(graph_problem(dir, "0 1\n1 4\n", labels), Catch::Contains("edges.txt:2: node '4' is not a node of the graph") && Catch::Contains("0 to 3"));
  CHECK_THAT(graph_problem(dir, "0 1\n# a comment\n1 0\n", labels), Catch::Contains("edges.txt:3: the edge 0 1 is given twice (first on line 1)"));
  CHECK_THAT(graph_problem(dir, "2 2\n", labels), Catch::Contains("edges.txt:1: a self edge 2 2"));
  CHECK_THAT(graph_problem(dir, "0 1 x\n", labels), Catch::Contains("edges.txt:1: expected \"node node [weight]\""));
  CHECK_THAT(graph_problem(dir, "0 -1\n", labels), Catch::Contains("edges.txt:1: node '-1' is not a node"));
  CHECK_THAT(graph_problem(dir, "0 1\n", labels, "[]"), Catch::Contains("names no node: at least one node must be labelled"));
  CHECK_THAT(graph_problem(dir, "0 1\n", labels, "[0, 1, 2, 3]"), Catch::Contains("none is left to validate on"));
  CHECK_THAT(graph_problem(dir, "0 1\n", labels, "[7]"), Catch::Contains("'7' is not a node of the graph (0 to 3)"));
  CHECK_THAT(graph_problem(dir, "0 1\n", "0 0\n1 1\n0 1\n"), Catch::Contains("labels.txt:3: node 0 is labelled twice (first on line 1)"));
  CHECK_THAT(graph_problem(dir, "0 1\n", "0 0\n2 1\n"), Catch::Contains("node 1 has no label"));
  CHECK_THAT(graph_problem(dir, "0 1\n", "0 zero\n"), Catch::Contains("labels.txt:1: expected \"node class\""));
  CHECK_THAT(graph_problem(dir, "0 1\n", "# none\n"), Catch::Contains("labels no node"));
}

TEST_CASE("gat labels the karate club from its two leaders; its attention is zero off the friendships", "[models][graph]") {
  const Data data = load("graph", {{"edges", test::source_root + "/datasets/karate-club/edges.txt"},
                                   {"labels", test::source_root + "/datasets/karate-club/clubs.txt"}, {"train_nodes", "[0, 33]"}});
  for (const std::string scoring : {"gat", "dot"}) {
    DYNAMIC_SECTION("scoring " << scoring) {
      ParamStore store;
      Rng rng(1);
      auto model = make_model("gat", data, {{"scoring", scoring}}, store, rng);
      TrainConfig c;
      c.lr = 0.005f;
      c.epochs = 200;
      c.batch_size = 1;
      Trainer trainer(*model, store, attn::test::builtins(), c, 1);
      REQUIRE(trainer.run() == RunStatus::finished);
      const Metrics m = model->evaluate(true);
      CHECK(m.at("valid_accuracy") >= 0.9);  // of the 32 members not labelled
      const auto recorded = model->record_attention({0});
      REQUIRE(recorded.at(0).maps.size() == 2);
      const IntTensor adjacency = std::get<VectorData>(data).train.sets->batch({0}).adjacency;
      for (const AttentionMap& map : recorded[0].maps) {
        INFO(map.name);
        const std::size_t heads = map.weights.shape()[1];
        CHECK(heads == (map.name == "hidden" ? 8u : 1u));
        std::size_t off_edge = 0, rows_not_one = 0;
        for (std::size_t h = 0; h < heads; ++h)
          for (std::size_t i = 0; i < 34; ++i) {
            float total = 0.0f;
            for (std::size_t j = 0; j < 34; ++j) {
              const float w = map.weights(0, h, i, j);
              off_edge += !adjacency(0, i, j) && w != 0.0f;
              total += w;
            }
            rows_not_one += std::abs(total - 1.0f) > 1e-5f;
          }
        CHECK(off_edge == 0);
        CHECK(rows_not_one == 0);
      }
    }
  }
}

TEST_CASE("attnlab predict: a trained classifier's classes for examples and typed inputs, and its refusals", "[cli][classification]") {
  TempDir dir("attnlab-predict");
  const std::string h5 = dir / "classes.h5";
  const auto run = test::command_output(test::attnlab_exe + " run " + test::source_root + "/experiments/sequence-classification.yaml --output " +
                                        h5 + " --set training.epochs=3 2>&1");
  REQUIRE(run.status == 0);
  {  // the confusion matrix of every evaluated epoch, the last one the final
    const Hdf5File f(h5, Hdf5File::Mode::read);
    const Tensor per_epoch = f.read("/runs/task-majority_pool-cls/epoch_arrays/confusion");
    REQUIRE(per_epoch.shape() == std::vector<std::size_t>{3, 10, 10});
    const Tensor first = xt::view(per_epoch, 0), last = xt::view(per_epoch, 2);
    CHECK(xt::sum(first)() == Approx(200.0));
    CHECK(last == f.read("/runs/task-majority_pool-cls/data/confusion"));
  }
  const std::string predict = test::attnlab_exe + " predict " + h5 + " --run task-majority_pool-cls";
  const auto typed = test::command_output(predict + " \"3 3 1 4\" 9919 --attention 2>&1");
  CHECK(typed.status == 0);
  CHECK_THAT(typed.text, Catch::Matches(R"(("3 3 1 4": \d (0|1)\.\d\d, \d .*\n  encoder_self attention of <cls>, last layer, mean of 4 heads:\n .*\n"9919": .*\n[^]*))"));
  const auto examples = test::command_output(predict + " --example 0 --example 199");
  CHECK(examples.status == 0);
  CHECK_THAT(examples.text, Catch::Contains("validation example 0: ") && Catch::Contains("validation example 199: ") && Catch::Contains("(label: "));
  const auto refused = [&](const std::string& args) { return test::command_output(predict + " " + args + " 2>&1"); };
  CHECK(refused("--example 200").status == 2);
  CHECK_THAT(refused("--example 200").text, Catch::Contains("--example"));
  CHECK(refused("--node 3").status == 2);
  CHECK_THAT(refused("\"3 x\"").text, Catch::Contains("not in the vocabulary"));
  CHECK_THAT(refused("").text, Catch::Contains("name inputs"));
  CHECK_THAT(refused("1234567890123").text, Catch::Contains("give 1 to 9 tokens"));
}

TEST_CASE("attnlab plot --attention lays <cls>'s attention over an image, and draws a graph's on the graph", "[cli][analysis][images][graph]") {
  TempDir dir("attnlab-pictures");
  write_image_set(dir, 6);
  std::ofstream(dir / "edges.txt") << "0 1\n1 2\n2 3\n3 0\n";
  std::ofstream(dir / "labels.txt") << "0 0\n1 0\n2 1\n3 1\n";
  std::ofstream(dir / "vit.yaml") << "name: vit\ndataset:\n  name: fashion_mnist\n  path: " << dir.path.string()
                                  << "\n  num_train: 6\n  num_valid: 3\n  resize: 8\nmodel:\n  name: vit\n  patch_size: 4\n  d_model: 8\n"
                                     "  mlp_hidden: 8\n  heads: 2\ntraining:\n  epochs: 1\n  batch_size: 3\n";
  std::ofstream(dir / "gat.yaml") << "name: gat\ndataset:\n  name: graph\n  edges: edges.txt\n  labels: labels.txt\n"
                                     "  train_nodes: [0, 2]\nmodel:\n  name: gat\n  heads: 2\ntraining:\n  epochs: 2\n  batch_size: 1\n";
  for (const std::string spec : {"vit", "gat"}) {
    const auto run = test::command_output(test::attnlab_exe + " run " + (dir / (spec + ".yaml")) + " --output " + (dir / (spec + ".h5")) + " 2>&1");
    INFO(run.text);
    REQUIRE(run.status == 0);
  }

  const auto image = test::command_output(test::attnlab_exe + " plot " + (dir / "vit.h5") + " --attention --png -o " + (dir / "vit.svg") + " 2>&1");
  REQUIRE(image.status == 0);
  const std::string svg = test::read_text(dir / "vit.svg");
  std::size_t panels = 0;
  for (std::size_t at = svg.find("data:image/png;base64,"); at != std::string::npos; at = svg.find("data:image/png;base64,", at + 1)) ++panels;
  CHECK(panels == 4);  // 2 layers x 2 heads
  CHECK_THAT(svg, Catch::Contains("&lt;cls&gt;, layer 1, head 1"));
  CHECK(std::filesystem::file_size(dir / "vit.png") > 1000);  // rsvg-convert read the embedded PNGs

  const auto graph = test::command_output(test::attnlab_exe + " plot " + (dir / "gat.h5") + " --attention -o " + (dir / "gat.svg") + " 2>&1");
  REQUIRE(graph.status == 0);
  const std::string drawn = test::read_text(dir / "gat.svg");
  std::size_t edges = 0, nodes = 0;
  for (std::size_t at = drawn.find("<line"); at != std::string::npos; at = drawn.find("<line", at + 1)) ++edges;
  for (std::size_t at = drawn.find("<circle"); at != std::string::npos; at = drawn.find("<circle", at + 1)) ++nodes;
  CHECK(edges == 8);  // 4 edges in each of the two maps (hidden, output)
  CHECK(nodes == 8);

  // Files edited by other programs: arrays of another shape are a damaged file (exit 1), never read out of bounds.
  const auto damage = [&](const std::string& h5, const std::string& array, const Tensor& value) {
    Hdf5File f(dir / h5, Hdf5File::Mode::read_write);
    const std::string path = "/runs/run/data/" + array;  // (a sweep of one run: its id is "run")
    f.remove(path);
    f.write(path, value);
  };
  damage("vit.h5", "probe_images", Tensor{1.0f, 2.0f});
  const auto flat = test::command_output(test::attnlab_exe + " plot " + (dir / "vit.h5") + " --attention -o " + (dir / "x.svg") + " 2>&1");
  CHECK(flat.status == 1);
  CHECK_THAT(flat.text, Catch::Contains("data/probe_images has shape [2], not 3 axes (a damaged file)"));
  damage("gat.h5", "adjacency", xt::ones<float>({3, 3}));
  const auto small = test::command_output(test::attnlab_exe + " plot " + (dir / "gat.h5") + " --attention -o " + (dir / "y.svg") + " 2>&1");
  CHECK(small.status == 1);
  CHECK_THAT(small.text, Catch::Contains("data/adjacency [3, 3] is not the graph of the hidden map"));
}

namespace {

// A WAV file of 16-bit samples with a given header (format, channels, bits), optionally cut short.
void write_wav(const std::string& path, const std::vector<std::int16_t>& samples, std::uint16_t format = 1, std::uint16_t channels = 1,
               std::uint16_t bits = 16, std::size_t cut = 0) {
  const auto le = [](std::uint32_t v, int bytes) {
    std::string out;
    for (int i = 0; i < bytes; ++i) out += char((v >> (8 * i)) & 255);
    return out;
  };
  std::string data;
  for (std::int16_t s : samples) data += le(static_cast<std::uint16_t>(s), 2);
  std::string fmt = le(format, 2) + le(channels, 2) + le(22050, 4) + le(22050 * 2, 4) + le(2, 2) + le(bits, 2);
  std::string file = "RIFF" + le(static_cast<std::uint32_t>(36 + data.size()), 4) + "WAVE" + "fmt " + le(16, 4) + fmt + "data" +
                     le(static_cast<std::uint32_t>(data.size()), 4) + data;
  std::ofstream(path, std::ios::binary) << file.substr(0, file.size() - cut);
}

std::string wav_error(const std::string& path) {
  try {
    read_wav(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("WAV files: 16-bit mono PCM read; other encodings and damage named", "[data][speech]") {
  TempDir dir("attnlab-wav");
  write_wav(dir / "ok.wav", {0, 16384, -32768, 100});
  const Wav wav = read_wav(dir / "ok.wav");
  CHECK(wav.sample_rate == 22050);
  CHECK(wav.samples == std::vector<float>{0.0f, 0.5f, -1.0f, 100.0f / 32768.0f});
  write_wav(dir / "stereo.wav", {0, 1}, 1, 2);
  CHECK_THAT(wav_error(dir / "stereo.wav"), Catch::Contains("not 16-bit mono PCM (format 1, 2 channels, 16 bits)"));
  write_wav(dir / "float.wav", {0, 1}, 3, 1, 32);
  CHECK_THAT(wav_error(dir / "float.wav"), Catch::Contains("not 16-bit mono PCM (format 3"));
  write_wav(dir / "cut.wav", {1, 2, 3, 4}, 1, 1, 16, 3);
  CHECK_THAT(wav_error(dir / "cut.wav"), Catch::Contains("the 'data' chunk runs past the end of the file (truncated)"));
  std::ofstream(dir / "text.wav") << "hello, not audio at all";
  CHECK_THAT(wav_error(dir / "text.wav"), Catch::Contains("not a WAV file"));
  write_wav(dir / "empty.wav", {});
  CHECK_THAT(wav_error(dir / "empty.wav"), Catch::Contains("holds no samples"));
}

TEST_CASE("log-mel frames: a pure tone lights the mel band of its frequency; frames every hop", "[data][speech]") {
  const LogMel log_mel(22050, 512, 256, 40);
  std::vector<float> tone(22050 / 2);  // half a second of 1 kHz, then of 4 kHz
  const double pi = std::acos(-1.0);
  for (std::size_t i = 0; i < tone.size(); ++i) tone[i] = static_cast<float>(std::sin(2 * pi * 1000.0 * static_cast<double>(i) / 22050.0));
  const Tensor low = log_mel(tone);
  for (std::size_t i = 0; i < tone.size(); ++i) tone[i] = static_cast<float>(std::sin(2 * pi * 4000.0 * static_cast<double>(i) / 22050.0));
  const Tensor high = log_mel(tone);
  REQUIRE(low.shape() == std::vector<std::size_t>{1 + (11025 - 512) / 256, 40});
  const auto loudest = [](const Tensor& f) {
    const auto row = xt::view(f, 10);
    return static_cast<std::size_t>(std::max_element(row.begin(), row.end()) - row.begin());
  };
  // band m is centred at mel (m + 1) top / 41 on the mel scale m(f) = 2595 log10(1 + f / 700), top = m(11025 Hz)
  const auto mel = [](double f) { return 2595.0 * std::log10(1.0 + f / 700.0); };
  const auto band = [&](double f) { return static_cast<int>(std::lround(mel(f) * 41.0 / mel(11025.0))) - 1; };
  CHECK(std::abs(static_cast<int>(loudest(low)) - band(1000.0)) <= 1);
  CHECK(std::abs(static_cast<int>(loudest(high)) - band(4000.0)) <= 1);
  CHECK(band(4000.0) - band(1000.0) > 10);
  CHECK(log_mel(std::vector<float>(100, 0.0f)).shape()[0] == 1);  // shorter than a frame: one frame
}

TEST_CASE("spoken_digits: utterances as frame sets of their own lengths, a voice held out; its refusals", "[data][speech]") {
  const Data data = load("spoken_digits", {{"path", test::source_root + "/datasets/spoken-digits/utterances.txt"}});
  const auto& d = std::get<VectorData>(data);
  CHECK(d.kind == InputKind::frames);
  CHECK(d.dim == 40);
  CHECK(d.train.size() == 360);  // 4 voices x 10 digits x 3 speeds x 3 pitches
  CHECK(d.valid.size() == 90);   // en-029
  CHECK(d.classes.at(7) == "seven");
  const VectorBatch b = d.valid.sets->batch({0, 89});
  CHECK(b.lens(0) != b.lens(1));  // "zero" slow and "nine" fast differ in length
  const std::size_t n = b.vectors.shape()[1];
  CHECK(n == static_cast<std::size_t>(std::max(b.lens(0), b.lens(1))));
  CHECK(b.times(0, 1) == Approx(256.0 / 22050.0));
  CHECK(d.valid.sets->describe(0) == "zero (en-029, 120 words a minute, pitch 35)");
  CHECK(d.probe.size() == probe_size);

  Options missing;
  missing.set("valid_voice", "en-mars", "spec.yaml:5:16");
  missing.set("path", test::source_root + "/datasets/spoken-digits/utterances.txt", "spec.yaml:4:9");
  auto source = attn::test::builtins().datasets.create("spoken_digits", DatasetArgs{missing, ""});
  Rng rng(1);
  CHECK_THROWS_WITH(source->load(rng), Catch::Contains("spec.yaml:5:16: option 'valid_voice': no utterance") && Catch::Contains("'en-mars'"));
  TempDir dir("attnlab-speech");
  std::ofstream(dir / "utterances.txt") << "wav/a.wav 12 twelve en 1 2\n";
  CHECK_THROWS_WITH(load("spoken_digits", {{"path", dir / "utterances.txt"}}), Catch::Contains("utterances.txt:1: expected \"file digit word voice speed pitch\""));

  // not made yet (outside the repository, the default path finds nothing): how to make them, exit 2
  std::ofstream(dir / "speech.yaml") << "name: speech\ndataset:\n  name: spoken_digits\nmodel:\n  name: encoder_classifier\n";
  const auto missing_data = test::command_output("cd " + dir.path.string() + " && " + test::attnlab_exe + " validate speech.yaml 2>&1");
  CHECK(missing_data.status == 2);
  CHECK_THAT(missing_data.text, Catch::Contains("speech.yaml:3:3: the spoken digits are not made yet") &&
                                    Catch::Contains("bash datasets/spoken-digits/make_spoken_digits.sh") && Catch::Contains("apt-get install espeak-ng"));
}

TEST_CASE("spoken_digits target letters: frames in, the words spelled out; k words laid end to end; its refusals",
          "[data][speech][slow]") {
  const std::string utterances = test::source_root + "/datasets/spoken-digits/utterances.txt";
  const Data one = load("spoken_digits", {{"path", utterances}, {"target", "letters"}});
  const auto& d = std::get<SequenceData>(one);
  CHECK(d.src_dim == 40);
  CHECK(d.train.size() == 360);
  CHECK(d.valid.size() == 90);
  CHECK(d.num_steps == 6);  // five letters and <eos>
  REQUIRE(d.valid.src_vectors);
  const VectorBatch zero = source_rows(d.valid, {0});
  CHECK(zero.vectors.shape()[2] == 40);
  CHECK(zero.lens(0) == d.valid.src_lens(0));
  const std::vector<int> first(d.valid.tgt.data(), d.valid.tgt.data() + 6);
  CHECK(join_tokens(d.tgt_vocab.decode(first)) == "z e r o");

  const Data three = load("spoken_digits", {{"path", utterances}, {"target", "letters"}, {"words", "3"}, {"num_train", "50"}, {"num_valid", "20"}});
  const auto& t = std::get<SequenceData>(three);
  CHECK(t.train.size() == 50);
  CHECK(t.valid.size() == 20);
  CHECK(t.probe.size() == probe_size);
  CHECK(t.num_steps == 18);  // 3 words of at most 5 letters, 2 "_", <eos>
  const std::string said = t.valid.src_vectors->describe(0);
  INFO(said);
  CHECK_THAT(said, Catch::Contains("(en-029, "));  // the held-out voice, one speaker throughout
  std::vector<std::string> words = split_tokens(said.substr(0, said.find(" (")));
  REQUIRE(words.size() == 3);
  std::vector<int> ids(t.valid.tgt.data(), t.valid.tgt.data() + t.num_steps);
  CHECK(join_tokens(t.tgt_vocab.decode(ids)) == spelled(words));
  // the frames of three words laid end to end: as long as the three utterances together
  std::size_t frames = 0;
  for (const std::string& w : words) {
    const auto& single = std::get<SequenceData>(one);
    for (std::size_t i = 0; i < single.valid.size(); ++i) {
      const std::string one_said = single.valid.src_vectors->describe(i);
      if (one_said == w + said.substr(said.find(" ("))) frames += static_cast<std::size_t>(single.valid.src_lens(i));
    }
  }
  CHECK(frames == static_cast<std::size_t>(t.valid.src_lens(0)));
  // the probe set is the same for every seed; the splits are drawn from the run's seed
  Options o;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"path", utterances}, {"target", "letters"}, {"words", "2"}})
    o.set(k, v, "spec.yaml:4:3");
  auto source = attn::test::builtins().datasets.create("spoken_digits", DatasetArgs{o, ""});
  Rng seed1(1), seed2(2);
  const auto a = std::get<SequenceData>(source->load(seed1)), b = std::get<SequenceData>(source->load(seed2));
  CHECK(a.probe.src_vectors->describe(5) == b.probe.src_vectors->describe(5));
  CHECK((a.train.tgt != b.train.tgt));

  CHECK_THROWS_WITH(load("spoken_digits", {{"path", utterances}, {"target", "phonemes"}}),
                    Catch::Contains("spec.yaml:4:3: option 'target' must be 'digit' (one label per utterance) or 'letters'"));
  CHECK_THROWS_WITH(load("spoken_digits", {{"path", utterances}, {"words", "3"}}),
                    Catch::Contains("option 'words' (3 digits an input) needs 'target: letters'"));
  CHECK_THROWS_WITH(load("spoken_digits", {{"path", utterances}, {"target", "letters"}, {"num_train", "10"}}),
                    Catch::Contains("option 'num_train' is for 'words' above 1"));
}

TEST_CASE("frames to letters: seq2seq reads frames, the models that read tokens refuse them", "[models][speech][slow]") {
  TempDir dir("attnlab-spelling-models");
  const std::string head = "name: spell\ndataset:\n  name: spoken_digits\n  path: " + test::source_root +
                           "/datasets/spoken-digits/utterances.txt\n  target: letters\nmodel:\n  name: ";
  std::ofstream(dir / "spell.yaml") << head << "seq2seq\n  embed: 8\n  hidden: 8\n  layers: 1\ntraining:\n  epochs: 1\n"
                                       "  batch_size: 64\nrecord:\n  attention: [0]\n";
  const auto run = test::command_output(test::attnlab_exe + " run " + (dir / "spell.yaml") + " --output " + (dir / "spell.h5") + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.text, Catch::Contains("monotonicity"));
  const auto translate = test::command_output(test::attnlab_exe + " translate " + (dir / "spell.h5") + " five 2>&1");
  CHECK(translate.status == 2);
  CHECK_THAT(translate.text, Catch::Contains("its sources are not words (speech frames)"));
  for (const std::string model : {"transformer", "encoder_tagger"}) {
    std::ofstream(dir / "tokens.yaml") << head << model << "\n";
    const auto refused = test::command_output(test::attnlab_exe + " validate " + (dir / "tokens.yaml") + " 2>&1");
    INFO(refused.text);
    CHECK(refused.status == 2);
    CHECK_THAT(refused.text, Catch::Contains("tokens.yaml:") && Catch::Contains("model '" + model + "' reads sources of tokens") &&
                                 Catch::Contains("seq2seq reads both"));
  }
}

TEST_CASE("make_spoken_digits.sh without espeak-ng says how to install it, exits 1 and writes nothing", "[data][speech]") {
  TempDir dir("attnlab-no-espeak");
  std::filesystem::create_directories(dir / "bin");
  std::filesystem::create_symlink("/usr/bin/dirname", dir / "bin/dirname");  // all the script needs before its check
  std::filesystem::copy_file(test::source_root + "/datasets/spoken-digits/make_spoken_digits.sh", dir / "make.sh");
  const auto out = test::command_output("PATH=" + (dir / "bin") + " /bin/bash " + (dir / "make.sh") + " 2>&1");
  CHECK(out.status == 1);
  CHECK_THAT(out.text, Catch::Contains("espeak-ng is not installed: sudo apt-get install espeak-ng"));
  CHECK_FALSE(std::filesystem::exists(dir / "utterances.txt"));
  CHECK_FALSE(std::filesystem::exists(dir / "wav.new"));
}

TEST_CASE("attnlab plot --attention draws a frames run's attention over time above its spectrogram", "[cli][analysis][speech][slow]") {
  TempDir dir("attnlab-speech-plot");
  std::ofstream(dir / "speech.yaml") << "name: speech\ndataset:\n  name: spoken_digits\n  path: " << test::source_root
                                     << "/datasets/spoken-digits/utterances.txt\nmodel:\n  name: encoder_classifier\n  d_model: 8\n"
                                        "  heads: 2\n  layers: 1\ntraining:\n  epochs: 1\n  batch_size: 32\nrecord:\n  attention: [3]\n";
  const auto run = test::command_output(test::attnlab_exe + " run " + (dir / "speech.yaml") + " --output " + (dir / "speech.h5") + " 2>&1");
  INFO(run.text);
  REQUIRE(run.status == 0);
  const auto plot = test::command_output(test::attnlab_exe + " plot " + (dir / "speech.h5") + " --attention -o " + (dir / "speech.svg") + " 2>&1");
  REQUIRE(plot.status == 0);
  const std::string svg = test::read_text(dir / "speech.svg");
  CHECK_THAT(svg, Catch::Contains("&lt;cls&gt;&#39;s attention over time") && Catch::Contains("log-mel frames") && Catch::Contains("seconds"));
  CHECK_THAT(svg, Catch::Contains("example_3") && Catch::Contains("(en-029, "));
}

TEST_CASE("IDX files: bytes after a gzip stream are refused; only the rows asked for are kept", "[data][idx]") {
  TempDir dir("attnlab-idx-rows");
  write_idx(dir / "packed.gz", {3, 2, 2}, "abcdefghijkl", true);
  std::ofstream(dir / "packed.gz", std::ios::binary | std::ios::app) << "trailing junk";
  CHECK_THAT(read_error(dir / "packed.gz", 3), Catch::Contains(dir / "packed.gz") && Catch::Contains("bytes follow its gzip data"));
  for (const bool gzip : {false, true}) {
    const std::string path = dir / (gzip ? "rows.gz" : "rows");
    write_idx(path, {3, 2, 2}, "abcdefghijkl", gzip);
    const IdxArray two = read_idx_bytes(path, 3, 1000, 2);
    CHECK(two.shape == std::vector<std::size_t>{3, 2, 2});  // the file's shape
    CHECK(std::string(two.data.begin(), two.data.end()) == "abcdefgh");
    write_idx(path, {3, 2, 2}, "abcdefghijk", gzip);  // one byte short: found though not kept
    CHECK_THROWS_WITH(read_idx_bytes(path, 3, 1000, 1), Catch::Contains("truncated"));
  }
}
