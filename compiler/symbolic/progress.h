// Long evaluations: a progress line on a terminal, and a clean stop on Ctrl-C.
//
// The evaluators call a WorkBudget's tick every few tens of thousands of reduction terms;
// the command line hangs a ProgressLine and the interrupt check on it. The line is drawn
// on stderr only when stderr is a terminal and the work has run for half a second, and is
// erased when the work ends, so piped output and quick evaluations never see it.
#pragma once

#include <chrono>
#include <string>

namespace pamc::sym {

// SIGINT sets a flag (and nothing else: the handler is async-signal-safe); the next tick
// turns it into an error, so the command stops with a message and writes no partial file.
void install_interrupt_handler();
bool interrupted();

class ProgressLine {
 public:
  // what: the equation or job ("T_main"); total: the estimated count (0: unknown); unit:
  // what is counted ("terms", "events").
  ProgressLine(std::string what, double total, std::string unit = "terms");
  ~ProgressLine();
  void tick(long long done);

 private:
  std::string what_;
  double total_;
  std::string unit_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace pamc::sym
