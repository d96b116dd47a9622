// Property test for the index-map algebra (issue 11): random models written the way users
// write them (plain `numeric parameter P`, no bounds), made of the families the simplifier
// closes: owner-computes maps (identity, offsets, cyclic, block, block-cyclic, the block
// owner (i - 1) * P div N), weights polynomial in the index (triangular, trapezoidal),
// predicates, halo links, shrinking ranges. For each model, at points that include ones
// where a fact or an assumption fails (P = 0, N = 0, N < P, P not dividing N), `pamc eval`'s
// path (evaluate_model: closed form where its conditions hold, else the time domain) must
// give brute force's value, or brute force must have none. 1000 models, seeded.
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

class IndexMapModels {
 public:
  explicit IndexMapModels(unsigned seed) : rng_(seed) {}

  std::string model() {
    std::ostringstream out;
    out << "numeric parameter N\nnumeric parameter P\nnumeric parameter B\n";
    out << "resource cpu(p) = fcfs(p, 1)\nresource link(p) = fcfs(P + p, 1)\n";
    int shape = uniform(0, 3);
    std::string lb = pick({"0", "1"});
    std::string ub = pick({"N", "N - 1", "P - 1", "2 * N - 1", "N / P"});
    switch (shape) {
      case 0:  // one parallel loop
        out << "process main = par (i = " << lb << ", " << ub << ") " << body("i", lb) << "\n";
        break;
      case 1:  // iterations of a parallel step
        out << "process main = seq (k = 1, " << pick({"3", "N", "B"}) << ") par (i = " << lb << ", " << ub << ") "
            << body("i", lb) << "\n";
        break;
      case 2:  // a shrinking range (Gaussian elimination)
        out << "process main = seq (k = 1, N) par (i = k, N) " << body("i", "1") << "\n";
        break;
      default:  // two phases
        out << "process main = { par (i = " << lb << ", " << ub << ") " << body("i", lb) << " ; par (p = 0, P - 1) "
            << body("p", "0") << " }\n";
    }
    return out.str();
  }

 private:
  int uniform(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng_); }
  std::string pick(std::initializer_list<const char*> xs) {
    auto it = xs.begin();
    std::advance(it, uniform(0, static_cast<int>(xs.size()) - 1));
    return *it;
  }
  std::string map(const std::string& i, const std::string& lb) {
    switch (uniform(0, 8)) {
      case 0: return i;
      case 1: return i + " + 1";
      case 2: return lb == "1" ? i + " - 1" : i;
      case 3: return i + " mod P";
      case 4: return "(" + i + " + 1) mod P";
      case 5: return i + " div B";
      case 6: return "(" + i + " div B) mod P";
      case 7: return lb == "1" ? "(" + i + " - 1) * P div N" : i + " * P div N";
      default: return "0";
    }
  }
  std::string weight(const std::string& i) { return pick({"1", "2", "0.5"}) + std::string(uniform(0, 3) ? "" : " * " + i); }
  std::string body(const std::string& i, const std::string& lb) {
    std::string use = "use(cpu(" + map(i, lb) + "), " + weight(i) + ")";
    switch (uniform(0, 5)) {
      case 0: use = "seq (j = 1, " + i + ") " + use; break;                 // triangular
      case 1: use = "seq (j = " + i + ", N) " + use; break;                 // trapezoidal
      case 2: use = "if (" + i + " mod 2 == 0) " + use; break;              // predicate
      case 3: use = "{ delay(1) ; " + use + " }"; break;                    // local work
      case 4: use = "{ " + use + " ; use(link((" + i + " + 1) mod P), 1) }"; break;  // halo send
      default: break;
    }
    return use;
  }
  std::mt19937 rng_;
};

// Models that give a wrong value at an edge point today, listed by seed: a closed count
// applied where its range is empty (N or B < 0), and a par's max (0 over an empty range)
// that the closed form turns into a user's max (no value there). Remove a seed once it is fixed: the test fails on
// a listed seed that is right at every point, and on any mismatch of a seed not listed.
const std::set<int> kKnownEdgeMismatchSeeds = {};

}  // namespace

TEST_CASE("property: models written without bounds evaluate to brute force's value (1000 index-map models)") {
  const int kModels = 1000;
  long compared = 0, no_value = 0, closed = 0;
  long edge_compared = 0, edge_none = 0, edge_skipped = 0, edge_mismatches = 0;
  std::set<int> edge_known;
  for (int seed = 1; seed <= kModels; ++seed) {
    IndexMapModels gen(static_cast<unsigned>(seed));
    std::string text = gen.model();
    INFO("seed " << seed << "\n" << text);
    Diagnostics diags;
    auto c = compile_text("indexmap.pam", text, {}, Stage::Simplified, diags);
    REQUIRE(c);
    const CostEquation* t = c->model.equation("T_main");
    REQUIRE(t);
    if (sym::count_reductions(t->value) == 0) ++closed;
    else if (std::getenv("PAMC_SHOW_OPEN")) MESSAGE("open:\n" << text << print_cost_model(c->model, false));
    // Edge points: each parameter negative, zero, fractional or huge half of the time.
    auto timed = compile_text("indexmap.pam", text, {}, Stage::Time, diags);
    REQUIRE(timed);
    std::mt19937 edges(static_cast<unsigned>(seed) * 7u + 1u);
    for (int k = 0; k < 4; ++k) {
      std::map<std::string, GiNaC::numeric> bind;
      for (const char* p : {"N", "P", "B"})
        bind[p] = std::uniform_int_distribution<int>(0, 1)(edges) ? edge::value(edges)
                                                                 : GiNaC::numeric(std::uniform_int_distribution<int>(0, 9)(edges));
      edge::Verdict v = edge::compare(c->model, timed->model, "T_main", bind);
      edge_compared += v.outcome == edge::Outcome::Compared;
      edge_none += v.outcome == edge::Outcome::NoValueBoth;
      edge_skipped += v.outcome == edge::Outcome::NotCompared;
      if (v.outcome != edge::Outcome::Mismatch) continue;
      if (kKnownEdgeMismatchSeeds.count(seed)) {
        edge_known.insert(seed);
        if (std::getenv("PAMC_SHOW_KNOWN")) MESSAGE("known: N=" << bind["N"] << " P=" << bind["P"] << " B=" << bind["B"] << ": " << v.problem);
        continue;
      }
      ++edge_mismatches;
      FAIL_CHECK("N=" << bind["N"] << " P=" << bind["P"] << " B=" << bind["B"] << ": " << v.problem
                      << "\n  closed form: " << sym::to_pamela(t->value));
    }
    std::mt19937 points(static_cast<unsigned>(seed) * 104729u);
    for (int k = 0; k < 5; ++k) {
      std::map<std::string, GiNaC::numeric> bind{{"N", std::uniform_int_distribution<int>(0, 9)(points)},
                                                 {"P", std::uniform_int_distribution<int>(0, 5)(points)},
                                                 {"B", std::uniform_int_distribution<int>(0, 3)(points)}};
      GiNaC::exmap env = bind_parameters(c->model, bind);
      sym::Value brute;
      try {
        sym::WorkBudget budget;
        brute = sym::evaluate(t->time_value, env, budget);
      } catch (const sym::EvalError&) {
        ++no_value;  // the model has no value here (P = 0 under mod, a fractional bound)
        continue;
      }
      EvalRequest req;
      req.bindings = bind;
      req.targets = {"T_main"};
      try {
        EvalResult r = evaluate_model(c->model, req);
        ++compared;
        CHECK_MESSAGE(sym::values_equal(r.values[0].second, brute, 1e-12),
                      "N=" << bind["N"] << " P=" << bind["P"] << " B=" << bind["B"] << ": eval "
                           << format_value(r.values[0].second) << " != brute force " << format_value(brute)
                           << "\n  closed form: " << sym::to_pamela(t->value));
      } catch (const CompileError& e) {
        FAIL_CHECK("eval fails where brute force gives " << format_value(brute) << ": " << e.diag.message
                                                         << "\n  closed form: " << sym::to_pamela(t->value));
      }
    }
  }
  MESSAGE("edge points (N, P, B also negative, zero, fractional, huge): " << edge_compared << " values compared, "
                                                                          << edge_none << " without a value on both sides, "
                                                                          << edge_skipped << " too large for brute force");
  CHECK(edge_mismatches == 0);
  for (int seed : kKnownEdgeMismatchSeeds)
    if (!edge_known.count(seed)) FAIL_CHECK("seed " << seed << " is right at every edge point now: remove it");
  MESSAGE("index-map models: " << closed << " of " << kModels << " closed; " << compared << " values compared, "
                               << no_value << " points without a value");
  CHECK(compared > 3000);
  // A regression guard on closure: 812 of 1000 close today. The generator also mixes maps
  // whose spans overlap (cpu(i) for i up to 2 N beside link(p)) and weights that are not
  // monotone under a cyclic map, which stay open by design (with a reason printed).
  CHECK(closed * 100 >= kModels * 80);
}
