// n-ary max/min of scalars: a GiNaC class holding an exvector.
//
// Automatic evaluation (eval) does only what is always true and cheap: nested max in max
// (min in min) is flattened, duplicates are dropped, numeric arguments fold into one, and
// max of one argument is that argument. Everything that needs facts (dominated arguments,
// common factors) is a simplifier rule (rules.h).
#pragma once

#include "compiler/symbolic/ginac_headers.h"

#include <optional>

namespace pamc::sym {

using GiNaC::ex;

class extremum : public GiNaC::basic {
  GINAC_DECLARE_REGISTERED_CLASS(extremum, GiNaC::basic)
public:
  extremum(bool is_max, const GiNaC::exvector& args);

  size_t nops() const override { return args_.size(); }
  ex op(size_t i) const override { return args_.at(i); }
  ex& let_op(size_t i) override;
  ex eval() const override;
  unsigned precedence() const override { return 70; }

  bool is_max() const { return is_max_; }
  const GiNaC::exvector& args() const { return args_; }

protected:
  unsigned calchash() const override;
  void do_print(const GiNaC::print_context& c, unsigned level) const;

private:
  bool is_max_ = true;
  GiNaC::exvector args_;
};

ex make_max(const GiNaC::exvector& args);
ex make_min(const GiNaC::exvector& args);
// A product with one max or min in one of its two equal forms, rest * min(a, b) or -rest *
// max(-a, -b), whichever operand order a rule met (extremum.cpp); nullopt when x is
// already in that form.
std::optional<ex> sign_canonical(const ex& x);
bool is_max(const ex& e);
bool is_min(const ex& e);
bool is_extremum(const ex& e);

}  // namespace pamc::sym
