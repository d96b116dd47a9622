// Internal to the simulator: a normalized process body compiled to a graph of PNodes
// (simulate.cpp compiles it), and the budgets checked on that graph before anything runs.
//
// The graph shares what the normalized body shares: `c1 = c0 || c0`, `c2 = c1 || c1`, ...
// is a chain of 25 nodes, not 2^25, so the budgets are computed in the size of the text.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "runtime/sim_expr.h"

namespace pamc::sim {

// Bounds: a loop whose body does nothing; its bounds are still checked (integers) when it
// is reached, as every evaluator checks them.
enum class PK : std::uint8_t { Nothing, Delay, Use, SeqList, ParList, SeqLoop, ParLoop, If, Bounds };

struct PNode {
  PK kind = PK::Nothing;
  Scalar t;                    // Delay, Use: duration
  Scalar res_id, res_mult;     // Use
  std::int32_t res_slot = -1;  // Use: resolved at compile time when both are constant
  std::int32_t lane = -1;      // Delay, Use: the event lane of a constant duration (det), else -1
  Loc res_loc;                 // Use: the fcfs(...) call (in a resource declaration: its name)
  Scalar lb, ub;               // loops, Bounds
  Scalar cond;                 // If
  const PNode* body = nullptr;     // loops
  const PNode* a = nullptr;        // If: then
  const PNode* b = nullptr;        // If: else (null: nothing)
  std::vector<const PNode*> kids;  // SeqList, ParList
  bool body_leaf = false;      // ParLoop: the body needs its Frame only when it starts
  bool body_list = false;      // SeqLoop: the body is a `;` list, run by the loop's own task
  // What a branch that is not run can still fail on (Engine::dry_check): a loop bound
  // (checked in any branch), or any value that is not a constant (checked where the
  // branch's weight is not 0).
  bool has_bounds = false;
  bool has_values = false;
  Loc loc;
};

// Checks, before a run allocates anything, lower bounds of what the body needs: the
// processes it starts at once (against max_processes) and the events of one run (against
// max_events). Throws a located WorkLimit error with the number it would have needed.
void check_budgets(const PNode* body, const SimOptions& opts);

bool is_leaf(const PNode* n);

// The processes that starting a node in an environment certainly holds at once (tasks in
// progress, pending events and queued requests), counted without starting anything: a
// par checks it before it allocates its branches, where the bounds of the loops inside
// are known (16 nested pars over a `seq (j = 1, i)` held 10^7 processes, 550 MB, before
// the limit stopped them one at a time). A lower bound, as check_budgets': what depends on
// a random draw, a bound that cannot be evaluated yet, or the later steps of a sequence
// counts as nothing. A subtree that reads no enclosing loop index is counted once; the
// count stops after a fixed amount of work, so it costs at most what starting the par does.
class HeldCount {
 public:
  double held(const PNode* n, const Frame* env);

 private:
  enum class Fin : std::uint8_t { Done, Pending, Maybe };  // start() returns true / false / either
  struct Count {
    double n = 0;
    Fin fin = Fin::Done;
  };
  Count count(const PNode* n, const Frame* env);
  Count compute(const PNode* n, const Frame* env);
  Count sequence(const std::vector<const PNode*>& kids, const Frame* env);
  Count loop(const PNode* n, const Frame* env);
  int reach(const PNode* n);  // enclosing frames whose values the count reads

  std::unordered_map<const PNode*, Count> memo_;  // nodes of reach 0
  std::unordered_map<const PNode*, int> reach_;
  long long work_ = 0;
};

}  // namespace pamc::sim
