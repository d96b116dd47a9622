// provably_nonneg and provably_positive, remembered per set of facts (facts.h, ProofMemo).
//
// A proof's answer depends on the expression, strictness, the facts and two pieces of
// thread state: whether a rule is recording which parameters' default signs it used
// (DefaultBoundLog), and whether the prover is inside one of its own case splits (which
// disables a retry). So only outermost questions are remembered (never one asked from
// inside a proof, where a split may be under way), keyed by the expression, strictness and
// recording; the facts are the memo's owner, which forgets on any change. A successful
// proof's log of default signs is kept with it and appended again on a hit, so a rule
// records the same assumptions as without the memo.
//
// A second memo, one per thread, is shared by all facts: a claim the first memo does not
// know is keyed by itself and the facts its proof can read (relevant_facts_key), so the
// same claim asked under facts that differ only elsewhere is proved once. A
// simplifier context per loop level declares one more index: under 16 nested par, the
// same comparisons of a max's arguments were proved again at every level (cubic in the
// depth). What a proof reads: the facts of the symbols of the claim (reduction indices
// included) and, through their symbolic bounds, of the symbols of those bounds, and the
// integer and nonnegative registries (every retry of the prover selects facts by the symbols of what it
// is proving). Refutation also checks that a point satisfies every other fact, but it only
// stops proofs of false claims, which a sound prover does not prove anyway.
#include "compiler/symbolic/facts.h"

#include "compiler/symbolic/expr_key.h"

#include <map>
#include <set>
#include <unordered_map>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

namespace {
struct Answer {
  bool known = false, ok = false;
  std::vector<symbol> used;  // the default signs the proof relied on (when ok)
};
struct Answers {
  Answer a[2][2];  // [strict][recording]
  Answer* operator[](bool strict) { return a[strict]; }
};
}  // namespace

struct Facts::ProofMemo {
  std::unordered_map<ex, Answers, ExprHash, ExprEq> answers;
  // The entry of `answers` (its nodes do not move) of a claim as it was asked: max_dominated
  // asks a_k - a_j again after each argument it drops, and the key (claim_key) costs a
  // division of the whole sum by its content each time.
  std::unordered_map<ex, Answers*, ExprHash, ExprEq> asked;
  // For relevant_facts_key, per declared symbol: its facts as a list, and the symbols of its
  // bounds. Built once per set of facts (this memo is dropped on any change).
  struct SymbolFacts {
    ex entry;
    std::vector<ex> bound_symbols;
  };
  std::map<ex, SymbolFacts, ex_is_less> symbols;
  ex registries;  // the integer expressions and atoms, as a list (empty until first asked)
  int empty = -1;  // numerically_empty(), once asked (-1: not yet)
  // with_indices(): these facts with loop indices declared, by the loops (index, lb, ub).
  std::vector<std::pair<std::vector<std::array<ex, 3>>, Facts>> with_indices;
};

long& ProofWork::left_ref() {
  thread_local long left = -1;  // -1: no budget running
  return left;
}
ProofWork::ProofWork() : owner_(left_ref() < 0) {
  if (owner_) left_ref() = kSteps;
}
ProofWork::~ProofWork() {
  if (!owner_) return;
  if (left_ref() == 0) ++stops();
  left_ref() = -1;
}

namespace {
thread_local int proof_depth = 0;  // provably_* calls under way on this thread
struct Nested {
  Nested() { ++proof_depth; }
  ~Nested() { --proof_depth; }
};

// Alpha-equivalent claims (is_equal) under the same relevant facts have the same answer: a
// proof reads a reduction's index only through the facts, which a declared index brings
// into the key. So the shared memo compares keys with is_equal alone, not ExprEq's second
// walk over index names.
struct SameKey {
  bool operator()(const ex& a, const ex& b) const { return a.is_equal(b); }
};
// The shared memo; emptied when it passes a size that bounds its memory in long-lived
// hosts (the language server, the Python module), as normal_memo.cpp does.
using SharedAnswers = std::unordered_map<ex, Answers, ExprHash, SameKey>;
SharedAnswers& shared_answers() {
  static thread_local SharedAnswers answers;
  return answers;
}
constexpr size_t shared_limit = 8192;  // a 30-level nest of pars holds about 1,500

// The symbols of e, the indices of its reductions included (an index its body does not
// read is still declared by the interval analysis, which may add to what is known of it).
void symbols_of(const ex& e, std::set<ex, ex_is_less>& out) {
  if (is_class<symbol>(e)) {
    out.insert(e);
    return;
  }
  if (is_class<reduction>(e)) out.insert(ex_to<reduction>(e).index_ex());
  for (size_t k = 0; k < e.nops(); ++k) symbols_of(e.op(k), out);
}

lst end_key(const End& x) { return lst{x.inf, x.v, x.open ? 1 : 0}; }

// The claim a memo remembers e under: e divided by its positive rational content, for
// c * X >= 0 (> 0) exactly when X >= 0 (> 0). A max's dominance claims in 10^4 generated
// equations differ mostly in such a factor (8.3 * (M + M ^ 2) * ceil(P / M) - 8.3 * M -
// 8.3 * M ^ 2 beside 3.8 * ...), and each one the prover fails on costs about a million
// instructions. The claim proved is still e itself: the first asked of a family decides.
ex claim_key(const ex& e) {
  if (!is_class<add>(e) && !is_class<mul>(e)) return e;
  try {
    numeric c = e.integer_content();
    if (!c.is_rational() || !c.is_positive() || c.is_equal(numeric(1))) return e;
    return e * c.inverse();
  } catch (...) {  // a coefficient that is not a rational number
    return e;
  }
}

}  // namespace

ex Facts::relevant_facts_key(const ex& e, ProofMemo& memo) const {
  // A declared symbol's facts, from the memo or built into it.
  auto facts_of = [&](const ex& s) -> const ProofMemo::SymbolFacts* {
    auto it = info_.find(s);
    if (it == info_.end()) return nullptr;
    auto [m, fresh] = memo.symbols.try_emplace(s);
    if (fresh) {
      const Info& i = it->second;
      lst lower, upper;
      std::set<ex, ex_is_less> more;
      for (const auto& [b, st] : i.lower) {
        lower.append(lst{b, st ? 1 : 0});
        symbols_of(b, more);
      }
      for (const auto& [b, st] : i.upper) {
        upper.append(lst{b, st ? 1 : 0});
        symbols_of(b, more);
      }
      m->second.entry = lst{s, end_key(i.iv.lo), end_key(i.iv.hi), end_key(i.iv_declared.lo), end_key(i.iv_declared.hi),
                            i.integer ? 1 : 0, i.index ? 1 : 0, i.default_lower ? 1 : 0, lower, upper};
      m->second.bound_symbols.assign(more.begin(), more.end());
    }
    return &m->second;
  };
  std::set<ex, ex_is_less> seen;
  symbols_of(e, seen);
  std::vector<ex> todo(seen.begin(), seen.end());
  while (!todo.empty()) {  // the symbols of the declared symbols' bounds, transitively
    ex s = todo.back();
    todo.pop_back();
    if (const auto* sf = facts_of(s))
      for (const ex& m : sf->bound_symbols)
        if (seen.insert(m).second) todo.push_back(m);
  }
  lst facts;
  for (const ex& s : seen)  // in the order of info_ (ex_is_less)
    if (const auto* sf = facts_of(s)) facts.append(sf->entry);
  if (memo.registries.nops() == 0) {
    lst exprs, atoms, nonneg;
    for (const ex& g : integer_exprs_) exprs.append(g);
    for (const ex& g : integer_atoms_) atoms.append(g);
    for (const SignedAtom& g : signed_atoms_) nonneg.append(lst{g.e, g.nonpos ? 1 : 0});
    memo.registries = lst{exprs, atoms, nonneg};
  }
  // Facts no point meets (an index over 1..0) prove every claim: the cases of a proof that
  // lead there hold vacuously. Such an answer is for these facts only, whatever symbols the
  // claim mentions, so the key says whether the facts are empty.
  if (memo.empty < 0) memo.empty = numerically_empty() ? 1 : 0;
  return lst{e, facts, memo.registries, memo.empty};
}

void Facts::ensure_memo() const {
  if (!memo_) memo_ = std::make_shared<ProofMemo>();
}

Facts Facts::with_indices(const std::vector<std::array<ex, 3>>& loops) const {
  // No loop: these facts themselves (kept in their own memo, they would hold that memo for
  // ever: a cycle of shared pointers).
  if (loops.empty()) return *this;
  ensure_memo();
  auto same = [](const std::vector<std::array<ex, 3>>& a, const std::vector<std::array<ex, 3>>& b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k)
      for (int j = 0; j < 3; ++j)
        if (!a[k][j].is_equal(b[k][j])) return false;
    return true;
  };
  for (const auto& [key, facts] : memo_->with_indices)
    if (same(key, loops)) return facts;  // a copy, sharing the proofs made under it
  Facts in = *this;
  for (const auto& [i, lb, ub] : loops) in.declare_index(ex_to<symbol>(i), lb, ub);
  in.ensure_memo();  // before the copies are made, so that they share one memo
  if (memo_->with_indices.size() < 64) memo_->with_indices.emplace_back(loops, in);
  return in;
}

// A failed proof takes back what it logged: it relied on nothing.
bool Facts::memo_prove(const ex& e, bool strict) const {
  auto& log = DefaultBoundLog::used();
  if (proof_depth > 0) {
    Nested n;
    size_t mark = log.size();
    bool ok = prove(e, strict);
    if (!ok) log.resize(mark, symbol());
    return ok;
  }
  ensure_memo();
  std::shared_ptr<ProofMemo> memo = memo_;  // this proof's facts, whatever happens to memo_
  const bool recording = DefaultBoundLog::recording();
  {
    auto asked = memo->asked.find(e);
    if (asked != memo->asked.end() && (*asked->second)[strict][recording].known) {
      const auto& a = (*asked->second)[strict][recording];
      if (a.ok) log.insert(log.end(), a.used.begin(), a.used.end());
      return a.ok;
    }
  }
  const ex claim = claim_key(e);
  {
    auto it = memo->answers.find(claim);
    if (it != memo->answers.end() && it->second[strict][recording].known) {
      memo->asked.emplace(e, &it->second);
      const auto& a = it->second[strict][recording];
      if (a.ok) log.insert(log.end(), a.used.begin(), a.used.end());
      return a.ok;
    }
  }
  // The proof logs into an empty log of its own, so what it relied on is all of that log
  // (the log drops a repeat of its last entry, which would hide one at the boundary).
  std::vector<symbol> outer;
  outer.swap(log);
  bool ok;
  try {
    Nested n;
    // Through the shared memo: the interval check first (the prover's own first step, which
    // most claims pass), then refutation at points, then the prover.
    ex key = relevant_facts_key(claim, *memo);
    SharedAnswers& shared = shared_answers();
    auto it = shared.find(key);
    if (it != shared.end() && it->second[strict][recording].known) {
      const auto& a = it->second[strict][recording];
      ok = a.ok;
      if (ok) log = a.used;  // the same computation logged the same
    } else {
      ProofWork work;  // this claim's own budget, whoever asked
      Interval r = range(e);
      ok = (strict ? r.positive() : r.nonneg()) || (!refuted(e, strict) && prove(e, strict));
      if (shared.size() >= shared_limit) shared.clear();
      auto& a = shared[key][strict][recording];
      a.known = true;
      a.ok = ok;
      if (ok) a.used = log;
    }
  } catch (...) {
    log.swap(outer);
    throw;
  }
  Answer a;
  a.known = true;
  a.ok = ok;
  if (ok) a.used = log;
  log.swap(outer);
  if (ok) log.insert(log.end(), a.used.begin(), a.used.end());
  Answers& entry = memo->answers[claim];
  entry[strict][recording] = std::move(a);
  memo->asked.emplace(e, &entry);
  return ok;
}

bool Facts::provably_nonneg(const ex& e) const { return memo_prove(e, false); }
bool Facts::provably_positive(const ex& e) const { return memo_prove(e, true); }

}  // namespace pamc::sym
