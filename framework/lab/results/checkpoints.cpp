#include "lab/results/checkpoints.hpp"

#include <filesystem>

#include "lab/results/results_format.hpp"
#include "lab/spec/spec.hpp"

namespace attn {

namespace fs = std::filesystem;

std::string checkpoint_directory(const std::string& results_path) { return results_path + ".checkpoints"; }

std::string checkpoint_path(const std::string& results_path, const std::string& run_id) {
  return (fs::path(checkpoint_directory(results_path)) / (run_id + ".h5")).string();
}

void save_checkpoint(const Trainer& trainer, const RunCheckpoint& checkpoint) {
  std::error_code ec;
  fs::create_directories(fs::path(checkpoint.path).parent_path(), ec);
  if (ec) throw FileError("cannot make the checkpoint directory " + fs::path(checkpoint.path).parent_path().string() + ": " + ec.message());
  const std::string partial = checkpoint.path + ".partial";
  write_trainer_state(partial, trainer.state(), checkpoint.config);
  fs::rename(partial, checkpoint.path, ec);  // atomic: the old checkpoint or the new one, whole
  if (ec) throw FileError("cannot put the checkpoint in place as " + checkpoint.path + ": " + ec.message());
}

std::size_t load_checkpoint(Trainer& trainer, const RunCheckpoint& checkpoint) {
  if (!checkpoint.resume || !fs::exists(checkpoint.path)) return 0;
  if (!same_run_configuration(checkpoint_config(checkpoint.path), checkpoint.config))
    throw FileError(checkpoint.path + ": this checkpoint was made with another configuration of the run "
                                      "(different --set?); delete it to start the run from scratch");
  try {
    trainer.restore(read_trainer_state(checkpoint.path));
  } catch (const FileError&) {
    throw;
  } catch (const Error& e) {
    throw FileError(checkpoint.path + ": " + e.what());
  }
  return trainer.epochs_done();
}

void remove_checkpoint(const std::string& results_path, const std::string& run_id) {
  std::error_code ignored;
  fs::remove(checkpoint_path(results_path, run_id), ignored);
  fs::remove(checkpoint_path(results_path, run_id) + ".partial", ignored);
}

void remove_empty_checkpoint_directory(const std::string& results_path) {
  std::error_code ignored;
  fs::remove(checkpoint_directory(results_path), ignored);  // only succeeds when empty
}

void remove_checkpoints(const std::string& results_path) {
  std::error_code ignored;
  fs::remove_all(checkpoint_directory(results_path), ignored);
}

}  // namespace attn
