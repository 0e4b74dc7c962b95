#include <gtest/gtest.h>

#include <utility>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;
using I64 = std::vector<int64_t>;

// Unigrams {2, 3, 5, 4} → columns 0-3, bigrams (5,6) (7,8) (6,7) → columns 4-6.
NodeTest Vectorizer(const char* mode, int64_t min_n, int64_t skip, I64 counts = {0, 4},
                    I64 indexes = {0, 1, 2, 3, 4, 5, 6}) {
  NodeTest t("TfIdfVectorizer", 9);
  t.Attr("mode", mode)
      .Attr("min_gram_length", min_n)
      .Attr("max_gram_length", int64_t{2})
      .Attr("max_skip_count", skip)
      .Attr("ngram_counts", std::move(counts))
      .Attr("ngram_indexes", std::move(indexes))
      .Attr("pool_int64s", I64{2, 3, 5, 4, 5, 6, 7, 8, 6, 7});
  return t;
}

TEST(TextTfIdfVectorizer, CountsWithSkips) {
  const std::vector<int32_t> x = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};
  auto out = Vectorizer("TF", 1, 5).Input<int32_t>({12}, x).Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{0, 3, 1, 0, 1, 3, 1}));
  auto skip0 = Vectorizer("TF", 2, 0).Input<int32_t>({2, 6}, x).Run();
  EXPECT_EQ(skip0[0]->shape(), Shape({2, 7}));
  EXPECT_EQ(Values<float>(*skip0[0]), (F{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1}));
}

TEST(TextTfIdfVectorizer, IdfAndTfIdfWeights) {
  auto idf = Vectorizer("IDF", 1, 0)
                 .Attr("weights", F{1, 2, 3, 4, 5, 6, 7})
                 .Input<int64_t>({4}, {3, 3, 5, 6})
                 .Run();
  EXPECT_EQ(Values<float>(*idf[0]), (F{0, 2, 3, 0, 5, 0, 0}));
  auto tfidf = Vectorizer("TFIDF", 1, 0)
                   .Attr("weights", F{1, 2, 3, 4, 5, 6, 7})
                   .Input<int64_t>({4}, {3, 3, 5, 6})
                   .Run();
  EXPECT_EQ(Values<float>(*tfidf[0]), (F{0, 4, 3, 0, 5, 0, 0}));
}

TEST(TextTfIdfVectorizer, StringPool) {
  auto out = NodeTest("TfIdfVectorizer", 9)
                 .Attr("mode", "TF")
                 .Attr("min_gram_length", int64_t{1})
                 .Attr("max_gram_length", int64_t{1})
                 .Attr("max_skip_count", int64_t{0})
                 .Attr("ngram_counts", I64{0})
                 .Attr("ngram_indexes", I64{1, 0})
                 .Attr("pool_strings", std::vector<std::string>{"b", "a"})
                 .Input<std::string>({3}, {"a", "b", "a"})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{2, 1}));  // "a" is column 0, "b" column 1
}

TEST(TextTfIdfVectorizer, Errors) {
  ExpectNodeError(Vectorizer("BM25", 1, 0), ErrorCode::kInvalidGraph, "'mode'");
  ExpectNodeError(Vectorizer("TF", 3, 0), ErrorCode::kInvalidGraph, "'min_gram_length'");
  ExpectNodeError(Vectorizer("TF", 1, 0, {0, 3}), ErrorCode::kInvalidGraph, "'ngram_counts'");
  ExpectNodeError(Vectorizer("TF", 1, 0, {0, 4}, {0}), ErrorCode::kInvalidGraph, "'ngram_indexes'");
  ExpectNodeError(Vectorizer("TF", 1, 0).Attr("weights", F{1}), ErrorCode::kInvalidGraph,
                  "'weights'");
  ExpectNodeError(Vectorizer("TF", 1, 0).Attr("pool_strings", std::vector<std::string>{"a"}),
                  ErrorCode::kInvalidGraph, "exactly one");
  ExpectNodeError(Vectorizer("TF", 1, 0).Input<float>({2}, {1, 2}), ErrorCode::kInvalidArgument,
                  "'X'");
  ExpectNodeError(Vectorizer("TF", 1, 0).Input<int64_t>({1, 1, 2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "[C] or [N, C]");
}

}  // namespace
}  // namespace kiln::testing
