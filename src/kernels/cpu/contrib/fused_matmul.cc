// FusedMatMul (com.microsoft, opset 1), float and double: Y = alpha · op(A) · op(B) with
// numpy.matmul semantics (a 1-D A is a row, a 1-D B a column, the added dimension is dropped;
// batch dimensions broadcast). op transposes the last two axes of an operand of rank >= 2 when
// transA / transB is 1; a 1-D operand is never transposed. transBatchA / transBatchB (what ONNX
// Runtime's MatMul+Transpose fusion writes) first move an operand's first axis of rank r >= 3 to
// the row axis, axes [1, ..., r-2, 0, r-1] (copied into scratch), before transA / transB apply.
// The products are cpu::Gemm calls with alpha folded in,
// reading the transposed operands in place: one product per broadcast batch entry, spread over
// the threads, or one tall product when B is a single matrix and A is not transposed.
#include <algorithm>
#include <string>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class FusedMatMul final : public Kernel {
 public:
  explicit FusedMatMul(const KernelInfo& info)
      : alpha_(info.GetFloat("alpha", 1.0f)),
        trans_a_(Flag(info, "transA")),
        trans_b_(Flag(info, "transB")),
        trans_batch_a_(Flag(info, "transBatchA")),
        trans_batch_b_(Flag(info, "transBatchB")) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    if (a.type() != b.type()) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'A' is ") + DataTypeName(a.type()) +
                                                 " but input 'B' is " + DataTypeName(b.type()));
    }
    auto shapes = [&] {
      return "input 'A' has shape " + a.shape().ToString() +
             " (transA=" + std::to_string(trans_a_) + ") and input 'B' has shape " +
             b.shape().ToString() + " (transB=" + std::to_string(trans_b_) + ")";
    };
    if (a.shape().rank() == 0 || b.shape().rank() == 0) {
      info.Fail(ErrorCode::kInvalidArgument, shapes() + ": operands must have rank 1 or more");
    }
    if (a.type() != DataType::kFloat && a.type() != DataType::kDouble) {
      info.Fail(ErrorCode::kNotImplemented, std::string("input 'A' is ") + DataTypeName(a.type()) +
                                                "; only float and double are supported");
    }
    SmallVector<int64_t> ad(a.shape().dims());
    SmallVector<int64_t> bd(b.shape().dims());
    const void* a_data = trans_batch_a_ ? MoveFirstAxisToRows(ctx, a, ad) : a.data();
    const void* b_data = trans_batch_b_ ? MoveFirstAxisToRows(ctx, b, bd) : b.data();
    const bool a_vector = ad.size() == 1;
    const bool b_vector = bd.size() == 1;
    const bool trans_a = trans_a_ && !a_vector;
    const bool trans_b = trans_b_ && !b_vector;
    if (a_vector) ad.insert(0, 1);
    if (b_vector) bd.push_back(1);
    const int64_t m = trans_a ? ad.back() : ad[ad.size() - 2];
    const int64_t k = trans_a ? ad[ad.size() - 2] : ad.back();
    const int64_t kb = trans_b ? bd.back() : bd[bd.size() - 2];
    const int64_t n = trans_b ? bd[bd.size() - 2] : bd.back();
    if (k != kb) {
      info.Fail(ErrorCode::kInvalidArgument, shapes() + ": the inner dimensions (" +
                                                 std::to_string(k) + " and " + std::to_string(kb) +
                                                 ") differ");
    }
    const SmallVector<int64_t> a_batch(std::span<const int64_t>(ad.span()).first(ad.size() - 2));
    const SmallVector<int64_t> b_batch(std::span<const int64_t>(bd.span()).first(bd.size() - 2));
    SmallVector<int64_t> batch;
    if (!BroadcastDims(a_batch.span(), b_batch.span(), &batch)) {
      info.Fail(ErrorCode::kInvalidArgument,
                shapes() + ": the batch dimensions (all but the last two) do not broadcast");
    }
    SmallVector<int64_t> out_dims(batch);
    if (!a_vector) out_dims.push_back(m);
    if (!b_vector) out_dims.push_back(n);
    Tensor& y = ctx.OutputForOverwrite(0, a.type(), out_dims.span());
    if (y.element_count() == 0) return;
    Dispatch<float, double>(a.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      Multiply<T>(ctx, static_cast<const T*>(a_data), a_batch, trans_a,
                  static_cast<const T*>(b_data), b_batch, trans_b, batch, static_cast<size_t>(m),
                  static_cast<size_t>(n), static_cast<size_t>(k), static_cast<T*>(y.data()));
    });
  }

 private:
  // transBatch: t permuted by axes [1, ..., r-2, 0, r-1] into scratch (dims updated), for rank
  // r >= 3; t's own data otherwise (the permutation is the identity there).
  static const void* MoveFirstAxisToRows(KernelContext& ctx, const Tensor& t,
                                         SmallVector<int64_t>& dims) {
    const size_t r = dims.size();
    if (r < 3 || t.element_count() == 0) return t.data();
    const auto d0 = static_cast<size_t>(dims[0]);
    const auto last = static_cast<size_t>(dims[r - 1]);
    size_t middle = 1;  // the batch axes 1..r-2, kept in order
    for (size_t i = 1; i + 1 < r; ++i) middle *= static_cast<size_t>(dims[i]);
    const size_t size = BitsPerElement(t.type()) / 8;  // float or double (checked below)
    auto* out = ctx.Scratch<unsigned char>(t.element_count() * size);
    const auto* in = static_cast<const unsigned char*>(t.data());
    // in [d0, middle, last] -> out [middle, d0, last]
    for (size_t i = 0; i < d0; ++i) {
      for (size_t j = 0; j < middle; ++j) {
        std::copy(in + ((i * middle + j) * last) * size, in + ((i * middle + j + 1) * last) * size,
                  out + ((j * d0 + i) * last) * size);
      }
    }
    SmallVector<int64_t> moved;
    for (size_t i = 1; i + 1 < r; ++i) moved.push_back(dims[i]);
    moved.push_back(dims[0]);
    moved.push_back(dims[r - 1]);
    dims = moved;
    return out;
  }

  static bool Flag(const KernelInfo& info, const char* name) {
    const int64_t v = info.GetInt(name, 0);
    if (v != 0 && v != 1) {
      info.Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' is " +
                                              std::to_string(v) + "; it must be 0 or 1");
    }
    return v == 1;
  }

  template <typename T>
  void Multiply(KernelContext& ctx, const T* a, const SmallVector<int64_t>& a_batch, bool trans_a,
                const T* b, const SmallVector<int64_t>& b_batch, bool trans_b,
                const SmallVector<int64_t>& batch, size_t m, size_t n, size_t k, T* c) const {
    const auto alpha = static_cast<T>(alpha_);
    const size_t lda = trans_a ? m : k;
    const size_t ldb = trans_b ? k : n;
    size_t a_count = 1;
    for (int64_t d : a_batch) a_count *= static_cast<size_t>(d);
    const bool b_single =
        std::all_of(b_batch.begin(), b_batch.end(), [](int64_t d) { return d == 1; });
    if (b_single && !trans_a) {
      // A's matrices are consecutive rows of one tall product with the one B.
      Gemm<T>(false, trans_b, a_count * m, n, k, alpha, a, lda, b, ldb, T(0), c, n, &ctx.threads());
      return;
    }
    size_t products = 1;
    for (int64_t d : batch) products *= static_cast<size_t>(d);
    size_t* a_offsets = ctx.Scratch<size_t>(products);
    size_t* b_offsets = ctx.Scratch<size_t>(products);
    BroadcastOffsetsInto(a_batch.span(), batch.span(), a_offsets);
    BroadcastOffsetsInto(b_batch.span(), batch.span(), b_offsets);
    ThreadPool& pool = ctx.threads();
    if (products < static_cast<size_t>(pool.size())) {
      // Few matrices: each product uses the whole pool.
      for (size_t i = 0; i < products; ++i) {
        Gemm<T>(trans_a, trans_b, m, n, k, alpha, a + a_offsets[i] * m * k, lda,
                b + b_offsets[i] * k * n, ldb, T(0), c + i * m * n, n, &pool);
      }
      return;
    }
    constexpr double kMinTaskWork = 1 << 16;  // multiply-adds a task should hold at least
    const double work = static_cast<double>(m) * static_cast<double>(n) *
                        static_cast<double>(std::max<size_t>(k, 1));
    const auto grain = static_cast<size_t>(std::max(1.0, kMinTaskWork / work));
    pool.ParallelFor(products, grain, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        Gemm<T>(trans_a, trans_b, m, n, k, alpha, a + a_offsets[i] * m * k, lda,
                b + b_offsets[i] * k * n, ldb, T(0), c + i * m * n, n, nullptr);
      }
    });
  }

  float alpha_;
  bool trans_a_;
  bool trans_b_;
  bool trans_batch_a_;
  bool trans_batch_b_;
};

}  // namespace

std::unique_ptr<Kernel> MakeFusedMatMul(const KernelInfo& info) {
  return Make<FusedMatMul>(info);
}

}  // namespace kiln::cpu
