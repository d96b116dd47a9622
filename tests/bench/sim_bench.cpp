// Simulator benchmark: events/s on the machine repair model (MRM) of seed 002,
//   par (p = 1, P) seq (i = 1, N) { delay(10) ; use(fcfs(0, 1), 0.1) }
// and its error table (bound max(N*10.1, P*N*0.1) vs simulated makespan and mean client
// finish time, exponential times), and the memory of a waiting process: a `||` tree of
// 2^K delays (c0 = delay(1), c_k = c_{k-1} || c_{k-1}, shared as the normalized model
// shares it), peak resident memory at K and K - 2, per leaf. Not part of CTest; build with
// tests/bench/bench.cmake or by hand (see docs/simulation.md).
//   sim_bench [speed|table|memory] [N or K] [runs] [seed]
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler/ast/ast.h"
#include "runtime/simulate.h"

using namespace pamc;
using ast::Kind;

static ast::NodeP num(double v) { return ast::make_number(Loc{}, std::to_string(v)); }
static ast::NodeP name(const char* n) { return ast::make(Kind::Name, Loc{}, {}, ast::Op::None, n); }

static ast::NodeP mrm() {
  auto fcfs = ast::make(Kind::Call, Loc{}, {num(0), num(1)}, ast::Op::None, "fcfs");
  auto body = ast::make(Kind::Seq, Loc{},
                        {ast::make(Kind::Delay, Loc{}, {num(10)}), ast::make(Kind::Use, Loc{}, {fcfs, num(0.1)})});
  auto seq = ast::make(Kind::SeqLoop, Loc{}, {num(1), name("N"), ast::make(Kind::Group, Loc{}, {body})},
                       ast::Op::None, "i");
  return ast::make(Kind::ParLoop, Loc{}, {num(1), name("P"), seq}, ast::Op::None, "p");
}

// Peak resident bytes of a child process that simulates the tree of 2^k leaves.
static double peak_bytes(int k) {
  pid_t pid = fork();
  if (pid == 0) {
    ast::NodeP t = ast::make(Kind::Delay, Loc{}, {num(1)});
    for (int i = 0; i < k; ++i) t = ast::make(Kind::Par, Loc{}, {t, t});
    SimOptions o;
    o.max_processes = 0;
    SimResult r = simulate_body(t, {}, o);
    _exit(r.events == (1ULL << k) ? 0 : 1);
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return static_cast<double>(ru.ru_maxrss) * 1024;
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "speed";
  double N = argc > 2 ? std::atof(argv[2]) : 0;
  int runs = argc > 3 ? std::atoi(argv[3]) : 0;
  std::uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;
  auto body = mrm();
  if (mode == "speed") {
    double Ps[] = {1, 100, 1000, 10000};
    for (double P : Ps) {
      double n = N > 0 ? N : 2e7 / (2 * P);
      for (int d = 0; d < 2; ++d) {
        SimOptions o;
        o.dist = d ? SimDist::Exp : SimDist::Det;
        o.runs = runs > 0 ? runs : 1;
        o.max_events = 0;
        // cpu time of this process: on a shared machine the wall clock measures the others
        std::clock_t t0 = std::clock();
        SimResult r = simulate_body(body, {{"P", P}, {"N", n}}, o);
        double s = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
        std::printf("MRM P=%-6g N=%-9g %s: %llu events in %.3f s cpu = %.3g events/s (T = %.6g)\n", P, n,
                    d ? "exp" : "det", static_cast<unsigned long long>(r.events), s, r.events / s,
                    r.makespan.mean);
      }
    }
    return 0;
  }
  if (mode == "table") {
    if (N <= 0) N = 2000;
    if (runs <= 0) runs = 5;
    double Ps[] = {1, 10, 50, 90, 100, 101, 110, 200, 1000};
    std::printf("N = %g, %d runs, exponential times, seed %llu\n", N, runs, static_cast<unsigned long long>(seed));
    std::printf("| P | bound | makespan | error | mean finish | error |\n|---|---|---|---|---|---|\n");
    for (double P : Ps) {
      SimOptions o;
      o.dist = SimDist::Exp;
      o.runs = runs;
      o.seed = seed;
      o.max_events = 0;
      SimResult r = simulate_body(body, {{"P", P}, {"N", N}}, o);
      double bound = std::max(N * 10.1, P * N * 0.1);
      double ms = r.makespan.mean, mf = r.mean_finish.mean;
      std::printf("| %g | %.6g | %.6g | %.1f%% | %.6g | %.1f%% |\n", P, bound, ms, 100 * (ms - bound) / ms, mf,
                  100 * (mf - bound) / mf);
    }
    return 0;
  }
  if (mode == "memory") {
    int K = N > 0 ? static_cast<int>(N) : 20;
    double hi = peak_bytes(K), lo = peak_bytes(K - 2);
    double leaves = std::ldexp(1.0, K) - std::ldexp(1.0, K - 2);
    std::printf("|| tree of 2^%d leaves: peak %.1f MiB (2^%d: %.1f MiB): %.0f bytes per waiting process\n", K,
                hi / 1048576, K - 2, lo / 1048576, (hi - lo) / leaves);
    return 0;
  }
  std::fprintf(stderr, "usage: sim_bench [speed|table|memory] [N or K] [runs] [seed]\n");
  return 2;
}
