// Property test: simplification never changes a value. Random, seeded Pamela models
// covering every operator are compiled to the time domain and to closed form; at several
// parameter points each, the closed form's value must equal brute-force evaluation of
// the unsimplified time-domain model (exactly, or within 1e-12 relative where floating
// point enters). Points where brute force itself has no value (max over an empty range)
// are skipped, and so are points outside a closed form's recorded assumptions (there eval
// falls back to the time-domain model); points where only the closed form fails are
// failures.
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>
#include <set>
#include <sstream>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "tests/unit/edge_points.h"

using namespace pamc;

namespace {

class ModelGenerator {
 public:
  explicit ModelGenerator(unsigned seed) : rng_(seed) {}

  std::string model() {
    std::ostringstream out;
    out << "numeric parameter N\n";
    out << "numeric parameter P >= 1\n";
    out << "numeric parameter K = 3\n";
    out << "numeric parameter B >= 1\n";      // block size of `div` distributions
    out << "numeric parameter M >= P\n";      // a symbolic bound
    out << "numeric parameter Q >= 2 <= 5\n";  // both ends bounded
    out << "numeric c = " << pick({"0.5", "2", "1.25", "3"}) << "\n";
    out << "resource r0 = fcfs(0, 1)\nresource r1 = fcfs(1, " << pick({"1", "2", "3"}) << ")\n";
    out << "resource cpu(p) = fcfs(p + 2, 1)\n";
    in_work_ = true;  // likewise for work
    out << "process work(x) = " << process(2, {"x"}) << "\n";
    in_work_ = false;
    in_f_ = true;  // f's own body must not call f
    out << "numeric f(y) = " << numeric(2, {"y"}) << "\n";
    in_f_ = false;
    out << "process main = " << process(3, {}) << "\n";
    out << "numeric value = " << numeric(3, {}) << "\n";
    return out.str();
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string pick(std::initializer_list<const char*> xs) {
    auto it = xs.begin();
    std::advance(it, uniform(0, static_cast<int>(xs.size()) - 1));
    return *it;
  }
  std::string var(const std::vector<std::string>& scope) {
    if (!scope.empty() && uniform(0, 2) > 0) return scope[uniform(0, static_cast<int>(scope.size()) - 1)];
    return pick({"N", "P", "K", "c", "B", "M", "Q"});
  }
  // A loop index: usually a new name, sometimes one already used, so an inner loop may hide
  // an outer index of the same name (lowering shares index symbols by name and depth).
  std::string fresh() {
    if (next_index_ > 0 && uniform(0, 4) == 0) return "i" + std::to_string(uniform(0, next_index_ - 1));
    return "i" + std::to_string(next_index_++);
  }

  // Integer-valued loop ranges: constant, parameter, triangular (depends on an outer index).
  std::pair<std::string, std::string> range(const std::vector<std::string>& scope) {
    switch (uniform(0, 9)) {
      case 0: return {"1", "N"};
      case 1: return {"0", "K - 1"};
      case 2: return {"1", std::to_string(uniform(0, 3))};
      case 3: return {"1", "P"};
      case 4: return {"0", "N - 1"};
      case 5: return {"1", "M"};
      case 6: return {std::to_string(uniform(0, 2)), std::to_string(uniform(0, 9))};
      case 7:  // triangular, below the outer index (Gaussian elimination)
        if (!scope.empty()) return {"1", scope.back()};
        return {"1", "Q"};
      case 8:
        if (!scope.empty()) return {scope.back() + " + 1", "N"};
        return {"0", "Q - 1"};
      default:
        if (!scope.empty()) return {scope.back(), "N"};
        return {"2", "N + 1"};
    }
  }

  // A predicate on a loop index, as summed over the index (counts) or used in `if`.
  std::string predicate(const std::string& i) {
    switch (uniform(0, 11)) {
      case 11:  // a linear function of the index capped by an index-free one (GAUSS block)
      {
        const std::string f[] = {"1", i, "(N - " + i + ")"};
        const std::string g[] = {"N - " + i, i + " + 1", "2 * " + i, "3 - " + i + " / 2"};
        return "(" + f[uniform(0, 2)] + " * min(" + g[uniform(0, 3)] + ", " + pick({"ceil(N / P)", "B", "c", "M / 2"}) + "))";
      }
      case 9: return "((" + i + " - 1) div " + pick({"B", "2", "(N / P)"}) + " != " + i + " div " + pick({"B", "2"}) + ")";
      case 10: return "(" + i + " * ceil((N - " + i + ") / " + pick({"2", "3", "ceil(P)"}) + "))";
      case 0: return "(" + i + " mod " + pick({"2", "3", "P", "Q"}) + " == " + pick({"0", "1", "2"}) + ")";
      case 1: return "(" + i + " mod " + pick({"2", "3"}) + " != " + pick({"0", "1"}) + ")";
      case 2: return "(" + i + " <= " + pick({"N", "P", "3", "K", "c"}) + ")";
      case 3: return "(" + i + " < " + pick({"N", "M", "2", "c * 2"}) + ")";
      case 4: return "(" + pick({"N", "P", "2"}) + " < " + i + ")";
      case 5: return "(2 * " + i + " >= " + pick({"N", "P", "3"}) + ")";
      case 6: return "(" + i + " == " + pick({"N", "P", "3", "c"}) + ")";
      case 7: return "(" + i + " != " + pick({"N", "2"}) + ")";
      default: return "((" + i + " + 1) mod " + pick({"2", "3"}) + " == 1)";
    }
  }

  std::string numeric(int depth, std::vector<std::string> scope) {
    if (depth <= 0 || uniform(0, 5) == 0) {
      if (uniform(0, 1)) return std::to_string(uniform(0, 5));
      return var(scope);
    }
    int d = depth - 1;
    switch (uniform(0, 19)) {
      case 0: return numeric(d, scope) + " + " + numeric(d, scope);
      case 1: return numeric(d, scope) + " - " + numeric(d, scope);
      case 2: return "(" + numeric(d, scope) + ") * (" + numeric(d, scope) + ")";
      case 3: return "(" + numeric(d, scope) + ") / " + pick({"2", "4", "(P + 1)"});
      case 4: return "(" + numeric(d, scope) + ") ^ " + pick({"2", "3"});
      case 5: return "(" + numeric(d, scope) + ") mod " + pick({"2", "3", "P"});
      case 6: return "(" + numeric(d, scope) + ") div " + pick({"2", "3", "P"});
      case 7: return "(" + numeric(d, scope) + " " + pick({"==", "!=", "<", "<=", ">", ">="}) + " " + numeric(d, scope) + ")";
      case 8: return "(" + numeric(d, scope) + " < 2 " + pick({"and", "or"}) + " not " + numeric(d, scope) + " > 1)";
      case 9: return std::string(uniform(0, 1) ? "max" : "min") + "(" + numeric(d, scope) + ", " + numeric(d, scope) + ")";
      case 10:
      case 11: {
        auto [lb, ub] = range(scope);
        std::string i = fresh();
        auto inner = scope;
        inner.push_back(i);
        std::string body = uniform(0, 3) == 0 ? predicate(i) : numeric(d, inner);
        if (uniform(0, 5) == 0) body = predicate(i) + " * (" + numeric(d, inner) + ")";
        return pick({"sum", "sum", "max", "min"}) + " (" + i + " = " + lb + ", " + ub + ") { " + body + " }";
      }
      case 12:  // the branches of `if` are one term each (SPEC 2): parenthesize
        return "(if (" + numeric(d, scope) + " > 2) (" + numeric(d, scope) + ") else (" + numeric(d, scope) + "))";
      case 13: return pick({"floor", "ceil", "abs"}) + "((" + numeric(d, scope) + ") / 3)";
      case 14: return "sqrt(" + numeric(d, scope) + " ^ 2 + 1)";
      case 15: return "max([" + numeric(d, scope) + ", " + numeric(d, scope) + ", 1] * 2)";
      case 16:
        if (in_f_) return numeric(d, scope);
        return "f(" + numeric(d, scope) + ")";
      case 17: return "max(" + numeric(d, scope) + " * unitvec(2) + [1, 2])";
      default: return var(scope) + " * " + std::to_string(uniform(1, 4));
    }
  }

  std::string resource(const std::vector<std::string>& scope) {
    std::string i = scope.empty() ? std::string(pick({"0", "1"})) : scope.back();
    switch (uniform(0, 6)) {
      case 0: return "r0";
      case 1: return "r1";
      case 2:
      case 3: return "cpu(" + i + pick({"", "", " + 1"}) + " mod " + pick({"P", "2", "3", "Q"}) + ")";
      case 4: return "cpu(" + i + pick({"", "", " - 1"}) + " div " + pick({"B", "B", "2", "3"}) + ")";
      case 5: return "cpu(" + (scope.size() >= 2 ? scope[scope.size() - 2] + " mod P" : i + " div B") + ")";
      default: return "cpu(" + i + ")";
    }
  }

  std::string process(int depth, std::vector<std::string> scope) {
    if (depth <= 0 || uniform(0, 6) == 0) {
      if (uniform(0, 1)) return "delay(" + numeric(1, scope) + ")";
      return "use(" + resource(scope) + ", " + numeric(1, scope) + ")";
    }
    int d = depth - 1;
    switch (uniform(0, 8)) {
      case 0: return "{ " + process(d, scope) + " ; " + process(d, scope) + " }";
      case 1: return "{ " + process(d, scope) + " || " + process(d, scope) + " }";
      case 2:
      case 3: {
        auto [lb, ub] = range(scope);
        std::string i = fresh();
        auto inner = scope;
        inner.push_back(i);
        return std::string(uniform(0, 1) ? "seq" : "par") + " (" + i + " = " + lb + ", " + ub + ") " + process(d, inner);
      }
      case 4: return "if (" + pick({"0.25", "0.5", "1", "0"}) + ") " + process(d, scope) + " else " + process(d, scope);
      case 5:
        if (!scope.empty() && uniform(0, 1)) return "if " + predicate(scope.back()) + " " + process(d, scope);
        return "if (" + var(scope) + " mod 2 == 0) " + process(d, scope);
      case 6:
        if (in_work_) return "delay(" + numeric(1, scope) + ")";
        return "work(" + numeric(1, scope) + ")";
      default: return "use(" + resource(scope) + ", " + numeric(d, scope) + ")";
    }
  }

  std::mt19937 rng_;
  int next_index_ = 0;
  bool in_f_ = false;
  bool in_work_ = false;
};

bool close_enough(const GiNaC::numeric& a, const GiNaC::numeric& b) {
  if (a.is_rational() && b.is_rational()) return a == b;
  double x = a.to_double(), y = b.to_double();
  double scale = std::max({1.0, std::abs(x), std::abs(y)});
  return std::abs(x - y) <= 1e-12 * scale;
}

bool same_value(const sym::Value& a, const sym::Value& b) {
  if (!a.is_vector && !b.is_vector) return close_enough(a.scalar, b.scalar);
  // Vectors: compare element-wise, missing elements are zero.
  auto get = [](const sym::Value& v, long i) {
    if (!v.is_vector) return i == 0 ? v.scalar : GiNaC::numeric(0);
    auto it = v.elems.find(i);
    return it == v.elems.end() ? GiNaC::numeric(0) : it->second;
  };
  std::set<long> keys;
  for (const sym::Value* v : {&a, &b})
    if (v->is_vector)
      for (const auto& [k, x] : v->elems) keys.insert(k);
    else
      keys.insert(0);
  for (long k : keys)
    if (!close_enough(get(a, k), get(b, k))) return false;
  return true;
}

// Models that give a wrong value at an edge point today, by seed: closed counts applied at
// N or K < 0, a value where a max over an empty range or a negative position leaves the
// model without one. Remove a seed once fixed (the test fails on a listed seed that is
// right at every edge point).
const std::set<int> kKnownEdgeMismatchSeeds = {};

}  // namespace

TEST_CASE("property: closed forms equal brute force on 1200 random models") {
  const int kModels = 1200;
  long compared = 0, skipped = 0, outside_assumptions = 0, residual = 0, reductions_before = 0, closed_models = 0;
  long edge_compared = 0, edge_mismatches = 0;
  std::set<int> edge_known;
  for (int seed = 1; seed <= kModels; ++seed) {
    ModelGenerator gen(static_cast<unsigned>(seed));
    std::string text = gen.model();
    Diagnostics diags;
    auto timed = compile_text("random.pam", text, {}, Stage::Time, diags);
    INFO("seed " << seed << "\n" << text);
    if (!timed) {
      // A constant outside a function's domain (sqrt((1 - 5) ^ 9 + 1)) is the model's error
      // since lowering checks it; such a model has no value to compare.
      bool domain_error = !diags.all().empty() && is_value_error(diags.all()[0].kind);
      REQUIRE(domain_error);
      ++skipped;
      continue;
    }
    CostModel simplified = timed->model;
    simplify_model(simplified);
    long left = 0;
    for (const CostEquation& eq : timed->model.equations) reductions_before += sym::count_reductions(eq.value);
    for (const CostEquation& eq : simplified.equations) left += sym::count_reductions(eq.value);
    residual += left;
    if (left == 0) ++closed_models;
    // Edge points within the declared bounds: N and K negative, zero, fractional or huge; P, B
    // at 1, 5/2 or 10^6; M at P, P + 1/2 or P + 10^6; Q at 2, 5/2 or 5. As pamc eval runs it.
    std::mt19937 edges(static_cast<unsigned>(seed) * 31u + 7u);
    auto one_of = [&](std::initializer_list<GiNaC::numeric> xs) {
      auto it = xs.begin();
      std::advance(it, std::uniform_int_distribution<int>(0, static_cast<int>(xs.size()) - 1)(edges));
      return *it;
    };
    for (int point = 0; point < 3; ++point) {
      const GiNaC::numeric half(1, 2), big(1000000);
      std::map<std::string, GiNaC::numeric> bind{{"N", edge::value(edges)}, {"K", edge::value(edges)},
                                                 {"P", one_of({1, 1 + 3 * half, big})}, {"B", one_of({1, 1 + 3 * half, big})},
                                                 {"Q", one_of({2, 5 * half, 5})}};
      bind["M"] = bind["P"] + one_of({0, half, big});
      for (const char* target : {"T_main", "value"}) {
        edge::Verdict v = edge::compare(simplified, timed->model, target, bind);
        edge_compared += v.outcome == edge::Outcome::Compared;
        if (v.outcome != edge::Outcome::Mismatch) continue;
        if (kKnownEdgeMismatchSeeds.count(seed)) {
          edge_known.insert(seed);
          if (std::getenv("PAMC_SHOW_KNOWN")) MESSAGE("known: " << target << ": " << v.problem);
          continue;
        }
        ++edge_mismatches;
        FAIL_CHECK(std::string(target) << " at N=" << bind["N"] << " K=" << bind["K"] << " P=" << bind["P"] << " B=" << bind["B"]
                          << " M=" << bind["M"] << " Q=" << bind["Q"] << ": " << v.problem);
      }
    }
    std::mt19937 points(static_cast<unsigned>(seed) * 7919u);
    for (int point = 0; point < 4; ++point) {
      std::map<std::string, GiNaC::numeric> bind{{"N", std::uniform_int_distribution<int>(0, 6)(points)},
                                                 {"P", std::uniform_int_distribution<int>(1, 5)(points)},
                                                 {"K", std::uniform_int_distribution<int>(0, 4)(points)},
                                                 {"B", std::uniform_int_distribution<int>(1, 4)(points)},
                                                 {"Q", std::uniform_int_distribution<int>(2, 5)(points)}};
      bind["M"] = bind["P"] + std::uniform_int_distribution<int>(0, 3)(points);
      GiNaC::exmap env_time = bind_parameters(timed->model, bind);
      GiNaC::exmap env_simple = bind_parameters(simplified, bind);
      // Outside the closed form's recorded assumptions eval uses the time-domain model
      // itself (evaluate_model), so there is nothing to compare.
      if (!assumptions_hold(simplified, env_simple)) {
        ++outside_assumptions;
        continue;
      }
      for (std::size_t e = 0; e < simplified.equations.size(); ++e) {
        const CostEquation& brute_eq = timed->model.equations[e];
        const CostEquation& closed_eq = simplified.equations[e];
        sym::Value brute, closed;
        try {
          sym::WorkBudget budget;
          brute = sym::evaluate(brute_eq.value, env_time, budget);
        } catch (const sym::EvalError&) {
          ++skipped;
          continue;
        }
        try {
          sym::WorkBudget budget;
          closed = sym::evaluate(closed_eq.value, env_simple, budget);
        } catch (const sym::EvalError& err) {
          FAIL_CHECK(closed_eq.name << ": closed form fails where brute force gives a value: " << err.message
                                    << "\n  closed form: " << sym::to_pamela(closed_eq.value));
          continue;
        }
        ++compared;
        if (!same_value(brute, closed)) {
          FAIL_CHECK(closed_eq.name << " at N=" << bind["N"] << " P=" << bind["P"] << " K=" << bind["K"]
                                    << ": brute force " << format_value(brute) << " != closed form "
                                    << format_value(closed) << "\n  closed form: " << sym::to_pamela(closed_eq.value)
                                    << "\n  time domain: " << sym::to_pamela(brute_eq.value));
        }
      }
    }
  }
  MESSAGE("compared " << compared << " values, skipped " << skipped << " without a brute-force value and "
                       << outside_assumptions << " points outside the closed forms' assumptions");
  MESSAGE("reductions: " << reductions_before << " in the time-domain models, " << residual
                         << " left after simplification; " << closed_models << " of " << kModels
                         << " models fully closed");
  CHECK(compared > 10000);
  MESSAGE("edge points (N, K negative, zero, fractional, huge; P, B, M, Q at their bounds' edges): " << edge_compared
                                                                                                   << " values compared");
  CHECK(edge_mismatches == 0);
  for (int seed : kKnownEdgeMismatchSeeds)
    if (!edge_known.count(seed)) FAIL_CHECK("seed " << seed << " is right at every edge point now: remove it");
}
