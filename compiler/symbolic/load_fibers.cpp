// Families whose fibers are intervals or residue classes (vmax_fibers): see load_families.h.
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/rules_internal.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

namespace {

// One family's share of a position r: its weight times the number of its index points
// that land on r, as a function of r; and the positions where that count may rise.
struct FiberFamily {
  enum class Kind { Point, Interval, Block, Cyclic } kind;
  ex w;         // weight per index point, free of the index, >= 0
  ex lo, hi;    // Interval: the positions; Block, Cyclic: the range of j = s i + e0
  ex k, d;      // Block: j div k + d; Cyclic: j mod k + d
  // Block only: the index points kept are the j with j mod m == c (m divides k: each full
  // block keeps k / m of them); m = 1 keeps all.
  ex m = 1, c = 0;
  // The number of index points at position r (0 for an empty or reversed range).
  ex count(const ex& r) const {
    switch (kind) {
      case Kind::Point: return compare(Cmp::Eq, lo, r);
      case Kind::Interval: return compare(Cmp::Le, lo, r) * compare(Cmp::Le, r, hi);
      case Kind::Block: {
        ex first = k * (r - d);  // the block's first j
        ex x = make_max({lo, first}), y = make_min({hi, first + k - 1});
        if (m.is_equal(1)) return make_max({0, y - x + 1});
        return make_max({0, floor_of((y - c) / m) - floor_of((x - 1 - c) / m)});  // j = c mod m in [x, y]
      }
      case Kind::Cyclic: {
        ex rho = r - d;  // the residue; j = rho mod k in [lo, hi]
        return compare(Cmp::Le, 0, rho) * compare(Cmp::Le, rho, k - 1) *
               make_max({0, floor_of((hi - rho) / k) - floor_of((lo - 1 - rho) / k)});
      }
    }
    return 0;
  }
  // Where the count rises: between two of these (and after the last) it never does.
  exvector rises() const {
    switch (kind) {
      case Kind::Point:
      case Kind::Interval: return {lo};
      case Kind::Block: {
        // The first block (maybe partial) and the second (full). A range that starts at a
        // small whole number c >= 0 has its first block among d .. d + c (k >= 1): those
        // positions, and one more, are read instead of floor(c / k) + d (a superset of
        // candidates: each is still some position's load), and read far shorter.
        if (is_class<numeric>(lo) && ex_to<numeric>(lo).is_nonneg_integer() && ex_to<numeric>(lo) <= 3) {
          exvector out;
          for (long c = 0; c <= ex_to<numeric>(lo).to_long() + 1; ++c) out.push_back(d + c);
          return out;
        }
        ex first = floor_of(lo / k) + d;
        return {first, first + 1};
      }
      case Kind::Cyclic: return {d, d + mod_of(lo, k)};  // residue 0; the range's first residue
    }
    return {};
  }
};

// The family of one (position, weight) term of a sum over i, or nullopt.
std::optional<FiberFamily> read_fiber_family(const ex& pos, const ex& w, const reduction& r, const Facts& f,
                                             std::vector<Cond>& conds) {
  const ex& i = r.index_ex();
  const ex lb = r.lb(), ub = r.ub();
  if (auto lin = linear_in(pos, i)) {
    if (w.has(i)) return std::nullopt;
    if (lin->first == 1) return FiberFamily{FiberFamily::Kind::Interval, w, lb + lin->second, ub + lin->second, 0, 0};
    if (lin->first == -1) return FiberFamily{FiberFamily::Kind::Interval, w, lin->second - ub, lin->second - lb, 0, 0};
    return std::nullopt;
  }
  for (Fn which : {Fn::Div, Fn::Mod}) {
    auto p = mod_div_position(pos, i, which, true);
    if (!p) continue;
    // k a whole number >= 1 (a block of N / P: "P divides N", proved or assumed); e0 whole.
    if (!f.provably_positive(p->k) || !f.provably_integer(p->e0)) return std::nullopt;
    conds.push_back({true, p->k});
    ex jlo = p->s == 1 ? lb + p->e0 : p->e0 - ub;
    ex jhi = p->s == 1 ? ub + p->e0 : p->e0 - lb;
    auto kind = which == Fn::Div ? FiberFamily::Kind::Block : FiberFamily::Kind::Cyclic;
    FiberFamily fam{kind, w, jlo, jhi, p->k, p->d};
    if (w.has(i)) {
      // A block family under a residue filter (i + g) mod m == h whose modulus divides the
      // block size (residue_test), i = h - g (mod m) read as j = s (h - g) + e0 (mod m).
      if (kind != FiberFamily::Kind::Block) return std::nullopt;
      auto sel = residue_selection(w, i, f);
      // The residue a remainder can take (0 <= h <= m - 1, proved): `i mod B == B` holds
      // nowhere. m divides k (proved: an assumption "B / 2 is an integer" would read oddly
      // beside a model that never says so).
      if (!sel || sel->test.none || !sel->test.valid.is_equal(1) || sel->rest.has(i) ||
          !f.provably_nonneg(sel->rest) || !f.provably_integer((p->k / sel->test.k).normal()))
        return std::nullopt;
      fam.w = sel->rest;
      fam.m = sel->test.k;
      fam.c = p->s * (sel->test.r - sel->test.e) + p->e0;
    }
    return fam;
  }
  return std::nullopt;
}

}  // namespace

// Families whose fibers are intervals or residue classes. v = sum_f w_f * sum (i = lb_f,
// ub_f) { unitvec(pos_f(i)) } with pos_f one of s i + b (an interval of positions), (s i +
// e) div k + d (blocks of k), (s i + e) mod k + d (residues), s = +-1, or a single position
// outside any loop; w_f free of i, >= 0 and not failing (proved), except that a block
// family may keep only the i with (i + g) mod m == h (0 <= h <= m - 1 proved, m a proved
// divisor of k: every full block keeps k / m of them, the first and last at most as many;
// each block's first item sent on, `if (i mod B == 0) use(link(i div B - 1), t)`), its
// count then the kept j in the block's overlap. Position r holds
// sum_f w_f c_f(r), c_f(r) the number of i that land on r: an interval's indicator, a
// block's clipped overlap max(0, min(jhi, k (r - d) + k - 1) - max(jlo, k (r - d)) + 1), a
// residue's class count over [jlo, jhi] (j = s i + e). Each c_f is 0 below its first rise
// and never rises between its rise points: an interval rises at its left end only; blocks
// at the first (maybe partial) block and the second (full), the last block holding at most
// k; residues at residue 0 and at the range's first residue (the residues that get one
// item more form one cyclic window starting there). So at a busiest r the last rise point
// l <= r of any family gives at least as much (no family rises in (l, r]), and the max is
// the max over every family's rise points of the summed counts there; each candidate is
// some integer position's load (0 where no family reaches), so none exceeds the max. An
// empty or reversed range counts 0 everywhere (the max(0, ...)), and the zero vector's max,
// 0, is every candidate's. Side conditions: the weights as above; k a positive integer
// (positive proved, integer proved or assumed) and e an integer (proved); lb, ub integers
// (proved or assumed). One to six families (the candidates and their counts grow as the
// square); tried after the rules for one map, whose forms are shorter.
std::optional<ex> rule_vmax_fibers(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0).expand();
  std::vector<FiberFamily> fams;
  std::vector<Cond> conds;
  for (const ex& t : operands_of(v, true)) {
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs) {
      // A term outside the loops (a shared bus at fcfs(1000, 1)): one position.
      if (count_reductions(t) > 0) return std::nullopt;
      auto vt = split_vector(t);
      if (!vt || !vt->scalar.is_zero()) return std::nullopt;
      for (const auto& [pos, c] : vt->terms) {
        if (!f.provably_nonneg(c) || may_fail(c, f)) return std::nullopt;
        fams.push_back({FiberFamily::Kind::Point, c, pos, pos, 0, 0});
      }
      continue;
    }
    const reduction& r = ex_to<reduction>(rs->first);
    const ex& i = r.index_ex();
    if (rs->second.has(i) || r.lb().has(i) || r.ub().has(i)) return std::nullopt;
    auto vt = split_vector(r.body());
    if (!vt || !vt->scalar.is_zero()) return std::nullopt;
    for (const auto& [pos, c] : vt->terms) {
      ex w = rs->second * c;
      if (!w.has(i) && !f.provably_nonneg(w)) return std::nullopt;
      if (may_fail(w, f)) return std::nullopt;
      auto fam = read_fiber_family(pos, w, r, f, conds);
      if (!fam) return std::nullopt;
      fams.push_back(*fam);
    }
    conds.push_back({true, r.lb()});
    conds.push_back({true, r.ub()});
  }
  if (fams.empty() || fams.size() > 6) return std::nullopt;
  if (!require(conds, f, a)) return std::nullopt;
  exvector cands, seen;  // a position several families rise at is read once
  for (const FiberFamily& g : fams)
    for (const ex& r0 : g.rises()) {
      ex r = r0.expand();
      if (std::any_of(seen.begin(), seen.end(), [&](const ex& x) { return x.is_equal(r); })) continue;
      seen.push_back(r);
      ex load = 0;
      for (const FiberFamily& h : fams) load += h.w * h.count(r);
      cands.push_back(decide_all(load, f));
    }
  return make_max(cands);
}

}  // namespace pamc::sym
