// FusedMatMul (com.microsoft): random data against a plain double reference of
// alpha·op(A)·op(B) with numpy.matmul broadcasting, every transA/transB combination, 1-D
// operands, broadcast batches, transBatchA/transBatchB, float and double, 1 and 2 threads, and the
// errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

struct Result {
  std::vector<int64_t> dims;
  std::vector<double> values;
  std::vector<double> magnitudes;  // |alpha|·Σ|a·b| per element
};

// alpha·op(A)·op(B), written out: each output index maps back to its A and B matrices.
Result Reference(const std::vector<int64_t>& a_dims, const std::vector<float>& a,
                 const std::vector<int64_t>& b_dims, const std::vector<float>& b, bool ta, bool tb,
                 double alpha) {
  std::vector<int64_t> ad = a_dims;
  std::vector<int64_t> bd = b_dims;
  const bool av = ad.size() == 1;
  const bool bv = bd.size() == 1;
  ta = ta && !av;
  tb = tb && !bv;
  if (av) ad.insert(ad.begin(), 1);
  if (bv) bd.push_back(1);
  const size_t ar = ad.size();
  const size_t br = bd.size();
  const int64_t m = ta ? ad[ar - 1] : ad[ar - 2];
  const int64_t k = ta ? ad[ar - 2] : ad[ar - 1];
  const int64_t n = tb ? bd[br - 2] : bd[br - 1];
  const size_t rank = std::max(ar, br) - 2;
  std::vector<int64_t> batch(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + ar - 2 >= rank ? ad[i + ar - 2 - rank] : 1;
    const int64_t db = i + br - 2 >= rank ? bd[i + br - 2 - rank] : 1;
    batch[i] = da == 1 ? db : da;
  }
  Result r;
  r.dims = batch;
  if (!av) r.dims.push_back(m);
  if (!bv) r.dims.push_back(n);
  const size_t count = Count(batch);
  for (size_t p = 0; p < count; ++p) {
    // The batch index of p, and the offsets of A's and B's matrices.
    size_t rest = p;
    size_t a_off = 0;
    size_t b_off = 0;
    size_t a_stride = static_cast<size_t>(m * k);
    size_t b_stride = static_cast<size_t>(k * n);
    for (size_t i = rank; i-- > 0;) {
      const size_t idx = rest % static_cast<size_t>(batch[i]);
      rest /= static_cast<size_t>(batch[i]);
      const ptrdiff_t ai = static_cast<ptrdiff_t>(i + ar - 2) - static_cast<ptrdiff_t>(rank);
      const ptrdiff_t bi = static_cast<ptrdiff_t>(i + br - 2) - static_cast<ptrdiff_t>(rank);
      if (ai >= 0) {
        const auto d = static_cast<size_t>(ad[static_cast<size_t>(ai)]);
        if (d != 1) a_off += idx * a_stride;
        a_stride *= d;
      }
      if (bi >= 0) {
        const auto d = static_cast<size_t>(bd[static_cast<size_t>(bi)]);
        if (d != 1) b_off += idx * b_stride;
        b_stride *= d;
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        double magnitude = 0;
        for (int64_t l = 0; l < k; ++l) {
          const double av_ = a[a_off + static_cast<size_t>(ta ? l * m + i : i * k + l)];
          const double bv_ = b[b_off + static_cast<size_t>(tb ? j * k + l : l * n + j)];
          acc += av_ * bv_;
          magnitude += std::fabs(av_ * bv_);
        }
        r.values.push_back(alpha * acc);
        r.magnitudes.push_back(std::fabs(alpha) * magnitude);
      }
    }
  }
  return r;
}

struct Case {
  std::vector<int64_t> a;  // as stored (already transposed when transA)
  std::vector<int64_t> b;
  bool ta;
  bool tb;
};

TEST(ContribFusedMatMul, MatchesReference) {
  const std::vector<Case> cases = {
      {{3, 4}, {4, 5}, false, false},
      {{4, 3}, {4, 5}, true, false},
      {{3, 4}, {5, 4}, false, true},
      {{4, 3}, {5, 4}, true, true},
      {{2, 3, 4}, {4, 5}, false, false},
      {{2, 4, 3}, {4, 5}, true, false},
      {{2, 3, 4}, {2, 5, 4}, false, true},
      {{2, 1, 3, 4}, {3, 4, 5}, false, false},
      {{1, 12, 16, 64}, {1, 12, 16, 64}, false, true},
      {{2, 12, 16, 16}, {2, 12, 16, 64}, false, false},
      {{4}, {4, 5}, true, false},
      {{3, 4}, {4}, false, true},
      {{4}, {2, 4, 5}, false, false},
      {{2, 4, 3}, {4}, true, false},
      {{1, 128, 768}, {768, 96}, false, false},
      {{5, 4, 3}, {1, 5, 4}, true, true},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const std::vector<float> a = RandomFloats(Count(c.a), seed++);
    const std::vector<float> b = RandomFloats(Count(c.b), seed++);
    for (float alpha : {1.0f, 0.125f}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE(::testing::Message()
                     << Shape(c.a).ToString() << " x " << Shape(c.b).ToString() << " transA "
                     << c.ta << " transB " << c.tb << " alpha " << alpha << " threads " << threads);
        const Result want = Reference(c.a, a, c.b, b, c.ta, c.tb, alpha);
        auto out = NodeTest("FusedMatMul", 1, kMs)
                       .Attr("alpha", alpha)
                       .Attr("transA", int64_t{c.ta})
                       .Attr("transB", int64_t{c.tb})
                       .Input<float>(c.a, a)
                       .Input<float>(c.b, b, true)
                       .Run(threads);
        EXPECT_EQ(out[0]->shape(), Shape(want.dims));
        ExpectClose(*out[0], want.values, 1e-4, 1e-5, want.magnitudes);
      }
    }
  }
}

TEST(ContribFusedMatMul, DefaultsAndDouble) {
  const std::vector<float> a = RandomFloats(6, 1);
  const std::vector<float> b = RandomFloats(6, 2);
  auto out = NodeTest("FusedMatMul", 1, kMs).Input<float>({2, 3}, a).Input<float>({3, 2}, b).Run();
  ExpectClose(*out[0], Reference({2, 3}, a, {3, 2}, b, false, false, 1.0).values);
  const std::vector<double> ad(a.begin(), a.end());
  const std::vector<double> bd(b.begin(), b.end());
  auto dbl = NodeTest("FusedMatMul", 1, kMs)
                 .Attr("alpha", 2.0f)
                 .Attr("transA", int64_t{1})
                 .Attr("transBatchA", int64_t{0})
                 .Input<double>({3, 2}, ad)
                 .Input<double>({3, 2}, bd)
                 .Run();
  const Result want = Reference({3, 2}, a, {3, 2}, b, true, false, 2.0);
  const std::vector<double> got = Values<double>(*dbl[0]);
  ASSERT_EQ(got.size(), want.values.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want.values[i], 1e-12);
}

TEST(ContribFusedMatMul, EmptyOperands) {
  auto out = NodeTest("FusedMatMul", 1, kMs)
                 .Input<float>({0, 3}, {})
                 .Input<float>({3, 2}, RandomFloats(6, 1))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 2}));
  auto zero_k =
      NodeTest("FusedMatMul", 1, kMs).Input<float>({2, 0}, {}).Input<float>({0, 2}, {}).Run();
  ExpectClose(*zero_k[0], {0, 0, 0, 0});
}

// transBatchA / transBatchB: the stored operand [d0, d1, ..., d(r-2), d(r-1)] is read as
// [d1, ..., d(r-2), d0, d(r-1)] (ONNX Runtime's MatMul+Transpose fusion), then transA / transB.
std::vector<float> MoveFirstAxisToRows(const std::vector<int64_t>& dims,
                                       const std::vector<float>& data,
                                       std::vector<int64_t>* moved) {
  const size_t r = dims.size();
  *moved = std::vector<int64_t>(dims.begin() + 1, dims.end() - 1);
  moved->push_back(dims[0]);
  moved->push_back(dims[r - 1]);
  std::vector<float> out(data.size());
  const size_t d0 = static_cast<size_t>(dims[0]);
  const size_t last = static_cast<size_t>(dims[r - 1]);
  const size_t middle = data.size() / (d0 * last);
  for (size_t o = 0; o < out.size(); ++o) {  // out index (j, i, l) reads in index (i, j, l)
    const size_t l = o % last;
    const size_t i = (o / last) % d0;
    const size_t j = o / (last * d0);
    out[o] = data[(i * middle + j) * last + l];
  }
  return out;
}

TEST(ContribFusedMatMul, TransBatch) {
  struct Case {
    std::vector<int64_t> a, b;
    bool batch_a, batch_b, ta, tb;
  };
  const std::vector<Case> cases = {
      {{3, 2, 4, 5}, {5, 6}, true, false, false, false},
      {{5, 2, 3, 4}, {5, 6}, true, false, true, false},
      {{2, 4, 5}, {5, 2, 6}, false, true, false, false},
      {{3, 2, 5}, {6, 2, 5}, true, true, false, true},
  };
  uint32_t seed = 40;
  for (const Case& c : cases) {
    const std::vector<float> a = RandomFloats(Count(c.a), seed++);
    const std::vector<float> b = RandomFloats(Count(c.b), seed++);
    std::vector<int64_t> ad = c.a;
    std::vector<int64_t> bd = c.b;
    const std::vector<float> la = c.batch_a ? MoveFirstAxisToRows(c.a, a, &ad) : a;
    const std::vector<float> lb = c.batch_b ? MoveFirstAxisToRows(c.b, b, &bd) : b;
    const Result want = Reference(ad, la, bd, lb, c.ta, c.tb, 0.5);
    auto out = NodeTest("FusedMatMul", 1, kMs)
                   .Attr("alpha", 0.5f)
                   .Attr("transA", int64_t{c.ta ? 1 : 0})
                   .Attr("transB", int64_t{c.tb ? 1 : 0})
                   .Attr("transBatchA", int64_t{c.batch_a ? 1 : 0})
                   .Attr("transBatchB", int64_t{c.batch_b ? 1 : 0})
                   .Input<float>(c.a, a)
                   .Input<float>(c.b, b)
                   .Run(2);
    SCOPED_TRACE(::testing::Message()
                 << "A " << Shape(c.a).ToString() << " B " << Shape(c.b).ToString());
    EXPECT_EQ(out[0]->shape(), Shape(want.dims));
    ExpectClose(*out[0], want.values, 1e-4, 1e-5, want.magnitudes);
  }
}

TEST(ContribFusedMatMul, Errors) {
  const auto mm = [](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    NodeTest t("FusedMatMul", 1, kMs);
    t.Input<float>(a, RandomFloats(Count(a), 1)).Input<float>(b, RandomFloats(Count(b), 2));
    return t;
  };
  ExpectNodeError(mm({2, 3}, {2, 3}), ErrorCode::kInvalidArgument,
                  "input 'A' has shape [2,3] (transA=0) and input 'B' has shape [2,3] (transB=0): "
                  "the inner dimensions (3 and 2) differ");
  ExpectNodeError(mm({2, 3}, {2, 3}).Attr("transA", int64_t{1}).Attr("transB", int64_t{1}),
                  ErrorCode::kInvalidArgument, "the inner dimensions (2 and 3) differ");
  ExpectNodeError(mm({2, 2, 3}, {3, 3, 2}), ErrorCode::kInvalidArgument, "do not broadcast");
  ExpectNodeError(mm({}, {3}), ErrorCode::kInvalidArgument, "rank 1 or more");
  ExpectNodeError(mm({2, 3}, {3, 2}).Attr("transA", int64_t{2}), ErrorCode::kInvalidGraph,
                  "attribute 'transA' is 2");
  ExpectNodeError(NodeTest("FusedMatMul", 1, kMs).Input<float>({1}, {1}).Input<double>({1}, {1}),
                  ErrorCode::kInvalidArgument, "input 'B' is double");
  ExpectNodeError(NodeTest("FusedMatMul", 1, kMs).Input<int32_t>({1}, {1}).Input<int32_t>({1}, {1}),
                  ErrorCode::kNotImplemented, "int32");
}

}  // namespace
}  // namespace kiln::testing
