// Property test for the load algebra on a wider generator than passes_indexmap_property.cpp
// (which it includes as one family among many): random models written as users write them
// (plain `numeric parameter`, no bounds), with
//   - index maps: identity and offsets, cyclic, block, block-cyclic, block owner (the old
//     generator's), strides 2, 3 and -2 (`2 * i mod P`, `(3 * i + 1) mod P`,
//     `(P - 2 * i) mod P`), symbolic offsets (`i + k` with k an outer index, `(i + B) mod P`),
//     2-D families with offsets (`fcfs(Px * Py + i * Py + j)`), a worker family at
//     `fcfs(w + 1)` beside a shared queue at 0;
//   - starts 0, 1 and k (an outer index);
//   - weights polynomial in the index, min/max of the index (`min(C, N - i * C)` for chunks,
//     `1 + min(i - 1, W) + min(N - i, W)` for banded rows) and residues
//     (`t / (1 + (i mod P) mod 2)`);
//   - guards `j mod W == w`, `p != q`, `p mod 2 == 0`, and loops over powers and logs.
// Each model is evaluated as `pamc eval` does (closed form where its conditions hold, else
// the time-domain model) and as `pamc eval --brute-force` does, at points where every
// parameter may be negative, zero, fractional or huge. A value that differs from brute
// force's, or a value where brute force reports a domain error, is a mismatch: the test
// fails on any. It prints how many models close (T_main with no reduction left) and fails
// below today's figure; the closure target (>= 85%) is not reached yet.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "tests/unit/edge_points.h"
#include "tests/unit/wide_models.h"

using namespace pamc;

namespace {

using wide::sample;
using wide::WideModels;

// The models that give a wrong value somewhere today, by seed: a closed count or sum applied
// where its range is empty (N, B or L negative: eval -18, brute force 0), a value where a
// resource position is negative or fractional (`cpu(i + B)` at B = -1 or 1/2), a vector sum
// whose closed range reaches position -1 (`max(1, p - W)` at W = -3), a max over an empty
// range. Remove a seed once the simplifier is fixed: the test fails on a listed seed that is
// right at every point, and on any mismatch of a seed not listed.
const std::set<int> kKnownMismatchSeeds = {};

}  // namespace

TEST_CASE("property: a wider index-map generator at negative, zero, fractional and huge points (1000 models)") {
  const int kModels = std::getenv("PAMC_WIDE_MODELS") ? std::atoi(std::getenv("PAMC_WIDE_MODELS")) : 1000;
  long compared = 0, no_value = 0, not_compared = 0, closed = 0, mismatches = 0, known = 0;
  std::map<std::string, std::pair<long, long>> by_family;  // closed, total
  std::set<int> known_wrong;  // listed seeds that still give a wrong value
  for (int seed = 1; seed <= kModels; ++seed) {
    WideModels gen(static_cast<unsigned>(seed));
    std::string text = gen.model();
    if (std::getenv("PAMC_SHOW_SEED")) std::fprintf(stderr, "seed %d\n", seed);  // which model a slow run is on
    INFO("seed " << seed << "\n" << text);
    Diagnostics diags, diags_time;
    auto c = compile_text("wide.pam", text, {}, Stage::Simplified, diags);
    auto timed = compile_text("wide.pam", text, {}, Stage::Time, diags_time);
    REQUIRE(c);
    REQUIRE(timed);
    const CostEquation* t = c->model.equation("T_main");
    REQUIRE(t);
    bool is_closed = sym::count_reductions(t->value) == 0;
    by_family[gen.family].first += is_closed;
    ++by_family[gen.family].second;
    if (is_closed) ++closed;
    else if (std::getenv("PAMC_SHOW_OPEN")) MESSAGE("open (" << gen.family << "):\n" << text << print_cost_model(c->model, false));
    std::mt19937 points(static_cast<unsigned>(seed) * 7919u);
    for (int k = 0; k < 8; ++k) {
      std::map<std::string, GiNaC::numeric> bind;
      for (const char* p : {"N", "P", "B", "W", "C", "L", "Px", "Py"}) bind[p] = sample(points);
      for (const char* p : {"L", "Px", "Py"})  // only where the model declares them
        if (text.find(std::string("parameter ") + p + "\n") == std::string::npos) bind.erase(p);
      std::ostringstream at;
      for (const auto& [name, v] : bind) at << name << "=" << v << " ";
      edge::Verdict v = edge::compare(c->model, timed->model, "T_main", bind);
      if (v.outcome == edge::Outcome::NotCompared) ++not_compared;  // too large for brute force
      if (v.outcome == edge::Outcome::NoValueBoth) ++no_value;
      if (v.outcome == edge::Outcome::Compared) ++compared;
      if (v.outcome != edge::Outcome::Mismatch) continue;
      const std::string& problem = v.problem;
      if (kKnownMismatchSeeds.count(seed)) {
        ++known;
        known_wrong.insert(seed);
        if (std::getenv("PAMC_SHOW_KNOWN")) MESSAGE("known: " << at.str() << ": " << problem);
        continue;
      }
      ++mismatches;
      FAIL_CHECK(at.str() << ": " << problem << "\n  closed form: " << sym::to_pamela(t->value));
    }
  }
  MESSAGE("wide index-map models: " << closed << " of " << kModels << " closed (" << (100.0 * closed / kModels)
                                    << "%; target 85%); " << compared << " values compared, " << no_value
                                    << " points without a value on both sides, " << not_compared
                                    << " too large for brute force; " << mismatches << " mismatches, " << known
                                    << " known");
  std::ostringstream families;
  for (const auto& [f, n] : by_family) families << "\n  " << f << ": " << n.first << " of " << n.second;
  MESSAGE("closed by family:" << families.str());
  CHECK(mismatches == 0);
  CHECK(compared > 4000);
  // A regression guard on closure (the target is 85%): 815 of 1000 close today.
  CHECK(closed * 100 >= kModels * 81);
  for (int seed : kKnownMismatchSeeds)
    if (seed <= kModels && !known_wrong.count(seed))
      FAIL_CHECK("seed " << seed << " is right at every point now: remove it from kKnownMismatchSeeds");
}
