// MA traces (seed 000, section 5.2) and their comparison with a model's region counters
// (`pamc validate`, docs/cli.md).
//
// The MA runtime writes one trace file per MPI task; each MA line is colon-separated:
//
//   MA:depth:ma_vec_loop_start:NAME:EXPR:VALUE:EXPR:VALUE:EXPR:VALUE:MV
//       the annotation's symbolic vector load-store, vector flops and AVL expressions,
//       each followed by the runtime's value of it, then the MV score;
//   MA:depth:ma_vec_loop_stop:NAME:loop id:cycles:stalled cycles:vector load-store:
//       vector flops:vector load stride:vector load allocated:vector length (AVL):
//       scalar flops:scalar load-store:data cache misses
//
// The seed's prose lists vector flops before vector load-store in the stop line, but its
// numbers put load-store first (1,123,632 measured against 1,179,360 predicted
// load-stores; 708,816 against 725,760 flops), and the numbers are what the runtime wrote,
// so this reader takes load-store first. Lines that do not start with "MA:" and MA lines of
// other APIs are skipped; a malformed ma_vec_loop_start/stop line is a DataError at its
// file:line:col. A region executed several times is reported by the mean of its calls.
// Tests: tests/cli/run_validate.py.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/passes/cost_model.h"

namespace pamc {

// One region of one trace: the mean of its calls.
struct TraceRegion {
  std::string name;
  std::string loop_id;                            // as written in the first stop line
  int calls = 0;                                  // stop lines
  std::map<std::string, double> measured;         // counter name -> mean over calls
  std::map<std::string, double> annotated;        // from the start lines: the runtime's values
  std::map<std::string, std::string> expression;  // from the first start line: the annotation's text
};

struct Trace {
  std::string path;
  std::vector<TraceRegion> regions;  // in order of first appearance
};

// Reads one trace file; reports IOError or DataError into `diags` (returns nullopt).
std::optional<Trace> read_ma_trace(const std::string& path, Diagnostics& diags);

// One counter of one region: the model's prediction against the trace.
struct CounterCheck {
  std::string counter;
  std::optional<double> predicted;  // the model's value at the -D point
  std::optional<double> measured;   // the hardware counter (mean over calls)
  std::optional<double> annotated;  // the runtime's value of the annotation's expression
  std::optional<double> error_percent;  // 100 (measured - predicted) / predicted
};

struct RegionCheck {
  std::string region;
  bool in_model = false;
  bool in_trace = false;
  int calls = 0;
  std::vector<CounterCheck> counters;  // in ma_counters() order
};

// The model's counters of each region (equations REGION.COUNTER) evaluated at the -D
// point, matched with the trace's regions by name. Throws CompileError (UnboundParameter,
// EvaluationError) from evaluation.
std::vector<RegionCheck> validate_trace(const CostModel& model, const std::map<std::string, GiNaC::numeric>& bindings,
                                        const Trace& trace);

}  // namespace pamc
