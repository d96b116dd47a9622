#include "compiler/symbolic/progress.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>

namespace pamc::sym {

namespace {
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }
}  // namespace

void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }
bool interrupted() { return g_interrupted != 0; }

ProgressLine::ProgressLine(std::string what, double total, std::string unit)
    : what_(std::move(what)), total_(total), unit_(std::move(unit)), tty_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputs("\r\033[K", stderr);  // erase the line: the result follows cleanly
}

void ProgressLine::tick(long long done) {
  if (!tty_) return;
  auto now = std::chrono::steady_clock::now();
  using ms = std::chrono::milliseconds;
  if (now - start_ < ms(500) || now - last_ < ms(200)) return;
  last_ = now;
  double secs = std::chrono::duration<double>(now - start_).count();
  double rate = done / secs;
  if (total_ > 0 && done < total_)
    std::fprintf(stderr, "\r\033[Kpamc: %s: %.3g of about %.3g %s (%.0f%%), %.3g %s/s, about %.0f s left (Ctrl-C stops)",
                 what_.c_str(), double(done), total_, unit_.c_str(), 100.0 * done / total_, rate, unit_.c_str(),
                 (total_ - done) / rate);
  else
    std::fprintf(stderr, "\r\033[Kpamc: %s: %.3g %s, %.3g %s/s (Ctrl-C stops)", what_.c_str(), double(done),
                 unit_.c_str(), rate, unit_.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace pamc::sym
