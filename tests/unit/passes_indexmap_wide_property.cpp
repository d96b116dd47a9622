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

#include <cstdlib>
#include <random>
#include <set>
#include <sstream>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "tests/unit/edge_points.h"

using namespace pamc;

namespace {

class WideModels {
 public:
  explicit WideModels(unsigned seed) : rng_(seed) {}
  std::string family;  // which shape model() drew, for the closure figures

  std::string model() {
    std::ostringstream head, body;
    head << "numeric parameter N\nnumeric parameter P\nnumeric parameter B\nnumeric parameter W\n"
            "numeric parameter C\nnumeric t = 6\n";
    switch (uniform(0, 9)) {
      case 0:  // one parallel loop (start 0 or 1)
      case 1: {
        family = "one par loop";
        std::string lb = pick({"0", "1"});
        body << "process main = par (i = " << lb << ", " << upper() << ") " << use("i", lb, "") << "\n";
        break;
      }
      case 2: {  // iterations of a parallel step; the map may use the step k as an offset
        family = "seq of par";
        std::string lb = pick({"0", "1"});
        body << "process main = seq (k = 1, " << pick({"3", "N", "B"}) << ") par (i = " << lb << ", " << upper()
             << ") " << use("i", lb, "k") << "\n";
        break;
      }
      case 3:  // a shrinking range that starts at the step k (Gaussian elimination, LU)
        family = "shrinking range";
        body << "process main = seq (k = " << pick({"0", "1"}) << ", N" << pick({"", " - 1"}) << ") par (i = k"
             << pick({"", " + 1"}) << ", N) " << use("i", "k", "k") << "\n";
        break;
      case 4: {  // two phases
        family = "two phases";
        std::string lb = pick({"0", "1"});
        body << "process main = { par (i = " << lb << ", " << upper() << ") " << use("i", lb, "") << " ; par (p = 0, P - 1) "
             << use("p", "0", "") << " }\n";
        break;
      }
      case 5:  // owner computes inside a worker loop, beside a shared queue
        family = "worker loop and queue";
        head << "resource queue = fcfs(0, 1)\nresource wcpu(w) = fcfs(w + 1, 1)\n";
        body << "process main = par (w = 0, W - 1) seq (j = " << pick({"0", "1"}) << ", N" << pick({"", " - 1"}) << ") if ("
             << pick({"j mod W == w", "(j + 1) mod W == w", "j mod W == w and j mod 2 == 0"}) << ") { use(queue, "
             << pick({"0.5", "1"}) << ") ; use(wcpu(w), " << pick({"t", "t * (w + 1)", "j", "t / (1 + w mod 2)"}) << ") }\n";
        break;
      case 6:  // two resource families over one 2-D process grid (compute and network)
        family = "2-D grid, two families";
        head << "numeric parameter Px\nnumeric parameter Py\n";
        head << "resource cpu(p) = fcfs(p, 1)\nresource nic(p) = fcfs(Px * Py + p, 1)\n";
        body << "process main = par (i = 0, Px - 1) par (j = 0, Py - 1) { use(cpu(i * Py + j), "
             << pick({"N / (Px * Py)", "1", "i + 1", "N"}) << ") ; use(nic("
             << pick({"i * Py + j", "i * Py + (j + 1) mod Py", "((i + 1) mod Px) * Py + j", "(i * Py + j + 1) mod (Px * Py)"})
             << "), " << pick({"1", "2", "B"}) << ") }\n";
        break;
      case 7:  // a 2-D cyclic map over a square or triangular index space
        family = "2-D cyclic";
        head << "numeric parameter Px\nnumeric parameter Py\n";
        head << "resource cpu(p) = fcfs(p, 1)\n";
        body << "process main = par (i = 0, N - 1) par (j = " << pick({"0, N - 1", "0, i", "i, N - 1"})
             << ") use(cpu(" << pick({"(i mod Px) * Py + j mod Py", "(i mod Px) + Px * (j mod Py)"}) << "), "
             << pick({"1", "t", "j + 1"}) << ")\n";
        break;
      case 8:  // all-to-all, skipping the sender or not
        family = "all-to-all";
        head << "resource cpu(p) = fcfs(p, 1)\nresource link(p) = fcfs(P + p, 1)\n";
        body << "process main = par (p = 0, P - 1) par (q = 0, P - 1) if (" << pick({"p != q", "p != q and p mod 2 == 0", "q mod 2 == 0"})
             << ") use(" << pick({"link(q)", "link(p)", "link((p + q) mod P)"}) << ", " << pick({"N / (P * P)", "1", "q + 1"}) << ")\n";
        break;
      default:  // loops over powers and logs, with guards on them
        family = "power and log bounds";
        head << "numeric parameter L\n";
        head << "resource cpu(p) = fcfs(p, 1)\n";
        switch (uniform(0, 3)) {
          case 0:
            body << "process main = seq (l = 1, ceil(log2(P))) par (p = 0, P - 1) if ("
                 << pick({"p mod 2 ^ l == 0", "p mod 2 ^ l == 0 and p + 2 ^ (l - 1) < P"}) << ") use(cpu(p), t)\n";
            break;
          case 1:
            body << "process main = seq (d = 0, log2(P) - 1) par (p = 0, P - 1) if (p >= 2 ^ d) use(cpu(p), "
                 << pick({"t", "p + 1"}) << ")\n";
            break;
          case 2:
            body << "process main = seq (d = " << pick({"0, L - 1", "1, L"}) << ") par (i = 0, 2 ^ (L - d) - 1) use(cpu("
                 << pick({"i", "i mod P", "2 * i mod P"}) << "), " << pick({"1", "2 ^ d"}) << ")\n";
            break;
          default:
            body << "process main = seq (l = 0, L - 1) par (p = 0, 2 ^ L - 1) if (p mod 2 ^ (l + 1) == 0) use(cpu(p), t)\n";
        }
    }
    std::string h = head.str();
    if (h.find("resource ") == std::string::npos) h += "resource cpu(p) = fcfs(p, 1)\nresource link(p) = fcfs(P + p, 1)\n";
    return h + body.str();
  }

 private:
  int uniform(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng_); }
  std::string pick(std::initializer_list<const char*> xs) {
    auto it = xs.begin();
    std::advance(it, uniform(0, static_cast<int>(xs.size()) - 1));
    return *it;
  }
  std::string upper() { return pick({"N", "N - 1", "P - 1", "2 * N - 1", "N / P", "ceil(N / C) - 1"}); }
  // The resource position of index i (loop start lb; `outer` names an outer index or is empty).
  std::string map(const std::string& i, const std::string& lb, const std::string& outer) {
    switch (uniform(0, 17)) {
      // the old generator's maps
      case 0: return i;
      case 1: return i + " + 1";
      case 2: return lb == "1" ? i + " - 1" : i;
      case 3: return i + " mod P";
      case 4: return "(" + i + " + 1) mod P";
      case 5: return i + " div B";
      case 6: return "(" + i + " div B) mod P";
      case 7: return lb == "1" ? "(" + i + " - 1) * P div N" : i + " * P div N";
      case 8: return "0";
      // strides 2, 3 and -2
      case 9: return "2 * " + i + " mod P";
      case 10: return "(2 * " + i + " + 1) mod P";
      case 11: return "(3 * " + i + " + 1) mod P";
      case 12: return "(P - 2 * " + i + ") mod P";
      case 13: return "3 * " + i;
      // symbolic offsets: an outer index or a parameter
      case 14: return outer.empty() ? i + " + B" : i + " + " + outer;
      case 15: return outer.empty() ? "(" + i + " + B) mod P" : "(" + i + " + " + outer + ") mod P";
      case 16: return outer.empty() ? "(P - 1 - " + i + " mod P)" : "(" + i + " - " + outer + ") mod P";
      default: return "2 * " + i + " div B";
    }
  }
  std::string weight(const std::string& i, bool chunks) {
    if (chunks) return "min(C, N - " + i + " * C)";  // chunks of C, the last one shorter
    switch (uniform(0, 9)) {
      case 0: return "1 + min(" + i + " - 1, W) + min(N - " + i + ", W)";  // banded row
      case 1: return "t / (1 + (" + i + " mod P) mod 2)";                  // two speeds
      case 2: return "t / (2 - (" + i + " mod P) mod 2)";
      case 3: return "max(1, " + i + " - W)";
      case 4: return "(" + i + " mod 2) + 1";
      default: return pick({"1", "2", "0.5"}) + std::string(uniform(0, 3) ? "" : " * " + i);
    }
  }
  std::string use(const std::string& i, const std::string& lb, const std::string& outer) {
    bool chunks = uniform(0, 9) == 0;
    std::string u = "use(cpu(" + map(i, lb, outer) + "), " + weight(i, chunks) + ")";
    switch (uniform(0, 7)) {
      case 0: u = "seq (j = 1, " + i + ") " + u; break;                      // triangular
      case 1: u = "seq (j = " + i + ", N) " + u; break;                      // trapezoidal
      case 2: u = "if (" + i + " mod 2 == 0) " + u; break;                   // predicate
      case 3: u = "{ delay(1) ; " + u + " }"; break;                         // local work
      case 4: u = "{ " + u + " ; use(link((" + i + " + 1) mod P), 1) }"; break;  // halo send
      case 5: u = "if (" + i + " mod W == " + pick({"0", "1"}) + ") " + u; break;
      default: break;
    }
    return u;
  }
  std::mt19937 rng_;
};

// A parameter value: ordinary (0..9) half the time, else negative, zero, fractional or huge.
GiNaC::numeric sample(std::mt19937& rng) {
  if (std::uniform_int_distribution<int>(0, 1)(rng)) return std::uniform_int_distribution<int>(0, 9)(rng);
  return edge::value(rng);
}

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
    else if (std::getenv("PAMC_SHOW_OPEN")) MESSAGE("open:\n" << text << print_cost_model(c->model, false));
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
  // A regression guard on closure (the target is 85%): 583 of 1000 close today.
  CHECK(closed * 100 >= kModels * 58);
  for (int seed : kKnownMismatchSeeds)
    if (seed <= kModels && !known_wrong.count(seed))
      FAIL_CHECK("seed " << seed << " is right at every point now: remove it from kKnownMismatchSeeds");
}
