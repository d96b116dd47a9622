// ns per evaluation of the MRM's T_main three ways (docs/embedding.md, tests/bench/README.md):
//   generated C++   pamc compile samples/mrm.pam --emit cpp (inline function, target <= 5 ns)
//   library         pamela::CostFunction, the compiled evaluator (target <= 50 ns)
//   GiNaC evalf     subs + evalf of the simplified closed form (the reference)
// All three see the same 1024 (P, N) points, and their sums must agree.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "compiler/passes/pipeline.h"
#include "mrm_generated.hpp"
#include "pamela/pamela.h"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double ns_per_eval(F&& f, long evaluations) {
  auto start = Clock::now();
  f();
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / double(evaluations);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model = argc > 1 ? argv[1] : std::string(PAMC_SOURCE_DIR) + "/samples/mrm.pam";
  const int kPoints = 1024;
  std::vector<double> P(kPoints), N(kPoints), args(2 * kPoints);
  for (int i = 0; i < kPoints; ++i) {
    P[i] = 1 + (i * 37) % 2000;
    N[i] = 1e6 + i;
    args[2 * i] = P[i];
    args[2 * i + 1] = N[i];
  }
  volatile double sink = 0;

  const long reps_fast = 20000;  // 20M evaluations
  double sum_cpp = 0;
  double cpp = ns_per_eval([&] {
    for (long r = 0; r < reps_fast; ++r) {
      double s = 0;
      for (int i = 0; i < kPoints; ++i) s += mrm::T_main(P[i], N[i]);
      sink = s;
      sum_cpp = s;
    }
  }, reps_fast * kPoints);

  pamela::CostFunction f = pamela::Model::from_file(model).function("T_main");
  const long reps_lib = 5000;
  double sum_lib = 0;
  double lib = ns_per_eval([&] {
    for (long r = 0; r < reps_lib; ++r) {
      double s = 0;
      for (int i = 0; i < kPoints; ++i) s += f.evaluate(&args[2 * i], 2);
      sink = s;
      sum_lib = s;
    }
  }, reps_lib * kPoints);
  std::vector<double> out(kPoints);
  double lib_many = ns_per_eval([&] {
    for (long r = 0; r < reps_lib; ++r) {
      f.evaluate_many(args.data(), kPoints, 2, out.data());
      sink = out[r % kPoints];
    }
  }, reps_lib * kPoints);

  pamc::Diagnostics diags;
  auto comp = pamc::compile_file(model, {}, pamc::Stage::Simplified, diags);
  if (!comp) return 1;
  const GiNaC::ex T = comp->model.equation("T_main")->value;
  const GiNaC::ex sP = comp->model.parameter("P")->symbol, sN = comp->model.parameter("N")->symbol;
  const long reps_ginac = 20;
  double sum_ginac = 0;
  double ginac = ns_per_eval([&] {
    for (long r = 0; r < reps_ginac; ++r) {
      double s = 0;
      for (int i = 0; i < kPoints; ++i)
        s += GiNaC::ex_to<GiNaC::numeric>(T.subs(GiNaC::exmap{{sP, P[i]}, {sN, N[i]}}).evalf()).to_double();
      sum_ginac = s;
    }
  }, reps_ginac * kPoints);
  (void)sink;

  std::printf("MRM T_main = %s, %d points\n", f.formula().c_str(), kPoints);
  std::printf("  generated C++ (inline)        %8.2f ns/eval   (target <= 5)\n", cpp);
  std::printf("  library, evaluate()           %8.2f ns/eval   (target <= 50; %zu instructions)\n", lib, f.instructions());
  std::printf("  library, evaluate_many()      %8.2f ns/eval\n", lib_many);
  std::printf("  GiNaC subs + evalf            %8.2f ns/eval   (reference)\n", ginac);
  bool agree = std::fabs(sum_cpp - sum_lib) <= 1e-9 * std::fabs(sum_cpp) &&
               std::fabs(sum_cpp - sum_ginac) <= 1e-9 * std::fabs(sum_cpp);
  std::printf("  sums agree: %s\n", agree ? "yes" : "NO");

  // Open models through the library: loops the simplifier leaves open run as compiled
  // loops (compiler/evaluate). Terms per second at growing N (growth should be linear).
  std::printf("open models through evaluate_many (terms/s; target >= 1e8):\n");
  struct Open {
    const char* what;
    const char* text;
    double (*terms)(double N);
  };
  const Open open_models[] = {
      {"sum (i = 1, N) { sqrt(i) } (a scalar loop)",
       "numeric parameter N\nnumeric t = sum (i = 1, N) { sqrt(i) }\nprocess main = delay(t)\n",
       [](double n) { return n; }},
      {"par i par j use(cpu((i + j) mod 7), 1) (a resource vector)",
       "numeric parameter N\nresource cpu(p) = fcfs(p, 1)\n"
       "process main = par (i = 0, N - 1) par (j = 0, N - 1) use(cpu((i + j) mod 7), 1)\n",
       [](double n) { return n * n; }},
  };
  for (const Open& m : open_models) {
    pamela::CostFunction g = pamela::Model::from_text(m.text, "open").function("T_main");
    std::printf("  %s (%zu instructions)\n", m.what, g.instructions());
    for (double n : {1e3, 1e4, 1e5, 1e6}) {
      double terms = m.terms(n);
      if (terms > 2e9) continue;
      std::vector<double> pts(8, n), res(8);
      auto start = Clock::now();
      g.evaluate_many(pts.data(), pts.size(), 1, res.data());
      double secs = std::chrono::duration<double>(Clock::now() - start).count();
      std::printf("    N = %-8.0f %10.3g terms/eval  %8.3f ms/eval  %10.3g terms/s\n", n, terms, 1e3 * secs / 8,
                  8 * terms / secs);
    }
  }
  return agree ? 0 : 1;
}
