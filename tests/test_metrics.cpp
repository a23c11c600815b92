// BLEU as d2l defines it (its printed scores on its sentence pairs) and corpus BLEU-4.
#include <catch2/catch.hpp>

#include "attnlab/data/vocab.hpp"
#include "attnlab/models/metrics.hpp"

using namespace attn;

TEST_CASE("d2l's BLEU reproduces its printed 1.000, 0.658, 0.447, 0.687", "[metrics][bleu][d2l]") {
  CHECK(bleu(split_tokens("va !"), split_tokens("va !"), 2) == Approx(1.000).margin(5e-4));
  CHECK(bleu(split_tokens("il est riche ."), split_tokens("il est calme ."), 2) == Approx(0.658).margin(5e-4));
  CHECK(bleu(split_tokens("je suis en retard ?"), split_tokens("je suis chez moi ."), 2) == Approx(0.447).margin(5e-4));
  CHECK(bleu(split_tokens("j'ai perdu ?"), split_tokens("j'ai perdu ."), 2) == Approx(0.687).margin(5e-4));
}

TEST_CASE("BLEU: brevity penalty and clipped matches", "[metrics][bleu]") {
  // "the the the" against "the cat": unigram matches clipped to 1 of 3
  CHECK(bleu(split_tokens("the the the"), split_tokens("the cat"), 1) == Approx(std::pow(1.0 / 3.0, 0.5)));
  // shorter prediction: exp(1 - 4/2)
  CHECK(bleu(split_tokens("a b"), split_tokens("a b c d"), 2) == Approx(std::exp(-1.0)));
  CHECK(bleu({}, split_tokens("a"), 2) == 0.0);
}

TEST_CASE("corpus BLEU-4", "[metrics][bleu]") {
  const std::vector<Tokens> refs = {split_tokens("the cat sat on the mat"), split_tokens("a b c d e")};
  CHECK(corpus_bleu(refs, refs) == Approx(1.0));
  // one word changed in the first sentence: clipped n-gram counts worked out by hand
  const std::vector<Tokens> preds = {split_tokens("the cat sat on a mat"), split_tokens("a b c d e")};
  const double p1 = 10.0 / 11, p2 = 7.0 / 9, p3 = 5.0 / 7, p4 = 3.0 / 5;
  CHECK(corpus_bleu(preds, refs) == Approx(std::pow(p1 * p2 * p3 * p4, 0.25)));
}
