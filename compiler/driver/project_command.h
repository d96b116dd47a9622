// pamc project: seed 003's surrogate projection from hardware-counter CSVs (docs/cli.md,
// "project"; the method is compiler/analysis/projection.h, docs/projection.md).
#pragma once
#include <string>

#include "compiler/analysis/projection.h"
#include "compiler/analysis/projection_input.h"

namespace pamc {

struct ProjectCommand {
  analysis::ProjectionFiles files;
  analysis::GaOptions ga;
  std::string method = "both";  // ga | exact | both
  std::string application;      // only this one (default: every application)
  bool json = false;
  std::string csv;              // also write the projections as CSV to this path
};

int cmd_project(const ProjectCommand& c);

}  // namespace pamc
