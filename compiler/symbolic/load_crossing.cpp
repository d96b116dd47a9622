// Two one-to-one families that cross (vmax_crossing): see load_families.h.
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/load_families_internal.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules.h"

#include <optional>
#include <set>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;
using detail::Family;
using detail::Loop;
using detail::read_families;

namespace {

// A family read as one-to-one: its position is a * i + b in one loop index i (a != 0 free of
// every loop, b free of i and of the family's other loops), so each position gets the load
// of one i: the weight summed over the other loops, the same for every i.
struct OneToOne {
  Loop own;
  ex a, b;    // position a * i + b
  ex load;    // outer * the weight summed over the other loops (reductions left to the rules)
};

std::optional<OneToOne> one_to_one(const Family& fam, const Facts& f) {
  const ex pos = fam.pos.expand();
  std::optional<size_t> own;
  for (size_t k = 0; k < fam.loops.size(); ++k)
    if (pos.has(fam.loops[k].index)) {
      if (own) return std::nullopt;  // two loops in the position
      own = k;
    }
  if (!own) return std::nullopt;
  const Loop& l = fam.loops[*own];
  const ex& i = l.index;
  if (!pos.is_polynomial(i) || pos.degree(i) != 1) return std::nullopt;
  ex a = pos.coeff(i, 1), b = pos.coeff(i, 0);
  if (a.has(i) || b.has(i) || fam.weight.has(i) || fam.outer.has(i)) return std::nullopt;
  // The other loops do not see i, and the own loop does not see them (its range is fixed).
  ex load = fam.outer * fam.weight;
  for (size_t k = fam.loops.size(); k-- > 0;) {
    if (k == *own) continue;
    const Loop& o = fam.loops[k];
    if (o.lb.has(i) || o.ub.has(i) || l.lb.has(o.index) || l.ub.has(o.index) || a.has(o.index)) return std::nullopt;
    load = make_reduction(ReduceKind::Sum, o.index, o.lb, o.ub, load);
  }
  for (const Loop& o : fam.loops)
    if (b.has(o.index) && !ex(o.index).is_equal(i)) return std::nullopt;
  // a != 0: one i per position (a proved positive or negative).
  if (!f.provably_positive(a) && !f.provably_positive(-a)) return std::nullopt;
  return OneToOne{l, a, b, load};
}

// An index of A and one of B at one position, proved: B's coefficient is +-1, so B's index
// at A's position of i* is j* = (a i* + b - d) / c; i* is tried at A's range ends and at the
// symbols of the two positions that are loop indices around the vector (a row k broadcast
// from column k meets column k's broadcast at (k, k)).
bool cross(const OneToOne& A, const OneToOne& B, const Facts& f) {
  if (!B.a.is_equal(1) && !B.a.is_equal(-1)) return false;
  exvector tries{A.own.lb, A.own.ub};
  std::set<ex, ex_is_less> seen;
  for (const ex& x : {A.b, B.b})
    for (const_preorder_iterator it = x.preorder_begin(); it != x.preorder_end(); ++it)
      if (is_class<symbol>(*it) && f.mentions_index(*it) && seen.insert(*it).second) tries.push_back(*it);
  for (const ex& is : tries) {
    ex js = ((A.a * is + A.b - B.b) * B.a).expand();  // B.a = +-1 is its own inverse
    if (f.provably_nonneg(is - A.own.lb) && f.provably_nonneg(A.own.ub - is) && f.provably_integer(is) &&
        f.provably_nonneg(js - B.own.lb) && f.provably_nonneg(B.own.ub - js) && f.provably_integer(js))
      return true;
  }
  return false;
}

}  // namespace

// max(A + B) for two families that are each one-to-one (one_to_one: position a * i + b, one
// i per position, load L_A the same at every position it reaches) and that share a position
// (cross: proved at a witness): that position carries L_A + L_B, every other at most one of
// the two, so with L_A, L_B >= 0 (weights proved >= 0) the max is L_A + L_B. A row broadcast
// and a column broadcast on a Q x Q grid (SUMMA: nic(i * Q + k) and nic(k * Q + j)) meet at
// the diagonal processor of step k. Exact; the loads' sums are left to the sum rules.
std::optional<ex> rule_vmax_crossing(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(e.op(0), loops, 1, 1, fams) || fams.size() != 2) return std::nullopt;
  if (!detail::weights_nonneg(fams, f)) return std::nullopt;
  auto A = one_to_one(fams[0], f), B = one_to_one(fams[1], f);
  if (!A || !B) return std::nullopt;
  if (!(cross(*A, *B, f) || cross(*B, *A, f))) return std::nullopt;
  for (const ex& load : {A->load, B->load})
    if (may_fail(load, f)) return std::nullopt;
  return A->load + B->load;
}

}  // namespace pamc::sym
