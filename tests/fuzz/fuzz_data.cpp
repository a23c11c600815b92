// libFuzzer target: the readers of data files that are not parallel corpora. The first byte
// picks the reader, the second its options, the next four give the sizes of the first two
// parts of the rest (16-bit little-endian); what is left is the third part:
//   0  IDX images and labels (fashion_mnist: train-images-idx3-ubyte, train-labels-idx1-ubyte)
//   1  a graph (graph: the edges, labels and features files)
//   2  a text corpus (text_corpus: characters or words, d2l's preprocessing or none)
//   3  spoken digits (spoken_digits: the utterances table, and the WAV file it may name, a.wav)
// Errors must be exceptions with a message, never crashes, and nothing may be allocated that
// the input's size does not justify (libFuzzer's -rss_limit_mb catches that).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "lab/builtins.hpp"
#include "attnlab/registries.hpp"

namespace {

struct Parts {
  std::uint8_t reader = 0, flags = 0;
  std::string_view a, b, c;
};

Parts split(const std::uint8_t* data, std::size_t size) {
  Parts p;
  if (size < 6) return p;
  p.reader = data[0] % 4;
  p.flags = data[1];
  std::string_view rest(reinterpret_cast<const char*>(data + 6), size - 6);
  const std::size_t la = std::min<std::size_t>(data[2] | (data[3] << 8), rest.size());
  p.a = rest.substr(0, la);
  rest.remove_prefix(la);
  const std::size_t lb = std::min<std::size_t>(data[4] | (data[5] << 8), rest.size());
  p.b = rest.substr(0, lb);
  p.c = rest.substr(lb);
  return p;
}

void write(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The dataset's name and options for the parts written into `dir`.
std::string prepare(const Parts& p, const std::filesystem::path& dir, attn::Options& o) {
  const auto small = [&](int shift, int count) { return std::to_string(1 + ((p.flags >> shift) & 7) % count); };
  switch (p.reader) {
    case 0:
      write(dir / "train-images-idx3-ubyte", p.a);
      write(dir / "train-labels-idx1-ubyte", p.b);
      o.set("path", dir.string());
      o.set("num_train", small(0, 4));
      o.set("num_valid", "0");
      o.set("resize", (p.flags & 0x80) ? "7" : "0");
      return "fashion_mnist";
    case 1:
      write(dir / "edges.txt", p.a);
      write(dir / "labels.txt", p.b);
      write(dir / "features.txt", p.c);
      o.set("edges", (dir / "edges.txt").string());
      o.set("labels", (dir / "labels.txt").string());
      if (p.flags & 1) o.set("features", (dir / "features.txt").string());
      if (p.flags & 2) o.set("train_nodes", std::string(p.c.substr(0, 40)));
      return "graph";
    case 2:
      write(dir / "corpus.txt", p.a);
      o.set("path", (dir / "corpus.txt").string());
      o.set("tokens", (p.flags & 1) ? "word" : "char");
      o.set("preprocess", (p.flags & 2) ? "none" : "d2l");
      o.set("num_steps", small(2, 8));
      o.set("num_train", small(5, 6));
      o.set("num_valid", std::to_string((p.flags >> 6) & 3));
      return "text_corpus";
    default:
      write(dir / "utterances.txt", p.a);
      write(dir / "a.wav", p.b);
      o.set("path", (dir / "utterances.txt").string());
      o.set("mels", "8");
      o.set("valid_voice", "v");
      if (p.flags & 1) {
        o.set("target", "letters");
        o.set("words", small(1, 3));
        o.set("num_train", "2");
        o.set("num_valid", "1");
      }
      return "spoken_digits";
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static attn::Registries registries = [] {
    attn::Registries r;
    attn::register_builtins(r);
    return r;
  }();
  static const std::filesystem::path dir = [] {
    std::filesystem::path d = "/dev/shm/attnlab-fuzz-data-" + std::to_string(getpid());
    std::filesystem::create_directories(d);
    return d;
  }();
  const Parts parts = split(data, size);
  attn::Options o;
  const std::string name = prepare(parts, dir, o);
  try {
    auto source = registries.datasets.create(name, attn::DatasetArgs{o, ""});
    (void)source->footprint();
    attn::Rng rng(0);
    (void)source->load(rng);
  } catch (const std::exception&) {
    // a clear error is the expected outcome for most inputs
  }
  return 0;
}
