// The training keys that depend on each other, checked on each run's plan (a sweep may change
// the schedule or the decay): a key that the chosen schedule or decay does not read is refused
// rather than ignored (unless the choice is swept: other points read it), and the keys a
// choice needs must be there.
#include <algorithm>

#include "lab/spec/schema.hpp"
#include "lab/spec/stages.hpp"

namespace attn {
namespace {

struct Rule {
  std::string key;                   // a dotted key that only some choices read
  std::vector<std::string> readers;  // the choices that read it
  std::vector<std::string> needers;  // the choices that cannot do without it
};

// Schedules: warmup is read by all of them (and needed by noam).
const std::vector<Rule> schedule_rules = {
    {"training.schedule.warmup", {"constant", "step", "cosine", "noam"}, {"noam"}},
    {"training.schedule.step_size", {"step"}, {}},
    {"training.schedule.gamma", {"step"}, {}},
    {"training.schedule.min_lr", {"cosine"}, {}},
    {"training.schedule.factor", {"noam"}, {}},
    {"training.schedule.d_model", {"noam"}, {"noam"}},
};

const std::vector<Rule> sampling_rules = {
    {"training.scheduled_sampling.k", {"exponential", "inverse_sigmoid"}, {"exponential", "inverse_sigmoid"}},
    {"training.scheduled_sampling.slope", {"linear"}, {"linear"}},
    {"training.scheduled_sampling.min", {"linear"}, {}},
};

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void check_rules(const RunPlan& plan, const std::vector<Rule>& rules, const std::string& choice_key,
                 const std::string& choice, std::vector<Diagnostic>& out) {
  // A swept choice: the other sweep points read what this one does not.
  const bool swept = std::any_of(plan.sweep_point.begin(), plan.sweep_point.end(),
                                 [&](const auto& axis) { return axis.first == choice_key; });
  for (const Rule& rule : rules) {
    const bool written = plan.values.count(rule.key) > 0;
    if (written && !swept && !contains(rule.readers, choice)) {
      std::string readers;
      for (const std::string& r : rule.readers) readers += (readers.empty() ? "'" : ", '") + r + "'";
      out.push_back({plan.where(rule.key, ""), "'" + rule.key + "' is read only by " + choice_key + " " + readers +
                                                        ", and this run's is '" + choice + "'; remove it"});
    }
    if (!written && contains(rule.needers, choice))
      out.push_back({plan.where(choice_key, ""), choice_key + " '" + choice + "' needs '" + rule.key + "' (" +
                                                         find_spec_key(rule.key)->doc + ")"});
  }
}

}  // namespace

void check_training_plan(const RunPlan& plan, std::vector<Diagnostic>& out) {
  const TrainConfig& t = plan.training;
  check_rules(plan, schedule_rules, "training.schedule.name", t.schedule.name, out);
  if (t.schedule.name == "noam" && plan.values.count("training.schedule.warmup") && t.schedule.warmup == 0)
    out.push_back({plan.where("training.schedule.warmup", ""), "schedule 'noam' needs a warmup of at least 1 update"});
  if (t.schedule.name == "cosine" && t.schedule.min_lr > t.lr)
    out.push_back({plan.where("training.schedule.min_lr", ""), "'training.schedule.min_lr' (" + plan.values.at("training.schedule.min_lr").text() +
                                                                         ") must not exceed 'training.lr'"});
  check_rules(plan, sampling_rules, "training.scheduled_sampling.decay", t.teacher_forcing.decay, out);
  if (plan.values.count("training.steps") && plan.values.count("training.epochs"))
    out.push_back({plan.where("training.steps", ""), "give 'training.steps' (updates in all) or 'training.epochs' (whole passes), "
                                                         "not both: the steps decide how many epochs there are"});
  const double k = t.teacher_forcing.k;
  if (t.teacher_forcing.decay == "exponential" && k >= 1.0)
    out.push_back({plan.where("training.scheduled_sampling.k", ""), "exponential decay needs k < 1 (the ratio is multiplied by k each update)"});
  if (t.teacher_forcing.decay == "inverse_sigmoid" && plan.values.count("training.scheduled_sampling.k") && k < 1.0)
    out.push_back({plan.where("training.scheduled_sampling.k", ""), "inverse_sigmoid decay needs k >= 1 (k / (k + exp(i / k)))"});
}

}  // namespace attn
