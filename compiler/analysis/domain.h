// Where a parameter of a cost model may lie (for `pamc explain` and `pamc sweep`'s
// crossovers): the facts' interval (>= 0 unless declared otherwise, declared numeric
// bounds, integer where it is a loop bound), with symbolic declared bounds (N >= P) taken
// at a point.
#pragma once
#include <optional>
#include <vector>

#include "compiler/passes/cost_model.h"

namespace pamc {

// An interval (an absent end is infinite), and whether only its integers count.
struct Domain {
  std::optional<GiNaC::numeric> lo, hi;
  bool lo_open = false, hi_open = false, integer = false;
  bool contains(const GiNaC::numeric& x) const {
    if (lo && (lo_open ? x <= *lo : x < *lo)) return false;
    if (hi && (hi_open ? x >= *hi : x > *hi)) return false;
    return true;
  }
  // Above (below) lo (hi) or on it: the crossover may lie on an end of the domain.
  bool contains_closure(const GiNaC::numeric& x) const { return !(lo && x < *lo) && !(hi && x > *hi); }
};

// p's domain with the other parameters at `others` (a bound that mentions one without a
// value there is left out).
Domain domain_of(const CostModel& model, const CostParameter& p, const GiNaC::exmap& others);

// Points of the domain beyond x (above it when `above`), nearest first: the integers next
// to it for an integer parameter, else points at distances scale * 2^k, and the domain's
// end.
std::vector<GiNaC::numeric> points_beyond(const Domain& dom, const GiNaC::numeric& x, bool above,
                                          const GiNaC::numeric& scale);

}  // namespace pamc
