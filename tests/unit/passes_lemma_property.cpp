// Lemma against general path: the load-vector shape rules (the `vmax_` rules: a cyclic map,
// a block map, a uniform family minus its diagonal, ...) are tried first because they print
// short forms, and each is checked here against what the other rules give without it.
//
// For every model of the wider index-map generator (wide_models.h) on which a `vmax_` rule
// fires, the model is compiled again with that rule left out (set_disabled_rules). At the
// same points as the wider test (parameters also negative, zero, fractional and huge):
//   - the form without the lemma equals brute force wherever the model has a value, and has
//     no value where it has none (the general path is as right as the lemma);
//   - the forms with and without the lemma give the same value, or both none, also at points
//     brute force cannot reach (a count of 10^6 workers).
// Any difference fails the test. It also prints, per lemma, on how many models it fired and
// how many of those the general path closes alone (a lemma the general path covers on
// every model is a candidate for deletion; one it never covers is load-bearing).
#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "compiler/symbolic/simplify.h"
#include "tests/unit/edge_points.h"
#include "tests/unit/wide_models.h"

using namespace pamc;

namespace {

// The closed forms for every value at one point: a value, or none (the point has no value),
// or nullopt where evaluating needs more work than a test should spend.
struct AtPoint {
  bool known = false;
  bool has_value = false;
  sym::Value value;
};

AtPoint closed_form_at(const CostModel& model, const std::map<std::string, GiNaC::numeric>& bind) {
  EvalRequest req;
  req.bindings = bind;
  req.targets = {"T_main"};
  req.max_terms = edge::kBruteTerms;
  AtPoint r;
  try {
    r.value = evaluate_model(model, req).values[0].second;
    r.known = r.has_value = true;
  } catch (const CompileError& e) {
    r.known = e.diag.kind != DiagKind::WorkLimit && e.diag.kind != DiagKind::ValueTooLarge;
  }
  return r;
}

struct LemmaCount {
  long fired = 0;           // models on which the lemma fired
  long general_closes = 0;  // of those, closed without it
  long compared = 0;        // points compared (against brute force or the lemma's form)
};

}  // namespace

TEST_CASE("property: each load-vector lemma against the general path (wider generator)") {
  const int kModels = std::getenv("PAMC_LEMMA_MODELS") ? std::atoi(std::getenv("PAMC_LEMMA_MODELS")) : 300;
  std::map<std::string, LemmaCount> lemmas;
  long mismatches = 0;
  for (int seed = 1; seed <= kModels; ++seed) {
    wide::WideModels gen(static_cast<unsigned>(seed));
    const std::string text = gen.model();
    Diagnostics diags;
    auto with_lemmas = compile_text("wide.pam", text, {}, Stage::Simplified, diags);
    auto timed = compile_text("wide.pam", text, {}, Stage::Time, diags);
    REQUIRE(with_lemmas);
    REQUIRE(timed);
    for (const auto& [rule, n] : with_lemmas->model.stats.fired) {
      if (rule.rfind("vmax_", 0) != 0 || rule == "vmax_numeric" || rule == "vmax_single" || n == 0) continue;
      INFO("seed " << seed << ", without " << rule << "\n" << text);
      sym::set_disabled_rules({rule});
      auto general = compile_text("wide.pam", text, {}, Stage::Simplified, diags);
      sym::set_disabled_rules({});
      REQUIRE(general);
      LemmaCount& count = lemmas[rule];
      ++count.fired;
      const CostEquation* t = general->model.equation("T_main");
      REQUIRE(t);
      count.general_closes += sym::count_reductions(t->value) == 0;
      std::mt19937 points(static_cast<unsigned>(seed) * 7919u);  // the wider test's points
      for (int k = 0; k < 8; ++k) {
        std::map<std::string, GiNaC::numeric> bind;
        for (const char* p : {"N", "P", "B", "W", "C", "L", "Px", "Py"}) bind[p] = wide::sample(points);
        for (const char* p : {"L", "Px", "Py"})
          if (text.find(std::string("parameter ") + p + "\n") == std::string::npos) bind.erase(p);
        std::ostringstream at;
        for (const auto& [name, v] : bind) at << name << "=" << v << " ";
        edge::Verdict v = edge::compare(general->model, timed->model, "T_main", bind);
        if (v.outcome == edge::Outcome::Mismatch) {
          ++mismatches;
          FAIL_CHECK(at.str() << ": without the lemma, " << v.problem);
          continue;
        }
        AtPoint a = closed_form_at(with_lemmas->model, bind), b = closed_form_at(general->model, bind);
        if (!a.known || !b.known) continue;
        ++count.compared;
        bool same = a.has_value == b.has_value && (!a.has_value || sym::values_equal(a.value, b.value, 1e-12));
        if (!same) {
          ++mismatches;
          FAIL_CHECK(at.str() << ": with the lemma " << (a.has_value ? format_value(a.value) : "no value")
                              << ", without it " << (b.has_value ? format_value(b.value) : "no value"));
        }
      }
    }
  }
  std::ostringstream table;
  for (const auto& [rule, c] : lemmas)
    table << "\n  " << rule << ": fired on " << c.fired << " models, the general path closes " << c.general_closes
          << " of them alone; " << c.compared << " points compared";
  MESSAGE("load-vector lemmas on " << kModels << " wider-generator models:" << table.str());
  CHECK(mismatches == 0);
  // The generator exercises the lemmas that matter (a generator change that stopped reaching
  // them would make this test vacuous).
  CHECK(lemmas.count("vmax_cyclic"));
  CHECK(lemmas.count("vmax_block"));
}
