#include "trained_run.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "attnlab/data/text.hpp"
#include "attnlab/plugin_loader.hpp"
#include "lab/builtins.hpp"
#include "lab/spec/schema.hpp"

namespace attn::cli {
namespace {

// The decoding flags are the evaluation.* keys they override, checked by the same schema rows.
std::vector<std::string> decoding_overrides(const Arguments& a) {
  const std::pair<const char*, const char*> flags[] = {
      {"--beam", "evaluation.beam"}, {"--alpha", "evaluation.alpha"}, {"--max-len", "evaluation.max_len"}};
  std::vector<std::string> overrides;
  for (const auto& [flag, key] : flags) {
    if (!a.has(flag)) continue;
    const std::string problem = check_value(*find_spec_key(key), a.value(flag, ""));
    if (!problem.empty()) throw UsageError(std::string(flag) + ": " + problem);
    overrides.push_back(std::string(key) + "=" + a.value(flag, ""));
  }
  return overrides;
}

}  // namespace

std::string chosen_run(const ResultsReader& file, const Arguments& a) {
  const std::vector<std::string> ids = file.run_ids();
  const std::string id = a.value("--run", ids.size() == 1 ? ids[0] : "");
  if (id.empty() && !a.has("--run")) throw UsageError("the file holds " + std::to_string(ids.size()) + " runs; pick one with --run ID (attnlab inspect lists them)");
  return id;
}

void require_typed_text(const std::string& text) {
  if (const auto bad = invalid_utf8_at(text)) throw UsageError("the text is not valid UTF-8 (byte " + std::to_string(*bad + 1) + ")");
  if (const auto control = control_character_at(text))
    throw UsageError("the text holds a control character (" + code_point_name(text[*control]) + "): type text only");
}

namespace {

// Every token of the vocabulary but the reserved ones is one character.
bool character_vocabulary(const Vocab& vocab) {
  return std::all_of(vocab.tokens().begin(), vocab.tokens().end(),
                     [](const std::string& t) { return t.front() == '<' || utf8_characters(t).size() == 1; });
}

bool has_space_token(const Vocab& vocab) {
  return std::find(vocab.tokens().begin(), vocab.tokens().end(), " ") != vocab.tokens().end();
}

}  // namespace

std::vector<std::string> text_tokens(const std::string& text, const Vocab& vocab) {
  require_typed_text(text);
  if (!character_vocabulary(vocab)) return split_tokens(text);
  const bool spaces_are_tokens = has_space_token(vocab);
  std::vector<std::string> out;
  for (std::string& c : utf8_characters(text))
    if (spaces_are_tokens || (c != " " && c != "\t")) out.push_back(std::move(c));
  return out;
}

std::string tokens_text(const std::vector<int>& ids, const Vocab& vocab, bool characters_of_a_text) {
  const std::string between = character_vocabulary(vocab) && (characters_of_a_text || has_space_token(vocab)) ? "" : " ";
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) text += (i ? between : "") + vocab.token(ids[i]);
  return text;
}

std::vector<int> source_ids(const SequenceData& data, const std::string& sentence) {
  if (invalid_utf8_at(sentence)) throw UsageError("the sentence is not valid UTF-8");
  if (control_character_at(sentence)) throw UsageError("the sentence holds a control character (" +
                                                       code_point_name(sentence[*control_character_at(sentence)]) + "): type text only");
  const std::vector<std::string> tokens = split_tokens(preprocess_nmt(sentence));
  if (tokens.empty()) throw UsageError("an empty sentence (\"" + sentence + "\"): give at least one token");
  try {
    return data.src_vocab.encode(tokens);
  } catch (const std::out_of_range& e) {
    throw UsageError("\"" + sentence + "\": " + e.what());
  }
}

RunPlan stored_plan(const ResultsReader& file, const std::string& id, const Arguments& a, Registries& registries) {
  // A diverged run's parameters are NaN or infinite: what they would decode or predict means nothing.
  if (file.run(id).status == RunStatus::diverged)
    throw UsageError("run '" + id + "' diverged while training (its loss became NaN or infinite), so its parameters give no "
                     "answers; choose a run that finished (attnlab inspect " + file.path() + " lists them)");
  const SpecResult spec = read_spec_text(file.config(id), file.path() + ":/runs/" + id, decoding_overrides(a));
  if (!spec.spec) throw FileError("the run's stored config does not read back: " + spec.diagnostics[0].str());
  register_builtins(registries);
  // A --plugin replaces the stored path of the plugin with its file name (the run's plugin moved).
  const std::vector<std::string> given = a.all("--plugin");
  const auto replaced = [&](const std::string& stored) {
    return std::any_of(given.begin(), given.end(), [&](const std::string& p) {
      return std::filesystem::path(p).filename() == std::filesystem::path(stored).filename();
    });
  };
  for (const std::string& p : spec.spec->plugins)
    if (!replaced(p)) load_plugin(p, registries);
  for (const std::string& p : given) load_plugin(p, registries);
  return spec.spec->runs.at(0);
}

void load_parameters(ParamStore& store, const ResultsReader& file, const std::string& id) {
  for (const auto& [name, var] : store.items()) {
    Tensor value = file.param(id, name);
    if (shape_of(value) != shape_of(var.value()))
      throw FileError(file.path() + ": the parameter " + name + " of run '" + id + "' has shape " + shape_str(shape_of(value)) +
                      ", where the run's model has " + shape_str(shape_of(var.value())) +
                      " (the file is damaged or was changed by another program)");
    var.mutable_value() = std::move(value);
  }
  NamedTensors loaded;  // (checked as read, not read twice)
  for (const auto& [name, var] : store.items()) loaded.emplace_back(name, var.value());
  if (const ParamsCheck c = file.check_params(id, &loaded); c.edited()) std::fprintf(stderr, "attnlab: warning: %s\n", c.warning(id).c_str());
}

std::unique_ptr<RunParts> rebuilt_run(const ResultsReader& file, const std::string& id, const Arguments& a,
                                      Registries& registries, RunPlan& plan) {
  plan = stored_plan(file, id, a, registries);
  const std::string spec_dir = std::filesystem::path(file.header().spec_path).parent_path().string();
  std::unique_ptr<RunParts> parts;
  try {
    parts = build_run(plan, registries, spec_dir);
  } catch (const SpecError& e) {  // a plugin no library of the stored config registers (a config that did not list them all)
    if (e.message().rfind("unknown ", 0) != 0) throw;
    throw SpecError(e.where(), e.message() + (a.all("--plugin").empty() ? "; give the library that registers it with --plugin PATH"
                                                                        : "; no --plugin library given registers it"));
  }
  load_parameters(parts->params, file, id);
  return parts;
}

void rebuild(TrainedRun& run, const ResultsReader& file, const std::string& id, const Arguments& a,
             const std::vector<std::string>& probe) {
  const std::optional<Vocabularies> vocab = file.vocabularies(id);
  if (!vocab)
    throw UsageError("run '" + id + "' has no vocabulary to decode typed sentences with: its model is not a sequence model, "
                     "or its sources are not words (speech frames)");
  run.plan = stored_plan(file, id, a, run.registries);
  SequenceData& data = run.vocabularies;
  data.src_vocab = Vocab(vocab->source);
  data.tgt_vocab = Vocab(vocab->target);
  data.num_steps = vocab->num_steps;
  data.train = data.valid = make_split({}, {}, data.num_steps);
  std::vector<std::vector<int>> sources;
  for (const std::string& sentence : probe) sources.push_back(source_ids(data, sentence));
  if (!probe.empty()) data.probe = make_split(sources, std::vector<std::vector<int>>(sources.size()), data.num_steps);
  run.data = data;
  Rng rng(0);
  run.model = run.registries.models.create(run.plan.model, ModelArgs{run.registries, ParamScope(run.store, rng),
                                                                     run.plan.model_options, run.data});
  load_parameters(run.store, file, id);
  run.decoder = dynamic_cast<SequenceModel*>(run.model.get());
  if (!run.decoder) throw UsageError("model '" + run.plan.model + "' does not decode sentences");
}

}  // namespace attn::cli
