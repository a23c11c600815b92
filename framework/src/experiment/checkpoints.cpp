#include "attnlab/experiment/checkpoints.hpp"

#include <filesystem>

#include "attnlab/io/hdf5_file.hpp"

namespace attn {

namespace fs = std::filesystem;

std::string checkpoint_directory(const std::string& results_path) { return results_path + ".checkpoints"; }

std::string checkpoint_path(const std::string& results_path, const std::string& run_id) {
  return (fs::path(checkpoint_directory(results_path)) / (run_id + ".h5")).string();
}

void save_checkpoint(const Trainer& trainer, const RunCheckpoint& checkpoint) {
  fs::create_directories(fs::path(checkpoint.path).parent_path());
  const std::string partial = checkpoint.path + ".partial";
  {
    Hdf5File f(partial, Hdf5File::Mode::create_truncate);
    trainer.save_checkpoint(f, "/trainer");
    f.set_attr("/", "config", checkpoint.config);
  }
  fs::rename(partial, checkpoint.path);  // atomic: the old checkpoint or the new one, whole
}

std::size_t load_checkpoint(Trainer& trainer, const RunCheckpoint& checkpoint) {
  if (!checkpoint.resume || !fs::exists(checkpoint.path)) return 0;
  const Hdf5File f(checkpoint.path, Hdf5File::Mode::read);
  if (f.attr_string("/", "config") != checkpoint.config)
    throw Hdf5Error(checkpoint.path + ": this checkpoint was made with another configuration of the run "
                                      "(different --set?); delete it to start the run from scratch");
  trainer.load_checkpoint(f, "/trainer");
  return trainer.epochs_done();
}

void remove_checkpoint(const std::string& results_path, const std::string& run_id) {
  std::error_code ignored;
  fs::remove(checkpoint_path(results_path, run_id), ignored);
  fs::remove(checkpoint_path(results_path, run_id) + ".partial", ignored);
  fs::remove(checkpoint_directory(results_path), ignored);  // only succeeds when empty
}

void remove_checkpoints(const std::string& results_path) {
  std::error_code ignored;
  fs::remove_all(checkpoint_directory(results_path), ignored);
}

}  // namespace attn
