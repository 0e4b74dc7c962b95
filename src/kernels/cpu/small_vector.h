// A vector that keeps up to N elements inline and only goes to the heap past that: for the
// dimensions, strides and counters kernels compute on every run, so that a steady-state run of a
// model with ordinary ranks allocates nothing.
//
//   kiln::cpu::SmallVector<int64_t> dims(x.shape().dims());  // copies, no heap up to rank 8
//   dims.push_back(1);
//   ctx.Output(0, x.type(), dims.span());
#ifndef KILN_KERNELS_CPU_SMALL_VECTOR_H_
#define KILN_KERNELS_CPU_SMALL_VECTOR_H_

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace kiln::cpu {

template <typename T, size_t N = 8>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds plain values");

 public:
  SmallVector() = default;
  explicit SmallVector(size_t n, T value = T()) { assign(n, value); }
  SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  explicit SmallVector(std::span<const T> values) { assign(values.begin(), values.end()); }
  explicit SmallVector(const std::vector<T>& values) { assign(values.begin(), values.end()); }
  SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }

  template <typename It>
  void assign(It first, It last) {
    const auto n = static_cast<size_t>(std::distance(first, last));
    reserve(n);
    std::copy(first, last, data_);
    size_ = n;
  }
  void assign(size_t n, T value) {
    reserve(n);
    std::fill(data_, data_ + n, value);
    size_ = n;
  }

  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  T& operator[](size_t i) noexcept { return data_[i]; }
  const T& operator[](size_t i) const noexcept { return data_[i]; }
  T& back() noexcept { return data_[size_ - 1]; }
  const T& back() const noexcept { return data_[size_ - 1]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  std::span<const T> span() const noexcept { return {data_, size_}; }
  std::vector<T> ToVector() const { return std::vector<T>(begin(), end()); }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    auto grown = std::make_unique<T[]>(n);
    std::copy(data_, data_ + size_, grown.get());
    heap_ = std::move(grown);
    data_ = heap_.get();
    capacity_ = n;
  }
  void resize(size_t n, T value = T()) {
    reserve(n);
    if (n > size_) std::fill(data_ + size_, data_ + n, value);
    size_ = n;
  }
  void push_back(T value) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data_[size_++] = value;
  }
  void insert(size_t pos, T value) {
    push_back(value);
    std::rotate(data_ + pos, data_ + size_ - 1, data_ + size_);
  }
  void erase(size_t pos) {
    std::copy(data_ + pos + 1, data_ + size_, data_ + pos);
    --size_;
  }
  void clear() noexcept { size_ = 0; }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  T inline_[N] = {};
  std::unique_ptr<T[]> heap_;
  T* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = N;
};

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_SMALL_VECTOR_H_
