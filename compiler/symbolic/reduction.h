// Reductions over an integer index: `sum (i = lb, ub) { body }`, `max (...)`, `min (...)`.
//
// Modelled on GiNaC's own `integral`: the node holds a bound variable (the index) and its
// limits. The index is *not* an operand: nops() == 3 (lb, ub, body), so generic GiNaC
// traversals (map, has, subs) see the limits and the body only, and `subs` never
// substitutes the bound index (it is removed from the substitution map, and renamed first
// if a substituted value would capture it). Comparison and hashing are up to renaming of
// the index (alpha-equivalence), so two reductions that differ only in the index name are
// the same expression.
#pragma once

#include "compiler/symbolic/ginac_headers.h"

namespace pamc::sym {

using GiNaC::ex;

enum class ReduceKind { Sum, Max, Min };

class reduction : public GiNaC::basic {
  GINAC_DECLARE_REGISTERED_CLASS(reduction, GiNaC::basic)
public:
  reduction(ReduceKind kind, const GiNaC::symbol& index, const ex& lb, const ex& ub, const ex& body,
            bool empty_is_zero = false);

  size_t nops() const override { return 3; }
  ex op(size_t i) const override;
  ex& let_op(size_t i) override;
  ex subs(const GiNaC::exmap& m, unsigned options = 0) const override;
  ex eval() const override;
  unsigned precedence() const override { return 45; }

  ReduceKind kind() const { return kind_; }
  const GiNaC::symbol& index() const { return GiNaC::ex_to<GiNaC::symbol>(index_); }
  const ex& index_ex() const { return index_; }
  const ex& lb() const { return lb_; }
  const ex& ub() const { return ub_; }
  const ex& body() const { return body_; }
  // A max/min over the branches of a `par`: an empty range has none, takes no time and
  // gives 0 (SPEC 2), where a user's `max (i = ...)` over an empty range has no value.
  bool empty_is_zero() const { return empty_is_zero_; }

protected:
  unsigned calchash() const override;
  void do_print(const GiNaC::print_context& c, unsigned level) const;

private:
  ReduceKind kind_ = ReduceKind::Sum;
  ex index_;  // always a GiNaC::symbol
  ex lb_, ub_, body_;
  bool empty_is_zero_ = false;
};

ex make_reduction(ReduceKind kind, const GiNaC::symbol& index, const ex& lb, const ex& ub, const ex& body,
                  bool empty_is_zero = false);
// The same reduction with another kind, range or body; keeps empty_is_zero.
ex rebuild_reduction(const reduction& r, ReduceKind kind, const ex& lb, const ex& ub, const ex& body);
bool is_reduction(const ex& e);
// How many reductions e holds, nested ones included (0: e is closed).
long count_reductions(const ex& e);
// The reduction inside e; e must satisfy is_reduction.
const reduction& as_reduction(const ex& e);

}  // namespace pamc::sym
