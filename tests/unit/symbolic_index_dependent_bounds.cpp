// Loop bounds that are integers at some indices of a loop around them only: the simplifier
// leaves such a pair of loops as written (index_dependent_bounds.h), so that no rule that
// reads a loop at its busiest index gives a value where the model has none.
#include <doctest/doctest.h>

#include "compiler/symbolic/index_dependent_bounds.h"
#include "compiler/symbolic/symbolic.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::symbol;

namespace {
struct Model {
  symbol N{"N"}, P{"P"}, i{"i"}, k{"k"}, j{"j"};
  Facts F;  // the model's facts: parameters only, as the simplifier gives them
  Model() {
    for (const symbol& s : {N, P}) F.declare_parameter(s, s.get_name());
    for (const symbol& s : {N, P}) F.declare_integer(s);
    F.add_lower(P, 1, false);
  }
  Facts with_i() const {
    Facts g = F;
    g.declare_index(i, 0, N - 1);
    return g;
  }
  ex sum(const symbol& x, const ex& lo, const ex& hi, const ex& body) const {
    return make_reduction(ReduceKind::Sum, x, lo, hi, body);
  }
};
}  // namespace

TEST_CASE("a bound is an integer at some indices only when an index has a fraction or 1 / P for coefficient") {
  Model m;
  Facts f = m.with_i();
  CHECK(index_dependent_bound(m.i / 2, f));                  // 1/2 at i = 1
  CHECK(index_dependent_bound((m.N - m.i) / 3, f));          // not an integer at two of three i
  CHECK(index_dependent_bound(m.i / m.P, f));                // an integer at every i only at P = 1
  CHECK(index_dependent_bound(m.k * m.i / 2, f));            // k undeclared: an index too, 1/2 at k = i = 1
  // Integer-valued polynomials: an integer at every integer i, whatever their coefficients.
  CHECK_FALSE(index_dependent_bound(m.i * (m.i + 1) / 2, f));
  CHECK_FALSE(index_dependent_bound(m.i * (m.i - 1) * (m.i - 2) / 6 + m.N, f));
  CHECK(index_dependent_bound(m.i * (m.i + 1) / 4, f));      // 1/2 at i = 1
  // The coefficient N / P is an integer where P divides N, at every i alike: left to the rules.
  CHECK_FALSE(index_dependent_bound(m.i * m.N / m.P, f));
  CHECK_FALSE(index_dependent_bound(m.i + m.N / 2, f));      // N / 2 reads no index
}

TEST_CASE("the pair is found wherever it sits, and only where both loops are inside the node") {
  Model m;
  IndexDependentBounds pairs(m.F);
  ex inner = m.sum(m.j, 0, m.i / 2, 1);
  ex outer = m.sum(m.i, 0, m.N - 1, inner);
  CHECK(pairs.holds_pair(outer));
  CHECK(pairs.holds_pair(m.sum(m.k, 1, m.N, 3 * outer)));   // a loop around it holds it too
  CHECK_FALSE(pairs.holds_pair(inner));                      // the inner loop alone: its index i is outside
  CHECK_FALSE(pairs.holds_pair(m.sum(m.i, 0, m.N - 1, m.sum(m.j, 0, m.i * (m.i + 1) / 2, 1))));
  CHECK_FALSE(pairs.holds_pair(m.sum(m.i, 0, m.P - 1, m.sum(m.j, m.i * m.N / m.P, (m.i + 1) * m.N / m.P - 1, 1))));
  // A loop between the two: k's bound reads i through the loop over j.
  ex deep = m.sum(m.i, 1, m.N, m.sum(m.j, 1, m.N, m.sum(m.k, 1, (m.i + m.j) / 2, 1)));
  CHECK(pairs.holds_pair(deep));
}
