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
#include "compiler/symbolic/facts.h"

#include "compiler/symbolic/expr_key.h"

#include <unordered_map>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

struct Facts::ProofMemo {
  struct Answer {
    bool known = false, ok = false;
    std::vector<symbol> used;  // the default signs the proof relied on (when ok)
  };
  // [strict][recording]
  std::unordered_map<ex, Answer[2][2], ExprHash, ExprEq> answers;
};

namespace {
thread_local int proof_depth = 0;  // provably_* calls under way on this thread
struct Nested {
  Nested() { ++proof_depth; }
  ~Nested() { --proof_depth; }
};
}  // namespace

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
  if (!memo_) memo_ = std::make_shared<ProofMemo>();
  std::shared_ptr<ProofMemo> memo = memo_;  // this proof's facts, whatever happens to memo_
  const bool recording = DefaultBoundLog::recording();
  {
    auto it = memo->answers.find(e);
    if (it != memo->answers.end() && it->second[strict][recording].known) {
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
    // The interval check first (the prover's own first step, which most claims pass), then
    // refutation at points, then the prover.
    Interval r = range(e);
    ok = (strict ? r.positive() : r.nonneg()) || (!refuted(e, strict) && prove(e, strict));
  } catch (...) {
    log.swap(outer);
    throw;
  }
  ProofMemo::Answer a;
  a.known = true;
  a.ok = ok;
  if (ok) a.used = log;
  log.swap(outer);
  if (ok) log.insert(log.end(), a.used.begin(), a.used.end());
  memo->answers[e][strict][recording] = std::move(a);
  return ok;
}

bool Facts::provably_nonneg(const ex& e) const { return memo_prove(e, false); }
bool Facts::provably_positive(const ex& e) const { return memo_prove(e, true); }

}  // namespace pamc::sym
