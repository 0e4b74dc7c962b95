#include "runtime/memory_budget.h"

#include <cstdint>

#include "core/error.h"

namespace kiln::runtime {

size_t ParseMemoryLimit(const std::string& value) {
  size_t limit = 0;
  bool ok = !value.empty() && value.size() <= 20;
  for (char c : value) {
    if (!ok) break;
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    const auto digit = static_cast<size_t>(c - '0');
    if (limit > (SIZE_MAX - digit) / 10) {
      ok = false;
      break;
    }
    limit = limit * 10 + digit;
  }
  if (!ok) {
    ThrowInvalidArgument("value", "'" + value + "' is not valid for config key '" +
                                      std::string(kMemoryLimitKey) +
                                      "' (accepted: a decimal number of bytes; 0: no limit)");
  }
  return limit;
}

size_t MemoryLimitOf(const std::map<std::string, std::string>& config) {
  auto it = config.find(kMemoryLimitKey);
  return it == config.end() ? 0 : ParseMemoryLimit(it->second);
}

bool MemoryBudget::TryReserve(size_t bytes) noexcept {
  size_t held = held_.load(std::memory_order_relaxed);
  do {
    if (held > limit_ || bytes > limit_ - held) return false;
  } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  return true;
}

void MemoryBudget::Reserve(size_t bytes, const char* what) {
  if (TryReserve(bytes)) return;
  {
    std::lock_guard<std::mutex> lock(reclaim_mu_);
    if (reclaim_) {
      reclaim_();
      if (TryReserve(bytes)) return;
    }
  }
  const size_t held = held_.load(std::memory_order_relaxed);
  const size_t left = held < limit_ ? limit_ - held : 0;
  throw Error(ErrorCode::kOutOfMemory, "needs " + std::to_string(bytes) + " bytes for " + what +
                                           "; the session's memory limit " + kMemoryLimitKey + "=" +
                                           std::to_string(limit_) + " has " + std::to_string(left) +
                                           " bytes left");
}

void MemoryBudget::Release(size_t bytes) noexcept {
  held_.fetch_sub(bytes, std::memory_order_relaxed);
}

void MemoryBudget::SetReclaim(std::function<void()> reclaim) {
  std::lock_guard<std::mutex> lock(reclaim_mu_);
  reclaim_ = std::move(reclaim);
}

}  // namespace kiln::runtime
