// Shared by the readers of load vectors (load_families.cpp, load_boxes.cpp): a vector read
// as families of loops over a weight times one position.
#pragma once

#include "compiler/symbolic/facts.h"
#include "compiler/symbolic/rules_internal.h"

#include <optional>
#include <vector>

namespace pamc::sym::detail {

// One family: outer * loops (outermost first) over weight * unitvec(pos). The factors met
// outside every loop stay there (`outer`): they are evaluated as before, whatever the loops.
struct Family {
  std::vector<Loop> loops;
  ex outer, weight, pos;
};

// Reads v, a vector-valued expression, as families; false when some part is not one
// (a scalar added to a vector, a vector literal, a vector inside a max).
bool read_families(const ex& v, std::vector<Loop>& loops, const ex& outer, const ex& weight,
                   std::vector<Family>& out);
// The facts inside a family's loops: each index in its range.
Facts within(const Facts& f, const std::vector<Loop>& loops);
// Every family's weight >= 0 over its own loops (proved): loads, not signed entries.
bool weights_nonneg(const std::vector<Family>& fams, const Facts& f);
// The one family of max(v) when v is a single family with `depth` loops; else nullopt.
std::optional<Family> one_family(const ex& e, size_t depth);

}  // namespace pamc::sym::detail
