#include "lab/runner/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>

namespace attn {
namespace {

std::string duration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) % 3600 / 60);
  return buf;
}

// The terminal's width in columns (80 when it does not say): live lines are cut to it, so a
// long run id never wraps and breaks the redraw.
std::size_t columns_of(std::FILE* out) {
  winsize w{};
  return ioctl(fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col > 0 ? w.ws_col : 80;
}

std::string cut(std::string line, std::size_t width) {
  if (line.size() >= width) line.resize(width - 1);
  return line;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

Progress::Progress(std::FILE* out, bool terminal, std::size_t total_runs, std::size_t skipped, std::size_t sweep_runs)
    : out_(out), terminal_(terminal), total_(total_runs), done_(skipped), sweep_runs_(sweep_runs ? sweep_runs : total_runs) {
  if (skipped) std::fprintf(out_, "resuming: %zu of %zu runs already finished\n", skipped, total_runs);
}

std::string Progress::line_for(const std::string& id, const Active& a) const {
  const double elapsed = seconds_since(a.start);
  std::string eta = "?";
  if (a.epoch > 0 && a.epochs >= a.epoch) eta = duration(elapsed / static_cast<double>(a.epoch) * static_cast<double>(a.epochs - a.epoch));
  char loss[32] = "-";
  if (a.epoch > 0) std::snprintf(loss, sizeof loss, "%.4g", a.loss);
  char buf[256];
  if (!a.stage.empty()) std::snprintf(buf, sizeof buf, "  %-36s %s", id.c_str(), a.stage.c_str());
  else std::snprintf(buf, sizeof buf, "  %-36s epoch %4zu/%-4zu  loss %-10s  eta %s", id.c_str(), a.epoch, a.epochs, loss, eta.c_str());
  return buf;
}

void Progress::started(const std::string& id, std::size_t index, std::size_t epochs) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_[id] = Active{0, epochs, 0.0, std::chrono::steady_clock::now()};
  if (terminal_) return;
  std::fprintf(out_, "[run %zu of %zu] start %s (%s)\n", index + 1, sweep_runs_, id.c_str(),
               epochs ? (std::to_string(epochs) + " epoch" + (epochs == 1 ? "" : "s")).c_str() : "nothing to train: evaluated only");
  std::fflush(out_);
}

void Progress::epoch(const std::string& id, std::size_t epoch, double loss) {
  std::lock_guard<std::mutex> lock(mutex_);
  Active& a = active_[id];
  a.epoch = epoch;
  a.loss = loss;
  // Plain mode: about ten lines per run, plus the last epoch.
  const std::size_t every = std::max<std::size_t>(1, a.epochs / 10);
  if (!terminal_ && (epoch % every == 0 || epoch == a.epochs)) {
    std::fprintf(out_, "%s\n", line_for(id, a).c_str());
    std::fflush(out_);
  }
}

void Progress::stage(const std::string& id, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  Active& a = active_[id];
  a.stage = what;
  if (terminal_) return;
  std::fprintf(out_, "%s\n", line_for(id, a).c_str());
  std::fflush(out_);
}

void Progress::finished(const std::string& id, const std::string& status, double seconds, const std::string& note) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_.erase(id);
  ++done_;
  clear_area();
  std::fprintf(out_, "[%zu/%zu] %-9s %s (%s)%s%s\n", done_, total_, status.c_str(), id.c_str(), duration(seconds).c_str(),
               note.empty() ? "" : ": ", note.c_str());
  std::fflush(out_);
}

void Progress::clear_area() {
  if (!terminal_) return;
  for (std::size_t i = 0; i < drawn_lines_; ++i) std::fprintf(out_, "\x1b[1A\x1b[2K");
  drawn_lines_ = 0;
}

void Progress::redraw() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!terminal_) return;
  clear_area();
  const std::size_t width = columns_of(out_);
  std::fprintf(out_, "%s\n", cut("running " + std::to_string(active_.size()) + " of " + std::to_string(total_) + " runs, " +
                                     std::to_string(done_) + " done, elapsed " + duration(seconds_since(start_)), width).c_str());
  ++drawn_lines_;
  for (const auto& [id, a] : active_) {
    std::fprintf(out_, "%s\n", cut(line_for(id, a), width).c_str());
    ++drawn_lines_;
  }
  std::fflush(out_);
}

void Progress::done() {
  std::lock_guard<std::mutex> lock(mutex_);
  clear_area();
  std::fflush(out_);
}

}  // namespace attn
