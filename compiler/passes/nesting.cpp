// The limit on loop nesting: see nesting.h.
#include "compiler/passes/nesting.h"
#include "compiler/passes/node_table.h"

#include <string>
#include <unordered_map>

namespace pamc {
namespace {

using ast::Kind;
using ast::NodeP;

bool is_loop(const ast::Node* n) { return n->kind == Kind::Reduce || n->kind == Kind::SeqLoop || n->kind == Kind::ParLoop; }

// Loops nested in each node, the node included, computed once per node of the DAG (an
// explicit stack: the depth of the model is what is being measured, not the C++ stack's).
// Only a node with more than one owner can be reached twice (every node is reached through
// its owners, and a node's kids are walked once, when it is first measured), so only those
// are kept in the table: most nodes of a normalized model belong to one equation, and
// keeping every one was a third of normalizing 10^4 generated equations. `all` keeps every
// node, for loop_at (which follows the deepest kid down from a node).
class Depths {
 public:
  explicit Depths(bool all = false) : all_(all) {}

  int of(const NodeP& root) {
    struct Frame {
      const ast::Node* n;
      bool keep;       // measured into the table
      bool kids_done;
    };
    std::vector<Frame> stack{{root.get(), keep(root), false}};
    std::vector<int> values;  // depths of the nodes measured, kids' above their parent's
    while (!stack.empty()) {
      Frame f = stack.back();
      stack.pop_back();
      if (!f.kids_done) {
        if (f.keep) {
          if (const int* d = depth_.find(f.n)) {
            values.push_back(*d);
            continue;
          }
        }
        stack.push_back({f.n, f.keep, true});
        for (const NodeP& k : f.n->kids)
          if (k) stack.push_back({k.get(), keep(k), false});
        continue;
      }
      int d = 0;
      for (const NodeP& k : f.n->kids)
        if (k) {
          d = std::max(d, values.back());
          values.pop_back();
        }
      d += is_loop(f.n) ? 1 : 0;
      if (f.keep) depth_.insert(f.n, d);
      values.push_back(d);
    }
    return values.back();
  }

  // The loop at nesting level `level` (1: outermost) on a deepest path from n (a Depths that
  // keeps every node, which has measured n).
  const ast::Node* loop_at(const NodeP& n, int level) {
    NodeP at = n;
    for (int seen = 0;;) {
      if (is_loop(at.get()) && ++seen == level) return at.get();
      NodeP deepest;
      for (const NodeP& k : at->kids)
        if (k && (!deepest || measured(k.get()) > measured(deepest.get()))) deepest = k;
      at = deepest;
    }
  }

 private:
  bool keep(const NodeP& n) const { return all_ || n.use_count() > 1; }
  int measured(const ast::Node* n) { return *depth_.find(n); }  // of a node already measured
  bool all_;
  NodeTable<int> depth_;
};

}  // namespace

void check_loop_nesting(const NormalModel& model) {
  Depths depths;
  auto check = [&](const NodeP& body, const std::string& name) {
    if (!body || depths.of(body) <= kMaxLoopNesting) return;
    Depths every(true);
    every.of(body);
    const ast::Node* loop = every.loop_at(body, kMaxLoopNesting + 1);
    throw CompileError{Diagnostic{Severity::Error, DiagKind::NestingTooDeep, loop->loc,
                                  name + ": loops nested more than " + std::to_string(kMaxLoopNesting) +
                                      " deep (counting the loops of the processes it calls); pamc refuses deeper nesting",
                                  {}}};
  };
  for (const NormalParameter& p : model.parameters) check(p.default_value, p.name);
  for (const NormalEquation& e : model.equations) check(e.body, e.name);
}

}  // namespace pamc
