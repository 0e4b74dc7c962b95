#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace kiln::cli {
namespace {

constexpr std::chrono::milliseconds kDelay(500);   // no line for work shorter than this
constexpr std::chrono::milliseconds kPeriod(100);  // at most ten redraws a second
constexpr size_t kWidth = 79;                      // columns the line may take

// Writes all of `text` to stderr, unbuffered (what the tool prints otherwise is not touched).
void Write(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;  // a progress line is not worth failing for
    done += static_cast<size_t>(n);
  }
}

}  // namespace

Progress::Progress() : start_(std::chrono::steady_clock::now()) {
  if (::isatty(STDOUT_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1) {
    thread_ = std::thread([this] { Draw(); });
  }
}

Progress::~Progress() {
  Clear();
}

void Progress::Phase(const std::string& label, int64_t total) {
  const std::lock_guard<std::mutex> lock(mu_);
  label_ = label;
  total_ = total;
  done_.store(0, std::memory_order_relaxed);
}

void Progress::Clear() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Progress::Draw() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, kPeriod, [this] { return stop_; })) {
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed < kDelay || label_.empty()) continue;
    std::string status;
    if (total_ > 0) {
      status = " " + std::to_string(done_.load(std::memory_order_relaxed)) + "/" +
               std::to_string(total_);
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, " ... %.1f s",
                  std::chrono::duration<double>(elapsed).count());
    status += seconds;
    // One line of a narrow terminal: a long label (a model's path) keeps its end.
    const size_t room = kWidth > status.size() + 3 ? kWidth - status.size() : 3;
    std::string line =
        label_.size() <= room ? label_ : "..." + label_.substr(label_.size() - room + 3);
    line += status;
    const size_t length = line.size();
    if (length < drawn_) line += std::string(drawn_ - length, ' ');  // cover a longer line
    Write("\r" + line);
    drawn_ = length;
  }
  if (drawn_ != 0) Write("\r" + std::string(drawn_, ' ') + "\r");
  drawn_ = 0;
}

}  // namespace kiln::cli
