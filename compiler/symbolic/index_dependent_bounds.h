// Loops whose bound is an integer at some indices of a loop around them and not at others
// (docs/simplifier.md, "Loops whose bound depends on an outer index").
//
// `par (i = 0, N - 1) seq (j = 0, i / 2)` has no value at any N >= 2: at i = 1 the inner
// bound is 1/2. A rule that reads the outer loop at some indices only (a max at its busiest
// index, a cyclic map's busiest class, sums swapped) would see i = N - 1 alone and give a
// value where the model has none. The driver fires no rule at a node that holds such a pair
// of loops, so the node keeps the model's own value (and its "no value").
//
// The answer is built bottom-up and memoized per node: each node keeps the bounds inside it
// that may be such a bound (they have a fraction or a division) with the loops between, and
// a loop decides, for those reading its index, whether the pair is there. A node is looked at
// once however deep it sits, so a deep nest costs in proportion to its size.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "compiler/symbolic/expr_key.h"
#include "compiler/symbolic/facts.h"

namespace pamc::sym {

class IndexDependentBounds {
 public:
  // f: the model's facts (its parameters). An index of a loop around the node asked about
  // is not declared there and counts as an index wherever it is read (the cautious side:
  // k * i / 2 is read as the monomial k * i with the coefficient 1 / 2).
  explicit IndexDependentBounds(const Facts& f) : facts_(f) {}

  // Whether e holds a loop and, inside it, a loop whose bound reads the outer loop's index
  // and is an integer at some of its indices only, whatever the parameters.
  bool holds_pair(const GiNaC::ex& e) { return info(e).holds; }

 private:
  // The loops between a bound's own loop and the node, outermost first, shared by the
  // candidates of the nodes around (a deep nest does not copy its chain at each level).
  struct Link {
    GiNaC::ex loop;
    std::shared_ptr<const Link> inner;
  };
  struct Candidate {
    GiNaC::ex bound;
    std::shared_ptr<const Link> between;
  };
  struct Info {
    bool holds = false;
    std::vector<Candidate> open;  // bounds whose loops around are not all seen yet
  };
  const Info& info(const GiNaC::ex& e);
  bool decides_pair(const reduction& outer, const Candidate& c) const;

  const Facts& facts_;
  // By node address (the node kept alive beside its answer): a lookup costs no comparison
  // of expressions, and a node equal to one seen but built apart is looked at once more.
  struct Entry {
    GiNaC::ex node;
    Info info;
  };
  std::unordered_map<const GiNaC::basic*, Entry> memo_;
};

// Whether the bound b (a polynomial in loop indices) is an integer at some indices of its
// range and not at others whatever the parameters: a coefficient of an index monomial is a
// number that is not an integer (i / 2) or one whose integrality holds at almost no point
// (i / P: "1 / P is an integer" holds at P = 1 only). A coefficient such as N / P is left to
// the rules, which assume "P divides N" and so an integer at every index.
// Any symbol f does not declare counts as an index too.
bool index_dependent_bound(const GiNaC::ex& b, const Facts& f);

}  // namespace pamc::sym
