// Registries and options: duplicate names refused, unknown names answered with the closest
// known one, option errors that name the option and where it was written.
#include <catch2/catch.hpp>

#include "lab/builtins.hpp"
#include "attnlab/attention/attention.hpp"
#include "attnlab/plugin.hpp"

using namespace attn;

TEST_CASE("built-ins are registered by an explicit call, one registry per kind", "[registry]") {
  Registries r;
  CHECK(r.scoring.names().empty());
  register_builtins(r);
  CHECK(r.scoring.names() == std::vector<std::string>{"additive", "boxcar", "constant", "dot", "epanechikov", "gat", "gaussian",
                                                      "gaussian_kernel", "gaussian_learned", "general", "scaled_dot"});
  CHECK(r.cells.names() == std::vector<std::string>{"gru", "lstm", "rnn"});
  CHECK(r.modes.names() == std::vector<std::string>{"qkv", "qvv", "vvv"});
  for (const auto& [name, entry] : r.scoring.entries()) CHECK_FALSE(entry.description.empty());
}

TEST_CASE("a duplicate name is refused", "[registry]") {
  Registries r;
  register_builtins(r);
  CHECK_THROWS_WITH(register_builtins(r), Catch::Contains("duplicate scoring function 'dot'"));
}

TEST_CASE("an unknown name lists the known ones and suggests the closest", "[registry]") {
  Registries r;
  register_builtins(r);
  CHECK_THROWS_WITH(r.scoring.get("adittive"),
                    "unknown scoring function 'adittive'; did you mean 'additive'? known: additive, boxcar, constant, "
                    "dot, epanechikov, gat, gaussian, gaussian_kernel, gaussian_learned, general, scaled_dot");
  CHECK_THROWS_WITH(r.cells.get("lstn"), Catch::StartsWith("unknown RNN cell 'lstn'; did you mean 'lstm'?"));
  // Nothing close: no guess, just the list.
  CHECK_THROWS_WITH(r.modes.get("transformer"), "unknown attention mode 'transformer'; known: qkv, qvv, vvv");
}

TEST_CASE("edit distance and closest name", "[registry]") {
  CHECK(edit_distance("additive", "additive") == 0);
  CHECK(edit_distance("adittive", "additive") == 2);
  CHECK(edit_distance("scaled_dto", "scaled_dot") == 1);  // a swap counts once
  CHECK(closest_name("gur", {"gru", "lstm", "rnn"}) == "gru");
  CHECK(closest_name("zzzzzz", {"gru", "lstm", "rnn"}).empty());
  // Characters, not bytes: è is one character (two bytes) away from e.
  CHECK(edit_distance("modèle", "model") == 2);
  CHECK(edit_distance("é", "e") == 1);
  CHECK(closest_name("modèle", {"dataset", "model", "training"}) == "model");
  CHECK(edit_distance("\xff", "a") == 1);  // a byte that is not UTF-8 is one character
}

TEST_CASE("options: defaults, types, ranges and unknown keys name the option and its place", "[registry][options]") {
  Options o;
  o.set("hidden", "64", "spec.yaml:7:13");
  CHECK(o.get<std::size_t>("hidden", 32) == 64);
  CHECK(o.get<float>("temperature", 0.5f) == 0.5f);

  Options bad;
  bad.set("hidden", "sixty", "spec.yaml:7:13");
  CHECK_THROWS_WITH(bad.get<int>("hidden", 1), "spec.yaml:7:13: option 'hidden' must be an integer, got 'sixty'");
  bad.set("hidden", "0", "spec.yaml:7:13");
  CHECK_THROWS_WITH(bad.get<int>("hidden", 1, 1, 100), "spec.yaml:7:13: option 'hidden' must be in [1, 100], got 0");
  bad.set("hidden", "-3", "spec.yaml:7:13");
  CHECK_THROWS_AS(bad.get<std::size_t>("hidden", 1), SpecError);
  // Numbers a type cannot hold say what is wrong with them, not "must be a number" (they are).
  const auto says = [](const char* text, auto get) {
    Options one;
    one.set("x", text, "spec.yaml:2:4");
    INFO(text);
    CHECK_THROWS_WITH(get(one), Catch::StartsWith("spec.yaml:2:4: option 'x' "));
    try {
      get(one);
    } catch (const SpecError& e) {
      return std::string(e.what()).substr(std::string("spec.yaml:2:4: option 'x' ").size());
    }
    return std::string();
  };
  const auto size_in_range = [](const Options& one) { return one.get<std::size_t>("x", 1, 1, 65536); };
  const auto any_float = [](const Options& one) { return one.get<float>("x", 0.0f); };
  const auto ranged_float = [](const Options& one) { return one.get<float>("x", 0.0f, 0.0f, 0.99f); };
  CHECK(says("9223372036854775808", size_in_range) == "must be in [1, 65536], got 9223372036854775808");  // 2^63
  CHECK(says("2.5", size_in_range) == "must be a non-negative integer (a whole number, no point or exponent), got 2.5");
  CHECK(says("1e-400", ranged_float) ==
        "got 1e-400, which is nonzero but nearer to 0 than a 32-bit float can hold (about 1.4013e-45): write 0 or a larger value");
  CHECK(says("1e-50", any_float) ==
        "got 1e-50, which is nonzero but nearer to 0 than a 32-bit float can hold (about 1.4013e-45): write 0 or a larger value");
  CHECK(says("1e39", any_float) == "got 1e39, which is beyond what a 32-bit float can hold (at most about 3.40282e+38 in size)");  // was inf
  const auto any_size = [](const Options& one) { return one.get<std::size_t>("x", 1); };
  const auto any_int = [](const Options& one) { return one.get<int>("x", 1); };
  CHECK(says("-3", any_size) == "got -3, which is beyond what a non-negative integer of 64 bits can hold ([0, 18446744073709551615])");
  CHECK(says("-3000000000", any_int) == "got -3000000000, which is beyond what a 32-bit integer can hold ([-2147483648, 2147483647])");
  CHECK(says("1e39", ranged_float) == "must be in [0, 0.99], got 1e39");
  CHECK(says("0x10", any_float) == "must be a number, got '0x10'");

  Registries r;
  register_builtins(r);
  ParamStore store;
  Rng rng(1);
  PluginChoice choice{"additive", {}, {}};
  choice.options.set("hiden", "8", "spec.yaml:9:5");
  CHECK_THROWS_WITH(make_plugin(r.scoring, choice, ScoringArgs{ParamScope(store, rng), choice.options, 4, 4}),
                    "spec.yaml:9:5: unknown option 'hiden' for scoring function 'additive'; did you mean "
                    "'hidden'? known: hidden");
  PluginChoice dot{"dot", {}, {}};
  dot.options.set("scale", "2", "spec.yaml:3:3");
  CHECK_THROWS_WITH(make_plugin(r.scoring, dot, ScoringArgs{ParamScope(store, rng), dot.options, 4, 4}),
                    Catch::Contains("unknown option 'scale' for scoring function 'dot' (it takes no options)"));
}

TEST_CASE("plugins that compare q and k entry by entry refuse different sizes, saying what to use", "[registry]") {
  Registries r;
  register_builtins(r);
  ParamStore store;
  Rng rng(1);
  const Options none;
  CHECK_THROWS_WITH(r.scoring.create("dot", ScoringArgs{ParamScope(store, rng), none, 3, 5}),
                    Catch::Contains("use 'general' or 'additive'"));
  CHECK_NOTHROW(r.scoring.create("general", ScoringArgs{ParamScope(store, rng, "g"), none, 3, 5}));
  CHECK_NOTHROW(r.scoring.create("additive", ScoringArgs{ParamScope(store, rng, "a"), none, 3, 5}));
}
