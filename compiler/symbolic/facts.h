// Facts about symbols and the interval/sign analysis the rules' side conditions rely on.
//
// Parameters are real and >= 0 unless declared otherwise (SPEC 2); declared bounds (numeric,
// like P >= 1, or symbolic, like N >= P) tighten them. Loop indices are declared by the
// simplifier while it works inside a reduction: an integer in [lb, ub].
//
// Proofs are one-sided: every `provably_*` answers "can't prove" with false. The analysis is
// interval arithmetic over the expression tree (vectors are bounded elementwise, including
// their implicit zeros: unitvec(k) lies in [0, 1]), retried after expansion and after
// rewriting a symbol with a symbolic bound (s >= L) as L + t with a fresh t >= 0.
#pragma once

#include "compiler/symbolic/ginac_headers.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pamc::sym {

using GiNaC::ex;

// One end of an interval: a number or an infinity, open or closed.
struct End {
  int inf = 0;  // -1: -infinity, +1: +infinity, 0: the number v
  GiNaC::numeric v;
  bool open = false;
};
struct Interval {
  End lo{-1, 0, true}, hi{+1, 0, true};
  static Interval all() { return {}; }
  static Interval point(const GiNaC::numeric& v) { return {End{0, v, false}, End{0, v, false}}; }
  bool nonneg() const;    // lo >= 0
  bool positive() const;  // lo > 0
  bool nonpos() const;
  bool negative() const;
};

// A budget of work for one claim's proof: nodes whose range is taken, proof steps tried. A
// claim that needs more is left unproved, which every rule reads as "can't prove" (sound:
// the rule then does not fire). Counted, not timed, so the answer is the same on every run.
// The claim's budget starts where a rule asks (Facts::memo_prove); claims asked inside that
// proof share it. Outside a proof nothing is counted.
class ProofWork {
 public:
  static constexpr long kSteps = 50000;
  ProofWork();
  ~ProofWork();
  ProofWork(const ProofWork&) = delete;
  ProofWork& operator=(const ProofWork&) = delete;
  static bool spend(long n = 1) {  // false once the running budget is spent
    long& l = left_ref();
    if (l < 0) return true;
    if (l == 0) return false;
    l = l > n ? l - n : 0;
    return true;
  }
  static long left() { return left_ref(); }
  // Claims whose budget ran out on this thread so far (for the note a compile prints).
  static long& stops() {
    thread_local long n = 0;
    return n;
  }

 private:
  static long& left_ref();
  bool owner_;
};

struct Facts {
  // A parameter: real, default [0, inf).
  void declare(const GiNaC::symbol& s, const std::string& name);
  // A model parameter: real, [0, inf) by the language's default, which is a convenience the
  // model does not imply (the model has a value at N = -3: a loop 1..N is empty). A proof
  // that needs the default lower bound logs the parameter (DefaultBoundLog), so the rule
  // that relied on it records `N >= 0` as an assumption every evaluator checks.
  void declare_parameter(const GiNaC::symbol& s, const std::string& name);
  // A real symbol with no default bound (e.g. a formal parameter of unknown sign).
  void declare_unbounded(const GiNaC::symbol& s, const std::string& name);
  void declare_integer(const GiNaC::symbol& s);
  // An expression known to be an integer (a loop bound such as N / P or 2 * N - 1).
  void declare_integer_expr(const ex& e);
  // A non-polynomial expression known to be an integer (log2(P) as a loop bound).
  void declare_integer_atom(const ex& e) {
    forget_proofs();
    integer_atoms_.push_back(e);
  }
  const std::vector<ex>& integer_atoms() const { return integer_atoms_; }
  // An expression known to be >= 0 under these facts (a rule's weight whose sign is assumed
  // at the ends of its range, nonneg_weight_conds): its range is clamped at 0 where it
  // stands as a node (-y: y's range clamped above at 0). Only for facts that hold where
  // that is so (the weight's own loop).
  void declare_nonneg_atom(const ex& e);
  // A loop index: an integer with lb <= i <= ub.
  void declare_index(const GiNaC::symbol& i, const ex& lb, const ex& ub);
  // A copy of these facts with each loop's index declared in turn (index, lb, ub): made once
  // per set of facts and loops, and the copies share their proofs. The load rules ask for
  // the facts inside the same loops again and again.
  Facts with_indices(const std::vector<std::array<ex, 3>>& loops) const;
  void add_lower(const GiNaC::symbol& s, const ex& bound, bool strict);
  void add_upper(const GiNaC::symbol& s, const ex& bound, bool strict);

  bool provably_nonneg(const ex& e) const;
  bool provably_positive(const ex& e) const;
  bool provably_nonpos(const ex& e) const { return provably_nonneg(-e); }
  bool provably_le(const ex& a, const ex& b) const { return provably_nonneg(b - a); }
  bool provably_integer(const ex& e) const;
  // The interval analysis itself (no retries).
  Interval range(const ex& e) const;
  bool is_declared(const GiNaC::symbol& s) const { return info_.count(s) != 0; }
  // Is s >= 0 known only from the parameter default (declare_parameter), no fact or bound?
  bool sign_is_default(const GiNaC::symbol& s) const {
    auto it = info_.find(s);
    return it != info_.end() && it->second.default_lower;
  }
  bool is_integer_symbol(const GiNaC::symbol& s) const;
  // Calls visit with the exact values of xs at each point where a refutation looks
  // (refute.cpp) and every fact holds, until it returns true; returns whether it did.
  // nullopt where an x has no exact value there; no call when an x holds a reduction. A
  // claim y - x >= 0 with y below x at one point has no proof: a max's arguments are
  // evaluated once for all its pairs.
  bool visit_values(const GiNaC::exvector& xs,
                    const std::function<bool(const std::vector<std::optional<GiNaC::numeric>>&)>& visit) const;
  // Does e mention a loop index declared with declare_index?
  bool mentions_index(const ex& e) const;
  // Does some symbol's numeric range hold no number (i >= 0 and i <= -1)? Then no point
  // meets the facts, and a case of a proof that leads there holds vacuously.
  bool numerically_empty() const;

private:
  struct Info {
    std::string name;
    Interval iv;  // numeric bounds
    std::vector<std::pair<ex, bool>> lower, upper;  // symbolic bounds (bound, strict)
    bool integer = false;
    bool index = false;
    bool default_lower = false;  // iv's lower end 0 is the parameter default, not a fact
    Interval iv_declared = Interval::all();  // iv without that default (declare_parameter)
  };
  Interval range_rec(const ex& e, int depth) const;
  Interval range_of_node(const ex& e, int depth) const;  // range_rec without signed_atoms_
  // The ranges of symbols already computed within one range() call, by symbol and depth:
  // symbolic bounds recurse into the bounds of their symbols, and a chain of loop indices
  // whose bounds share symbols would otherwise be walked once per path (exponential in
  // the nesting). Not copied with the facts.
  struct RangeMemo;
  struct RangeMemoSlot {
    RangeMemo* memo = nullptr;
    RangeMemoSlot() = default;
    RangeMemoSlot(const RangeMemoSlot&) {}
    RangeMemoSlot& operator=(const RangeMemoSlot&) { return *this; }
  };
  mutable RangeMemoSlot range_memo_;
  bool integer_rec(const ex& e, bool registry) const;
  Interval symbol_range(const GiNaC::symbol& s, int depth) const;
  bool prove(const ex& e, bool strict) const { return prove_at(e, strict, 0); }
  // depth: how many max/min have been split into their arguments above this proof.
  bool prove_at(const ex& e, bool strict, int depth) const;
  bool integer_case_split(const ex& x, bool strict) const;
  bool relaxed_rounding(const ex& x, const ex& rounding, bool strict, int depth) const;
  bool monotone_roundings(const ex& x, bool strict, int depth) const;
  bool exponential_of_index(const ex& x, bool strict, int depth) const;
  // Every change to the four members below calls forget_proofs() first.
  std::map<ex, Info, GiNaC::ex_is_less> info_;
  std::vector<ex> integer_exprs_;  // expanded, with integer constants stripped
  std::vector<ex> integer_atoms_;
  struct SignedAtom {
    ex e;
    bool nonpos;  // e <= 0 (else e >= 0)
  };
  std::vector<SignedAtom> signed_atoms_;
  // The proofs already made under exactly these facts (proof_memo.cpp): a rule asks the
  // same question of the same facts many times (every pair of a max's arguments, again
  // after each argument it drops). Copies share it until one of them changes.
  struct ProofMemo;
  mutable std::shared_ptr<ProofMemo> memo_;
  void forget_proofs() { memo_.reset(); }
  void ensure_memo() const;  // proof_memo.cpp
  bool memo_prove(const ex& e, bool strict) const;
  // e with the facts a proof about e can read (proof_memo.cpp): the key of the memo shared by
  // all facts, where a claim asked again under facts that differ elsewhere is found.
  ex relevant_facts_key(const ex& e, ProofMemo& memo) const;
  // refute.cpp: is e >= 0 (e > 0 when strict) false at a point where every fact holds?
  bool refuted(const ex& e, bool strict) const;
  // Calls visit at each candidate point for a claim over `symbols` that every fact holds at,
  // until it returns true; returns whether it did.
  bool visit_points(const std::set<ex, GiNaC::ex_is_less>& symbols,
                    const std::function<bool(const GiNaC::exmap&)>& visit) const;
  bool allows(const GiNaC::exmap& point) const;
};

// Which parameters' default lower bound (>= 0) the proofs since the last mark relied on.
// One log per thread; a proof that fails takes its entries back, so what remains after a
// rule fired is what that rule's successful proofs needed (a safe over-approximation).
struct DefaultBoundLog {
  static std::vector<GiNaC::symbol>& used();
  static bool& recording();
};

// A read of the facts made only to refuse relies on nothing: the default signs it logged
// are taken back when this goes out of scope (by erasing, which makes no symbol: symbols
// number GiNaC's term order, and a new one changed a printed form).
struct LogNothing {
  std::vector<GiNaC::symbol>& log = DefaultBoundLog::used();
  const size_t mark = log.size();
  ~LogNothing() { log.erase(log.begin() + static_cast<std::ptrdiff_t>(mark), log.end()); }
};

// d >= 0 (d > 0 when strict) as bounds on the declared symbols of f that d is linear in
// with a numeric slope c: s >= -rest / c for c > 0 (lower), s <= -rest / c for c < 0. Exact
// consequences: P - 2 >= 0 is P >= 2, N - P > 0 is N > P and P < N.
struct LinearBound {
  GiNaC::symbol s;
  ex bound;
  bool lower, strict;
};
std::vector<LinearBound> linear_bounds(const ex& d, const Facts& f, bool strict);

// Adds to f what the comparison cmp (==, !=, < or <=) being 1 (holds) or 0 says, where it
// is linear in symbols of f with numeric slopes; nothing otherwise.
void comparison_case(Facts& f, const ex& cmp, bool holds);

// Does e divide by something (a power with a negative number as exponent)?
bool has_negative_power(const ex& e);

// Things a closed form relies on that the facts could not prove (e.g. "P >= 1" for a max
// over p = 1..P, "N is an integer"); printed as comments in the output. `nonneg` and
// `integer` hold the same conditions as expressions (each must be >= 0, resp. an
// integer), so tests and tools can check them at concrete points.
struct Assumptions {
  std::set<std::string> items;
  // Facts from the model itself (model_facts.h), printed as one `% from the model:` line;
  // their conditions are in nonneg and integer too, checked like the assumptions.
  std::vector<std::string> from_model;
  std::vector<ex> nonneg;
  std::vector<ex> integer;
};

}  // namespace pamc::sym
