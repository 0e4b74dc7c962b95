// SplitToSequence (opsets 11 and 24) and ConcatFromSequence (opset 11): between one tensor and a
// sequence of its pieces along an axis. Every element type whose elements are whole bytes
// (strings included); the packed 2- and 4-bit types are refused as not implemented.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/sequence/sequence_kernels.h"
#include "kernels/cpu/types.h"
#include "kernels/registry.h"

namespace kiln::cpu {
namespace {

size_t Product(std::span<const int64_t> dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// Copies `rows` runs of `run` elements from src (rows `src_stride` apart) to dst (rows
// `dst_stride` apart).
template <typename E>
void CopyRows(const E* src, size_t src_stride, E* dst, size_t dst_stride, size_t rows, size_t run) {
  for (size_t r = 0; r < rows; ++r) {
    const E* s = src + r * src_stride;
    E* d = dst + r * dst_stride;
    for (size_t k = 0; k < run; ++k) d[k] = s[k];
  }
}

class SplitToSequence final : public Kernel {
 public:
  explicit SplitToSequence(const KernelInfo& info)
      : axis_(info.GetInt("axis", 0)), keepdims_(info.GetInt("keepdims", 1) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, dims.size());
    const int64_t dim = dims[axis];
    std::vector<int64_t> lengths;
    bool squeeze = false;
    const Value::Kind split_kind = InputKind(ctx, 1);
    if (split_kind == Value::Kind::kNone) {
      lengths.assign(static_cast<size_t>(dim), 1);
      squeeze = !keepdims_;
    } else {
      const Tensor& split = ctx.Input(1);
      RequireIntType(info, split, "input 1 ('split')");
      if (split.shape().rank() == 0) {
        const int64_t each = IntAt(split, 0);
        if (each <= 0) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input 1 ('split') must be positive, not " + std::to_string(each));
        }
        for (int64_t start = 0; start < dim; start += each) {
          lengths.push_back(std::min(each, dim - start));
        }
      } else if (split.shape().rank() == 1) {
        int64_t sum = 0;
        for (size_t i = 0; i < split.element_count(); ++i) {
          const int64_t len = IntAt(split, i);
          if (len < 0) {
            info.Fail(ErrorCode::kInvalidArgument,
                      "input 1 ('split') has a negative length " + std::to_string(len));
          }
          // sum stays within [0, dim]: a length past what is left is refused before it is added
          // (huge lengths would overflow the sum, and could wrap it back to dim).
          if (len > dim - sum) {
            info.Fail(ErrorCode::kInvalidArgument,
                      "input 1 ('split') sums past dimension " + std::to_string(axis) +
                          " of input 0 (" + std::to_string(dim) + ") at entry " +
                          std::to_string(i) + " (" + std::to_string(len) + ")");
          }
          lengths.push_back(len);
          sum += len;
        }
        if (sum != dim) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input 1 ('split') sums to " + std::to_string(sum) + ", not to dimension " +
                        std::to_string(axis) + " of input 0 (" + std::to_string(dim) + ")");
        }
      } else {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 1 ('split') must be a scalar or 1-D, not " + split.shape().ToString());
      }
    }
    const size_t outer = Product(std::span<const int64_t>(dims).first(axis));
    const size_t inner = Product(std::span<const int64_t>(dims).subspan(axis + 1));
    auto seq = std::make_shared<TensorSequence>();
    seq->elem_type = x.type();
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = static_cast<const E*>(x.data());
      int64_t start = 0;
      for (int64_t len : lengths) {
        std::vector<int64_t> piece_dims = dims;
        if (squeeze) {
          piece_dims.erase(piece_dims.begin() + static_cast<std::ptrdiff_t>(axis));
        } else {
          piece_dims[axis] = len;
        }
        std::shared_ptr<Tensor> piece =
            Tensor::Allocate(x.type(), Shape(std::move(piece_dims)), CpuAllocator());
        const size_t run = static_cast<size_t>(len) * inner;
        CopyRows(src + static_cast<size_t>(start) * inner, static_cast<size_t>(dim) * inner,
                 static_cast<E*>(piece->data()), run, outer, run);
        seq->tensors.push_back(std::move(piece));
        start += len;
      }
    });
    ctx.SetOutputValue(0, Value::FromSequence(std::move(seq)));
  }

 private:
  int64_t axis_;
  bool keepdims_;
};

class ConcatFromSequence final : public Kernel {
 public:
  explicit ConcatFromSequence(const KernelInfo& info)
      : axis_(info.RequireInt("axis")), new_axis_(info.GetInt("new_axis", 0) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const TensorSequence& in = *SequenceInput(ctx, 0);
    if (in.tensors.empty()) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 0 is an empty sequence: there is nothing to concatenate");
    }
    const Tensor& first = *in.tensors[0];
    const std::vector<int64_t>& dims0 = first.shape().dims();
    const size_t rank = dims0.size();
    const size_t axis = NormalizeAxis(info, axis_, new_axis_ ? rank + 1 : rank);
    std::vector<int64_t> out_dims = dims0;
    if (new_axis_) {
      out_dims.insert(out_dims.begin() + static_cast<std::ptrdiff_t>(axis),
                      static_cast<int64_t>(in.tensors.size()));
    } else {
      out_dims[axis] = 0;
    }
    for (size_t k = 0; k < in.tensors.size(); ++k) {
      const Tensor& t = *in.tensors[k];
      if (t.type() != first.type()) {
        info.Fail(ErrorCode::kInvalidArgument, "tensor " + std::to_string(k) +
                                                   " of the sequence is " + DataTypeName(t.type()) +
                                                   ", tensor 0 " + DataTypeName(first.type()));
      }
      const std::vector<int64_t>& d = t.shape().dims();
      bool fits = d.size() == rank;
      for (size_t j = 0; fits && j < rank; ++j) {
        fits = d[j] == dims0[j] || (!new_axis_ && j == axis);
      }
      if (!fits) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "tensor " + std::to_string(k) + " of the sequence has shape " +
                      t.shape().ToString() + ", tensor 0 " + first.shape().ToString() +
                      (new_axis_ ? ": with new_axis all shapes must be equal"
                                 : ": shapes may differ only along axis " + std::to_string(axis)));
      }
      if (!new_axis_) out_dims[axis] += d[axis];
    }
    Tensor& y = ctx.Output(0, first.type(), std::span<const int64_t>(out_dims));
    // Every input is `outer` rows of `run_k` elements; the output's rows are `total` long.
    const size_t outer = Product(std::span<const int64_t>(out_dims).first(axis));
    const size_t total = Product(std::span<const int64_t>(out_dims).subspan(axis));
    DispatchStorage(first.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      E* dst = static_cast<E*>(y.data());
      size_t offset = 0;
      for (const auto& t : in.tensors) {
        const size_t run = outer == 0 ? 0 : t->element_count() / outer;
        CopyRows(static_cast<const E*>(t->data()), run, dst + offset, total, outer, run);
        offset += run;
      }
    });
  }

 private:
  int64_t axis_;
  bool new_axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSplitToSequence(const KernelInfo& info) {
  return Make<SplitToSequence>(info);
}
std::unique_ptr<Kernel> MakeConcatFromSequence(const KernelInfo& info) {
  return Make<ConcatFromSequence>(info);
}

}  // namespace kiln::cpu
