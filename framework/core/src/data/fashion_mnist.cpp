// Dataset `fashion_mnist`: Fashion-MNIST (Xiao et al. 2017), or any set of IDX files in its
// layout (MNIST too), as d2l reads it: 28 x 28 grey images, the test split as validation,
// optionally resized as torchvision's Resize (image_resize.hpp), pixels scaled to [0, 1] as
// ToTensor. An image reaches a model as a set of vectors: its resize^2 pixels, one grey value
// each, in row-major order on a resize x resize grid (VectorData::grid_rows, grid_cols).
// Options: path (a directory holding train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz],
// t10k-images-idx3-ubyte[.gz], t10k-labels-idx1-ubyte[.gz]; default Debian's
// dataset-fashion-mnist package), num_train (the first images of the training files),
// num_valid (the first of the test files), resize (pixels a side; 0, the default: as the files hold them).
#include <algorithm>
#include <filesystem>

#include "attnlab/data/dataset.hpp"
#include "attnlab/file_kind.hpp"
#include "attnlab/registry.hpp"

#include <xtensor/xview.hpp>
#include "idx_file.hpp"
#include "image_resize.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

constexpr const char* debian_path = "/usr/share/datasets/fashion-mnist";
constexpr std::size_t max_images = 10000000, max_side = 4096;

// Images [N, side, side] of bytes, resized to out_side when a batch is made.
class ImageSets final : public VectorSets {
 public:
  ImageSets(std::vector<std::uint8_t> pixels, std::size_t count, std::size_t side, std::size_t out_side)
      : pixels_(std::move(pixels)), count_(count), side_(side), out_side_(out_side), resize_(side, side, out_side, out_side) {}

  std::size_t size() const override { return count_; }

  VectorBatch batch(const std::vector<std::size_t>& rows) const override {
    const std::size_t n = out_side_ * out_side_;
    VectorBatch b;
    b.vectors = Tensor::from_shape({rows.size(), n, 1});
    b.lens = IntTensor::from_shape({rows.size()});
    std::vector<std::uint8_t> resized(n);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      resize_(pixels_.data() + rows[i] * side_ * side_, resized.data());
      float* out = b.vectors.data() + i * n;
      for (std::size_t p = 0; p < n; ++p) out[p] = static_cast<float>(resized[p]) / 255.0f;
      b.lens(i) = static_cast<int>(n);
    }
    return b;
  }

  std::string describe(std::size_t row) const override { return "image " + std::to_string(row); }
  // The bytes of the first n images.
  std::vector<std::uint8_t> first_pixels(std::size_t n) const {
    return {pixels_.begin(), pixels_.begin() + static_cast<std::ptrdiff_t>(n * side_ * side_)};
  }

 private:
  std::vector<std::uint8_t> pixels_;
  std::size_t count_, side_, out_side_;
  ImageResize resize_;
};

const std::vector<std::string> fashion_classes = {"t-shirt", "trouser", "pullover", "dress", "coat",
                                                  "sandal", "shirt", "sneaker", "bag", "ankle boot"};

class FashionMnist final : public DatasetSource {
 public:
  explicit FashionMnist(const DatasetArgs& a)
      : path_(resolve_data_path(a.options.get<std::string>("path", debian_path), a.base_dir)),
        num_train_(a.options.get<std::size_t>("num_train", 60000, 1, max_images)),
        num_valid_(a.options.get<std::size_t>("num_valid", 10000, 0, max_images)),
        resize_(a.options.get<std::size_t>("resize", 0, 0, 1024)),
        where_(a.options.where("path")),
        train_where_(first_written(a.options, {"num_train", "resize"})),
        valid_where_(first_written(a.options, {"num_valid", "resize"})) {
    std::error_code ec;
    if (!fs::is_directory(path_, ec)) {
      if (!a.options.has("path"))  // (no place of its own: reported at the dataset's name)
        throw std::invalid_argument(std::string("Fashion-MNIST is not installed: ") + debian_path +
                                    " does not exist. Install Debian's package (sudo apt-get install dataset-fashion-mnist; "
                                    "bash .ci/setup does), or name a directory of IDX files with option 'path'");
      throw SpecError(where_, "option 'path': '" + path_ + "' is not a directory holding the IDX files "
                              "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte (each may end in .gz)");
    }
    for (const char* stem : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"})
      if ((std::string(stem).find("t10k") == std::string::npos || num_valid_ > 0) && file_of(stem).empty()) {
        for (const std::string& name : {std::string(stem), std::string(stem) + ".gz"})
          if (const std::string what = not_a_regular_file((fs::path(path_) / name).string()); what != "no such file")
            throw SpecError(where_, "option 'path': '" + (fs::path(path_) / name).string() + "': " + what + ", not an IDX file");
        throw SpecError(where_, "option 'path': '" + path_ + "' holds no " + stem + " (nor " + stem + ".gz)");
      }
  }

  Data load(Rng&) const override {
    VectorData d;
    d.kind = InputKind::image;
    d.dim = 1;
    std::size_t side = 0;
    d.train = split("train", num_train_, side);
    std::size_t classes = 1 + static_cast<std::size_t>(*std::max_element(d.train.labels.begin(), d.train.labels.end()));
    if (num_valid_ > 0) {
      std::size_t valid_side = 0;
      d.valid = split("t10k", num_valid_, valid_side);
      if (valid_side != side)
        throw std::runtime_error(file_of("t10k-images-idx3-ubyte") + ": images of " + std::to_string(valid_side) + " pixels a side, the training images have " +
                                 std::to_string(side));
      classes = std::max(classes, 1 + static_cast<std::size_t>(*std::max_element(d.valid.labels.begin(), d.valid.labels.end())));
    }
    d.probe = first_images(d.valid.size() ? d.valid : d.train, side);
    d.grid_rows = d.grid_cols = resize_ ? resize_ : side;
    d.max_len = d.grid_rows * d.grid_cols;
    const bool fashion = path_ == debian_path && classes <= fashion_classes.size();
    for (std::size_t c = 0; c < classes; ++c) d.classes.push_back(fashion ? fashion_classes[c] : std::to_string(c));
    return d;
  }

  // The images as bytes (and, while reading, once more), the labels as ints.
  Footprint footprint() const override {
    const double per = 2.0 * 28 * 28 + sizeof(int);
    const auto part = [&](const char* name, std::size_t n, const std::string& where) {
      return MemoryUse{std::string("the ") + name + " split: " + std::to_string(n) + " images", per * static_cast<double>(n), where};
    };
    return {part("training", num_train_, train_where_), part("validation", num_valid_, valid_where_)};
  }

 private:
  std::string file_of(const std::string& stem) const {
    for (const std::string& name : {stem, stem + ".gz"})
      if (fs::is_regular_file(fs::path(path_) / name)) return (fs::path(path_) / name).string();
    return "";
  }

  // The probe set: the first probe_size images of `split` (the validation images 0, 1, ...),
  // copied so that a run's recorded examples are the same images for every seed.
  VectorSplit first_images(const VectorSplit& split, std::size_t side) const {
    const auto& images = static_cast<const ImageSets&>(*split.sets);
    const std::size_t n = std::min(probe_size, split.size());
    VectorSplit probe;
    probe.labels = xt::view(split.labels, xt::range(0, n));
    probe.sets = std::make_shared<ImageSets>(images.first_pixels(n), n, side, resize_ ? resize_ : side);
    return probe;
  }

  // The first `wanted` images and labels of the IDX pair `prefix`-images / `prefix`-labels;
  // `side` is set to the images' size (pixels a side, before any resize).
  VectorSplit split(const std::string& prefix, std::size_t wanted, std::size_t& side) const {
    const std::string images_file = file_of(prefix + "-images-idx3-ubyte"), labels_file = file_of(prefix + "-labels-idx1-ubyte");
    IdxArray images = read_idx_bytes(images_file, 3, max_images * 28 * 28, wanted);
    const IdxArray labels = read_idx_bytes(labels_file, 1, max_images, wanted);
    const std::size_t count = images.shape[0];
    side = images.shape[1];
    if (images.shape[1] != images.shape[2] || side > max_side)
      throw std::runtime_error(images_file + ": images of " + std::to_string(images.shape[1]) + " x " + std::to_string(images.shape[2]) +
                               " pixels; square images up to " + std::to_string(max_side) + " pixels a side are read");
    if (labels.shape[0] != count)
      throw std::runtime_error(labels_file + ": " + std::to_string(labels.shape[0]) + " labels for the " + std::to_string(count) +
                               " images of " + images_file);
    if (wanted > count)
      throw std::runtime_error(images_file + ": holds " + std::to_string(count) + " images, fewer than the " + std::to_string(wanted) +
                               " asked for (option '" + (prefix == "train" ? "num_train" : "num_valid") + "')");
    VectorSplit s;
    s.labels = IntTensor::from_shape({wanted});
    for (std::size_t i = 0; i < wanted; ++i) {
      if (labels.data[i] > 99)
        throw std::runtime_error(labels_file + ": label " + std::to_string(labels.data[i]) + " of image " + std::to_string(i) +
                                 " is not a class number (0 to 99)");
      s.labels(i) = labels.data[i];
    }
    images.data.resize(wanted * side * side);
    s.sets = std::make_shared<ImageSets>(std::move(images.data), wanted, side, resize_ ? resize_ : side);
    return s;
  }

  std::string path_;
  std::size_t num_train_, num_valid_, resize_;
  std::string where_, train_where_, valid_where_;
};

}  // namespace

void register_dataset_fashion_mnist(Registry<DatasetSource, DatasetArgs>& r) {
  r.add<FashionMnist>("fashion_mnist", "Fashion-MNIST (or any IDX image set): images as sets of pixel vectors on a grid, one class each");
}

}  // namespace attn
