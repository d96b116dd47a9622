// Reading seed 003's inputs from CSV (formats in docs/projection.md, "Input"): the metrics
// table (one row per program and mode), the targets table (relative runtimes per target),
// optionally a coefficients table (c_ij of eq. 1 and a_i of eq. 2).
#pragma once
#include <string>
#include <vector>

#include "compiler/analysis/projection.h"
#include "compiler/analysis/table.h"

namespace pamc::analysis {

struct ProjectionFiles {
  std::string metrics, targets, coefficients;  // coefficients may be empty
  std::string base_mode;                       // empty: the first mode in the metrics file
};

// Throws CompileError (DataError located at file, row and column) on anything malformed.
// `tables` receives the files read, to keep them alive while a diagnostic is rendered.
ProjectionData read_projection_data(const ProjectionFiles& files, std::vector<Table>& tables);

// The group of a Table 1 metric name (CPI_CMPL_CYC -> 0), or -1.
int table1_group(const std::string& name);

}  // namespace pamc::analysis
