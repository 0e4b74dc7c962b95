#include "kernels/cpu/elementwise/broadcast.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <span>
#include <vector>

#include "core/thread_pool.h"
#include "ir/graph.h"
#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

using cpu::BroadcastPlan;
using Dims = std::vector<int64_t>;

class ElementwiseBroadcast : public ::testing::Test {
 protected:
  ir::Node node_{"bc", "Add", ""};
  KernelInfo info_{node_};
};

// The dimensions of a SmallVector, for comparisons.
template <typename T>
std::vector<T> Vec(std::span<const T> s) {
  return std::vector<T>(s.begin(), s.end());
}

TEST_F(ElementwiseBroadcast, NumpyShapes) {
  cpu::SmallVector<int64_t> out = {2, 1, 4};
  cpu::BroadcastInto(info_, out, Dims{3, 1}, "B");
  EXPECT_EQ(Vec(out.span()), (Dims{2, 3, 4}));
  out = {5};
  cpu::BroadcastInto(info_, out, Dims{2, 1, 1}, "B");
  EXPECT_EQ(Vec(out.span()), (Dims{2, 1, 5}));
  out = {};
  cpu::BroadcastInto(info_, out, Dims{0, 3}, "B");
  EXPECT_EQ(Vec(out.span()), (Dims{0, 3}));
  out = {1, 3};
  cpu::BroadcastInto(info_, out, Dims{0, 1}, "B");
  EXPECT_EQ(Vec(out.span()), (Dims{0, 3}));
}

TEST_F(ElementwiseBroadcast, NumpyMismatchNamesInputAndShapes) {
  cpu::SmallVector<int64_t> out = {2, 3};
  ExpectError([&] { cpu::BroadcastInto(info_, out, Dims{4}, "B"); }, ErrorCode::kInvalidArgument,
              {"node 'bc' (Add)", "'B'", "[4]", "[2,3]"});
}

TEST_F(ElementwiseBroadcast, Unidirectional) {
  EXPECT_TRUE(cpu::BroadcastsTo(Dims{3, 1}, Dims{2, 3, 4}));
  EXPECT_TRUE(cpu::BroadcastsTo(Dims{}, Dims{2, 3}));
  EXPECT_FALSE(cpu::BroadcastsTo(Dims{2, 3, 4}, Dims{3, 4}));
  EXPECT_FALSE(cpu::BroadcastsTo(Dims{3, 2}, Dims{3, 4}));
}

TEST_F(ElementwiseBroadcast, LegacySuffixAxisAndSingleElement) {
  const Dims a = {2, 3, 4, 5};
  auto legacy = [&](const Dims& b, bool broadcast, std::optional<int64_t> axis) {
    return Vec(cpu::LegacyBroadcastDims(info_, a, b, broadcast, axis).span());
  };
  EXPECT_EQ(legacy({4, 5}, true, std::nullopt), (Dims{1, 1, 4, 5}));
  EXPECT_EQ(legacy({3, 4}, true, 1), (Dims{1, 3, 4, 1}));
  EXPECT_EQ(legacy({2}, true, 0), (Dims{2, 1, 1, 1}));
  EXPECT_EQ(legacy({1, 1}, true, std::nullopt), (Dims{1, 1, 1, 1}));
  EXPECT_EQ(legacy({}, true, std::nullopt), (Dims{1, 1, 1, 1}));
  EXPECT_EQ(legacy(a, false, std::nullopt), a);
  EXPECT_EQ(legacy({3, 1}, true, 1), (Dims{1, 3, 1, 1}));  // a 1 repeats along A's dimension
  EXPECT_EQ(legacy({1, 5}, true, std::nullopt), (Dims{1, 1, 1, 5}));
}

TEST_F(ElementwiseBroadcast, LegacyErrors) {
  const Dims a = {2, 3, 4};
  ExpectError([&] { cpu::LegacyBroadcastDims(info_, a, Dims{4}, false, std::nullopt); },
              ErrorCode::kInvalidArgument, {"node 'bc' (Add)", "'B'", "[4]", "'broadcast'"});
  ExpectError([&] { cpu::LegacyBroadcastDims(info_, a, Dims{3}, true, std::nullopt); },
              ErrorCode::kInvalidArgument, {"'B'", "[3]", "axis 2"});
  ExpectError(
      [&] {
        cpu::LegacyBroadcastDims(info_, a, Dims{3, 4}, true, 2);
      },
      ErrorCode::kInvalidArgument, {"'B'", "axis 2"});
  ExpectError([&] { cpu::LegacyBroadcastDims(info_, a, Dims{3}, true, 5); },
              ErrorCode::kInvalidArgument, {"axis 5 is out of range"});
  ExpectError(
      [&] {
        cpu::LegacyBroadcastDims(info_, Dims{3}, Dims{2, 3}, true, std::nullopt);
      },
      ErrorCode::kInvalidArgument, {"rank"});
}

TEST_F(ElementwiseBroadcast, PlanSameShapeIsOneRun) {
  const Dims d = {2, 3, 4};
  const BroadcastPlan plan(d, {&d, &d});
  EXPECT_EQ(plan.size(), 24u);
  EXPECT_EQ(plan.rows(), 1u);
  EXPECT_EQ(plan.inner(), 24u);
  EXPECT_EQ(plan.step(0), 1u);
  EXPECT_EQ(plan.step(1), 1u);
}

TEST_F(ElementwiseBroadcast, PlanScalarHasStepZero) {
  const Dims d = {2, 3, 4};
  const Dims scalar = {};
  const Dims one = {1, 1};
  const BroadcastPlan plan(d, {&d, &scalar, &one});
  EXPECT_EQ(plan.rows(), 1u);
  EXPECT_EQ(plan.inner(), 24u);
  EXPECT_EQ(plan.step(1), 0u);
  EXPECT_EQ(plan.step(2), 0u);
}

TEST_F(ElementwiseBroadcast, PlanMergesAndDropsDimensions) {
  // [N,C,H,W] + [1,C,1,1]: H and W merge; the channel input varies along C only.
  const Dims x = {2, 3, 4, 5};
  const Dims c = {1, 3, 1, 1};
  const BroadcastPlan plan(x, {&x, &c});
  EXPECT_EQ(plan.inner(), 20u);
  EXPECT_EQ(plan.step(0), 1u);
  EXPECT_EQ(plan.step(1), 0u);
  EXPECT_EQ(Vec(plan.outer_dims()), (std::vector<size_t>{2, 3}));
  EXPECT_EQ(Vec(plan.outer_strides(0)), (std::vector<size_t>{60, 20}));
  EXPECT_EQ(Vec(plan.outer_strides(1)), (std::vector<size_t>{0, 1}));
}

TEST_F(ElementwiseBroadcast, PlanFromSpansMatchesPlanFromVectors) {
  const Dims x = {2, 3, 4, 5};
  const cpu::SmallVector<int64_t> c = {1, 3, 1, 1};
  const BroadcastPlan plan(std::span<const int64_t>(x), {x, c.span()});
  EXPECT_EQ(plan.inner(), 20u);
  EXPECT_EQ(plan.step(1), 0u);
  EXPECT_EQ(Vec(plan.outer_dims()), (std::vector<size_t>{2, 3}));
  EXPECT_EQ(Vec(plan.outer_strides(1)), (std::vector<size_t>{0, 1}));
}

TEST_F(ElementwiseBroadcast, PlanEmptyOutputVisitsNothing) {
  const Dims d = {2, 0, 3};
  const Dims b = {3};
  const BroadcastPlan plan(d, {&d, &b});
  EXPECT_EQ(plan.size(), 0u);
  ThreadPool pool(1);
  bool called = false;
  plan.ForEachBlock<2>(pool, [&](size_t, const std::array<size_t, 2>&, size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST_F(ElementwiseBroadcast, PlanRejectsShapesThatDoNotBroadcast) {
  const Dims out = {2, 3};
  const Dims b = {2};
  ExpectError([&] { BroadcastPlan plan(out, {&b}); }, ErrorCode::kFail, {"[2]", "[2,3]"});
}

// Every output element is visited once, with each input's offset equal to the one computed
// from the multi-index, across threads and across the row/block split.
void CheckOffsets(const Dims& out, const Dims& a, const Dims& b, int threads) {
  const BroadcastPlan plan(out, {&a, &b});
  std::vector<std::atomic<int>> visits(plan.size());
  std::vector<size_t> got_a(plan.size()), got_b(plan.size());
  ThreadPool pool(threads);
  plan.ForEachBlock<2>(pool, [&](size_t o, const std::array<size_t, 2>& in, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      visits[o + i]++;
      got_a[o + i] = in[0] + i * plan.step(0);
      got_b[o + i] = in[1] + i * plan.step(1);
    }
  });
  auto offset = [&](const Dims& dims, size_t flat) {
    size_t off = 0, stride = 1;
    for (size_t j = out.size(); j-- > 0;) {
      const size_t idx = flat % static_cast<size_t>(out[j]);
      flat /= static_cast<size_t>(out[j]);
      const size_t k = j + dims.size();
      if (k < out.size()) continue;  // dims has no such axis
      const auto d = static_cast<size_t>(dims[k - out.size()]);
      if (d != 1) off += idx * stride;
      stride *= d;
    }
    return off;
  };
  for (size_t i = 0; i < plan.size(); ++i) {
    ASSERT_EQ(visits[i].load(), 1) << "at " << i;
    ASSERT_EQ(got_a[i], offset(a, i)) << "at " << i;
    ASSERT_EQ(got_b[i], offset(b, i)) << "at " << i;
  }
}

TEST_F(ElementwiseBroadcast, PlanOffsetsMatchIndexArithmetic) {
  CheckOffsets({4, 3, 5}, {4, 1, 5}, {3, 1}, 1);
  CheckOffsets({2, 3, 4, 5}, {2, 3, 4, 5}, {1, 3, 1, 1}, 3);
  CheckOffsets({7, 1, 9}, {1, 1, 9}, {7, 1, 1}, 2);
  // Long rows split into several blocks, many short rows grouped per chunk.
  CheckOffsets({3, 40000}, {3, 1}, {40000}, 4);
  CheckOffsets({5000, 3, 2}, {5000, 1, 2}, {3, 1}, 4);
  CheckOffsets({70000}, {70000}, {}, 4);
}

}  // namespace
}  // namespace kiln::testing
