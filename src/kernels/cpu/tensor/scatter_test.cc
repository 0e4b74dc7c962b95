#include <gtest/gtest.h>

#include "kernels/registry.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;

TEST(TensorScatterElements, WritesAlongAxis0) {
  auto out = NodeTest("ScatterElements", 13)
                 .Input<float>({3, 3}, F(9, 0.0f))
                 .Input<int64_t>({2, 3}, {1, 0, 2, 0, 2, 1})
                 .Input<float>({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f}));
}

// Indices smaller than data on every axis (int64 and int32), scattering along a middle axis and
// along the last:
// checked against the definition, element by element (out[.., idx[i, j, k], ..] = upd[i, j, k]).
TEST(TensorScatterElements, IndicesSmallerThanDataOnEveryAxis) {
  const std::vector<int64_t> d = {3, 4, 5};
  const std::vector<int64_t> id = {2, 3, 4};
  F x(60);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  for (int64_t axis : {1, 2}) {
    std::vector<int64_t> idx(24);
    F upd(24);
    for (size_t i = 0; i < idx.size(); ++i) {
      idx[i] = static_cast<int64_t>((i * 7 + 3) % static_cast<size_t>(d[axis])) -
               (i % 5 == 0 ? d[axis] : 0);  // some negative
      upd[i] = 100.0f + static_cast<float>(i);
    }
    F want = x;
    for (int64_t i = 0; i < id[0]; ++i) {
      for (int64_t j = 0; j < id[1]; ++j) {
        for (int64_t k = 0; k < id[2]; ++k) {
          const auto at = static_cast<size_t>((i * id[1] + j) * id[2] + k);
          int64_t pos[3] = {i, j, k};
          pos[axis] = idx[at] < 0 ? idx[at] + d[axis] : idx[at];
          want[static_cast<size_t>((pos[0] * d[1] + pos[1]) * d[2] + pos[2])] = upd[at];
        }
      }
    }
    auto out = NodeTest("ScatterElements", 13)
                   .Attr("axis", axis)
                   .Input<float>(d, x)
                   .Input<int64_t>(id, idx)
                   .Input<float>(id, upd)
                   .Run();
    EXPECT_EQ(Values<float>(*out[0]), want) << "axis " << axis;
    // The same with int32 indices.
    const std::vector<int32_t> idx32(idx.begin(), idx.end());
    auto out32 = NodeTest("ScatterElements", 13)
                     .Attr("axis", axis)
                     .Input<float>(d, x)
                     .Input<int32_t>(id, idx32)
                     .Input<float>(id, upd)
                     .Run();
    EXPECT_EQ(Values<float>(*out32[0]), want) << "axis " << axis << ", int32 indices";
  }
}

TEST(TensorScatterElements, NegativeIndexOnLastAxisAndScatter9) {
  auto x = MakeTensor<int32_t>({1, 4}, {1, 2, 3, 4});
  auto idx = MakeTensor<int64_t>({1, 2}, {-1, 1});
  auto upd = MakeTensor<int32_t>({1, 2}, {9, 8});
  auto out =
      NodeTest("ScatterElements", 11).Attr("axis", int64_t{1}).Input(x).Input(idx).Input(upd).Run();
  EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{1, 8, 3, 9}));
  auto old = NodeTest("Scatter", 9)
                 .Attr("axis", int64_t{1})
                 .Input(x)
                 .Input<int64_t>({1, 1}, {0})
                 .Input<int32_t>({1, 1}, {7})
                 .Run();
  EXPECT_EQ(Values<int32_t>(*old[0]), (std::vector<int32_t>{7, 2, 3, 4}));
}

TEST(TensorScatterElements, DeprecatedScatter11IsScatterElementsWithoutReduction) {
  // Scatter-11 (deprecated): ScatterElements-11 semantics, negative indices included; it has no
  // `reduction` attribute, so one on the node is not read, at opset 16 or later either.
  for (int opset : {11, 16, kLatestOpset}) {
    auto out = NodeTest("Scatter", opset)
                   .Attr("axis", int64_t{-1})
                   .Attr("reduction", "add")
                   .Input<int32_t>({1, 4}, {1, 2, 3, 4})
                   .Input<int64_t>({1, 2}, {-1, 1})
                   .Input<int32_t>({1, 2}, {9, 8})
                   .Run();
    EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{1, 8, 3, 9})) << opset;
  }
  ExpectNodeError(NodeTest("Scatter", 11)
                      .Input<float>({2}, {1, 2})
                      .Input<int64_t>({1}, {2})
                      .Input<float>({1}, {5}),
                  ErrorCode::kInvalidArgument, "out of range");
}

TEST(TensorScatterElements, Reductions) {
  auto run = [](int opset, const char* r) {
    return Values<float>(*NodeTest("ScatterElements", opset)
                              .Attr("reduction", r)
                              .Input<float>({3}, {1, 2, 3})
                              .Input<int64_t>({3}, {0, 0, 2})
                              .Input<float>({3}, {4, 5, 0.5f})
                              .Run()[0]);
  };
  EXPECT_EQ(run(16, "add"), (F{10, 2, 3.5f}));
  EXPECT_EQ(run(16, "mul"), (F{20, 2, 1.5f}));
  EXPECT_EQ(run(18, "max"), (F{5, 2, 3}));
  EXPECT_EQ(run(18, "min"), (F{1, 2, 0.5f}));
  ExpectNodeError(NodeTest("ScatterElements", 16)
                      .Attr("reduction", "max")
                      .Input<float>({1}, {1})
                      .Input<int64_t>({1}, {0})
                      .Input<float>({1}, {1}),
                  ErrorCode::kInvalidArgument, "reduction 'max'");
}

TEST(TensorScatterElements, IntegerAddWraps) {
  auto out = NodeTest("ScatterElements", 16)
                 .Attr("reduction", "add")
                 .Input<int8_t>({1}, {127})
                 .Input<int64_t>({1}, {0})
                 .Input<int8_t>({1}, {1})
                 .Run();
  EXPECT_EQ(Values<int8_t>(*out[0]), (std::vector<int8_t>{-128}));
}

TEST(TensorScatterElements, Errors) {
  auto x = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  ExpectNodeError(NodeTest("ScatterElements", 13)
                      .Input(x)
                      .Input<int64_t>({1, 1}, {2})
                      .Input<float>({1, 1}, {0}),
                  ErrorCode::kInvalidArgument, "index 2 at position 0");
  ExpectNodeError(NodeTest("ScatterElements", 13)
                      .Input(x)
                      .Input<int64_t>({1, 1}, {0})
                      .Input<float>({1, 2}, {0, 0}),
                  ErrorCode::kInvalidArgument, "updates (float [1,2])");
  ExpectNodeError(NodeTest("ScatterElements", 13)
                      .Input(x)
                      .Input<int64_t>({1, 3}, {0, 0, 0})
                      .Input<float>({1, 3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "do not fit");
  ExpectNodeError(NodeTest("ScatterElements", 16)
                      .Attr("reduction", "add")
                      .Input<bool>({1}, {true})
                      .Input<int64_t>({1}, {0})
                      .Input<bool>({1}, {true}),
                  ErrorCode::kNotImplemented, "bool");
}

TEST(TensorScatterND, SlicesAndReduction) {
  // data [2,2], indices [[1]], updates [[7,8]] -> row 1 replaced.
  auto out = NodeTest("ScatterND", 11)
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Input<int64_t>({1, 1}, {1})
                 .Input<float>({1, 2}, {7, 8})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{1, 2, 7, 8}));
  auto add = NodeTest("ScatterND", 16)
                 .Attr("reduction", "add")
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Input<int64_t>({2, 2}, {0, 1, 0, -1})
                 .Input<float>({2}, {10, 20})
                 .Run();
  EXPECT_EQ(Values<float>(*add[0]), (F{1, 32, 3, 4}));
  auto s = NodeTest("ScatterND", 18)
               .Input<std::string>({2}, {"a", "b"})
               .Input<int64_t>({1, 1}, {0})
               .Input<std::string>({1}, {"z"})
               .Run();
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"z", "b"}));
}

TEST(TensorScatterND, Errors) {
  auto x = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  ExpectNodeError(
      NodeTest("ScatterND", 13).Input(x).Input<int64_t>({1, 3}, {0, 0, 0}).Input<float>({1}, {0}),
      ErrorCode::kInvalidArgument, "last dimension");
  ExpectNodeError(NodeTest("ScatterND", 13)
                      .Input(x)
                      .Input<int64_t>({1, 1}, {0})
                      .Input<float>({1, 3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "must be float [1,2]");
  ExpectNodeError(
      NodeTest("ScatterND", 13).Input(x).Input<int64_t>({1, 2}, {0, -3}).Input<float>({1}, {0}),
      ErrorCode::kInvalidArgument, "index -3 at position 1");
}

}  // namespace
}  // namespace kiln::testing
