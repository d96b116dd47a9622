// Counts printed as a person writes them: see ceil_counts.h.
//
// The cyclic and block rules count the i in 0..N - 1 a position gets as
// floor((N - 1 - r) / P) + 1, which at r = 0 a performance engineer writes ceil(N / P).
#include "compiler/symbolic/ceil_counts.h"

#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

namespace {

// term = c * floor(q) with c a nonzero number: (c, q).
std::optional<std::pair<numeric, ex>> scaled_floor(const ex& term) {
  if (pamela_function(term) == Fn::Floor) return std::make_pair(numeric(1), term.op(0));
  if (!is_exactly_a<mul>(term) || term.nops() != 2) return std::nullopt;
  for (int k = 0; k < 2; ++k)
    if (is_exactly_a<numeric>(term.op(k)) && pamela_function(term.op(1 - k)) == Fn::Floor) {
      const numeric& c = ex_to<numeric>(term.op(k));
      if (!c.is_rational() || c.is_zero()) return std::nullopt;
      return std::make_pair(c, term.op(1 - k).op(0));
    }
  return std::nullopt;
}

// floor(a / m) + 1 as ceil((a + 1) / m), if a is an integer and m an integer >= 1.
std::optional<ex> as_ceil(const ex& q, const Facts& facts) {
  ex a, m;
  if (auto nd = as_quotient(q)) {
    a = nd->first;
    m = nd->second;
  } else {
    return std::nullopt;  // floor(x) + 1 with no divisor: nothing shorter to say
  }
  // Proved from the facts alone: a proof that leans on a parameter's default sign would
  // need an assumption, and a printing step records none.
  auto& log = DefaultBoundLog::used();
  std::vector<symbol> outer;
  outer.swap(log);
  bool& recording = DefaultBoundLog::recording();
  const bool was = recording;
  recording = true;
  bool ok = facts.provably_integer(a) && facts.provably_integer(m) && facts.provably_positive(m) && log.empty();
  recording = was;
  log.swap(outer);
  if (!ok) return std::nullopt;
  return ceil_of((a + 1) / m);
}

using Counts = std::map<ex, int, ex_is_less>;

bool has_ceil_inside(const ex& c) {
  if (pamela_function(c) != Fn::Ceil) return false;
  for (const_preorder_iterator it = c.op(0).preorder_begin(); it != c.op(0).preorder_end(); ++it)
    if (pamela_function(*it) == Fn::Ceil) return true;
  return false;
}

ex in_sum(const ex& s, const Facts& facts, const Counts& floors) {
  // The number of the sum (its constant term), which each rewrite takes c from.
  numeric k = 0;
  for (size_t j = 0; j < s.nops(); ++j)
    if (is_exactly_a<numeric>(s.op(j))) k += ex_to<numeric>(s.op(j));
  if (k.is_zero()) return s;
  for (size_t j = 0; j < s.nops(); ++j) {
    auto cf = scaled_floor(s.op(j));
    if (!cf || cf->first != k) continue;
    // A rounding that stands elsewhere too stays one atom (a polynomial in floor(x) and
    // ceil(x + 1) reads worse than one in floor(x) alone).
    auto n = floors.find(floor_of(cf->second));
    if (n == floors.end() || n->second != 1) continue;
    auto c = as_ceil(cf->second, facts);
    if (!c || has_ceil_inside(*c)) continue;  // never ceil(ceil(
    ex before = s.op(j) + cf->first;
    ex after = cf->first * *c;
    if (to_pamela(after).size() >= to_pamela(before).size()) continue;
    return s - before + after;  // one rewrite per sum: the constant is used up
  }
  return s;
}

// How often each floor stands in e, by a walk over op() (no iterator stack: this runs on
// every printed equation). The bodies of open loops are not read; the rewrite does not
// enter them either.
void count_floors(const ex& e, Counts& floors) {
  if (is_exactly_a<numeric>(e) || is_exactly_a<symbol>(e) || is_a<reduction>(e)) return;
  if (pamela_function(e) == Fn::Floor) ++floors[e];
  for (size_t k = 0; k < e.nops(); ++k) count_floors(e.op(k), floors);
}

struct CeilCounts : map_function {
  const Facts& facts;
  Counts floors;  // how often each floor stands in the whole expression
  explicit CeilCounts(const Facts& f) : facts(f) {}
  ex operator()(const ex& e) override {
    if (is_a<reduction>(e)) return e;  // an open loop's body: its index has no facts here
    ex r = e.map(*this);
    return is_exactly_a<add>(r) ? in_sum(r, facts, floors) : r;
  }
};

}  // namespace

ex ceil_counts(const ex& e, const Facts& facts) {
  CeilCounts f(facts);
  count_floors(e, f.floors);
  bool single = false;  // a floor that stands once: the only kind rewritten
  for (const auto& [x, n] : f.floors) single = single || n == 1;
  if (!single) return e;
  return f(e);
}

}  // namespace pamc::sym
