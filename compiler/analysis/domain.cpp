#include "compiler/analysis/domain.h"

#include <algorithm>

#include "compiler/analysis/explain.h"

namespace pamc {

using GiNaC::numeric;

Domain domain_of(const CostModel& model, const CostParameter& p, const GiNaC::exmap& others) {
  Domain d;
  sym::Interval iv = model.facts.range(p.symbol);
  if (iv.lo.inf == 0) d.lo = iv.lo.v, d.lo_open = iv.lo.open;
  if (iv.hi.inf == 0) d.hi = iv.hi.v, d.hi_open = iv.hi.open;
  d.integer = model.facts.is_integer_symbol(p.symbol);
  for (const CostParameter::Bound& b : p.bounds) {
    auto v = value_at(b.value, others);
    if (!v || !v->is_real()) continue;
    bool strict = b.op == ">" || b.op == "<";
    if (b.op[0] == '>') {
      if (!d.lo || *v > *d.lo || (*v == *d.lo && strict)) d.lo = *v, d.lo_open = strict;
    } else if (!d.hi || *v < *d.hi || (*v == *d.hi && strict)) {
      d.hi = *v, d.hi_open = strict;
    }
  }
  return d;
}

std::vector<numeric> points_beyond(const Domain& dom, const numeric& x, bool above, const numeric& scale) {
  std::vector<numeric> out;
  auto add = [&](const numeric& v) {
    if (dom.contains(v) && (above ? v > x : v < x)) out.push_back(v);
  };
  if (dom.integer) {
    numeric k0 = above ? sym::floor_num(x) + 1 : -sym::floor_num(-x) - 1;
    for (int k = 0; k < 4; ++k) add(k0 + numeric(above ? k : -k));
    for (int j = 2; j < 48; ++j) add(k0 + (above ? 1 : -1) * GiNaC::ex_to<numeric>(GiNaC::pow(numeric(2), j)));
  } else {
    numeric s = scale.is_zero() ? numeric(1) : abs(scale);
    for (int j = -30; j <= 40; j += 3) add(x + (above ? 1 : -1) * s * GiNaC::ex_to<numeric>(GiNaC::pow(numeric(2), j)));
  }
  if (above && dom.hi && !dom.hi_open) add(*dom.hi);
  if (!above && dom.lo && !dom.lo_open) add(*dom.lo);
  std::sort(out.begin(), out.end(), [&](const numeric& a, const numeric& b) { return abs(a - x) < abs(b - x); });
  return out;
}

}  // namespace pamc
