// Plugins that end the process instead of returning or throwing: attnlab must still say which
// plugin and which call, exit 1, and keep the runs finished before (lab/cli/crash_report.hpp).
//   segfaults_in_score: writes through a null pointer in score()
//   overflows_stack: recurses without end in score()
//   aborts_in_normalize: calls std::abort() in normalize()
//   exits_in_normalize: calls std::exit(3) in normalize()
//   throws_int_in_normalize / throws_int_in_constructor: `throw 42`, which is no std::exception
// The first four work (dot-product scores, masked softmax) for their first 40 calls, past what
// validation makes, then wait a second (for the runs finished before to be written) and fail;
// with ATTNLAB_TEST_PLUGINS_BEHAVE set they always work, so that a test can complete with
// --resume the sweep a crash stopped.
#include <attnlab/plugin.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace {
bool behave() {
  static std::atomic<int> calls{0};
  if (std::getenv("ATTNLAB_TEST_PLUGINS_BEHAVE") || ++calls <= 40) return true;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  return false;
}

class SegfaultsInScore final : public attn::ScoringFunction {
 public:
  explicit SegfaultsInScore(const attn::ScoringArgs&) {}
  // (not checked by UndefinedBehaviorSanitizer, which would report the write instead of letting it crash)
  __attribute__((no_sanitize("undefined"))) attn::Var score(const attn::Var& q, const attn::Var& k) override {
    if (behave()) return attn::bmm(q, k, false, true);
    volatile int* nowhere = nullptr;
    *nowhere = 1;
    return {};
  }
};

#pragma GCC diagnostic ignored "-Winfinite-recursion"  // the point of overflows_stack
int deeper(int n) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(n);
  return deeper(n + 1) + frame[0];
}

class OverflowsStack final : public attn::ScoringFunction {
 public:
  explicit OverflowsStack(const attn::ScoringArgs&) {}
  attn::Var score(const attn::Var& q, const attn::Var& k) override {
    if (behave() || deeper(0) == 0) return attn::bmm(q, k, false, true);
    return {};
  }
};

class AbortsInNormalize final : public attn::Normalizer {
 public:
  explicit AbortsInNormalize(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    if (behave()) return attn::masked_softmax(scores, lens);
    std::abort();
  }
};

class ExitsInNormalize final : public attn::Normalizer {
 public:
  explicit ExitsInNormalize(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens& lens) override {
    if (behave()) return attn::masked_softmax(scores, lens);
    std::exit(3);
  }
};

class ThrowsIntInNormalize final : public attn::Normalizer {
 public:
  explicit ThrowsIntInNormalize(const attn::NormalizerArgs&) {}
  attn::Var normalize(const attn::Var&, const attn::ValidLens&) override { throw 42; }
};

class ThrowsIntInConstructor final : public attn::Normalizer {
 public:
  explicit ThrowsIntInConstructor(const attn::NormalizerArgs&) { throw 42; }
  attn::Var normalize(const attn::Var& scores, const attn::ValidLens&) override { return scores; }
};
}  // namespace

ATTNLAB_PLUGIN(registry) {
  registry.scoring.add<SegfaultsInScore>("segfaults_in_score", "writes through a null pointer (a test plugin)");
  registry.scoring.add<OverflowsStack>("overflows_stack", "recurses without end (a test plugin)");
  registry.normalizers.add<AbortsInNormalize>("aborts_in_normalize", "calls abort() (a test plugin)");
  registry.normalizers.add<ExitsInNormalize>("exits_in_normalize", "calls exit(3) (a test plugin)");
  registry.normalizers.add<ThrowsIntInNormalize>("throws_int_in_normalize", "throws 42 (a test plugin)");
  registry.normalizers.add<ThrowsIntInConstructor>("throws_int_in_constructor", "throws 42 when constructed (a test plugin)");
}
