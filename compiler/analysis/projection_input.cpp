// CSV -> ProjectionData (see projection_input.h). Every check names the file, row and
// column of the cell at fault.
#include "compiler/analysis/projection_input.h"

#include <algorithm>
#include <map>

namespace pamc::analysis {

// Seed 003, Table 1 (the two G_6 metrics are both printed m_6,1 there).
int table1_group(const std::string& name) {
  static const std::map<std::string, int> table1 = {
      {"CPI_CMPL_CYC", 0},
      {"CPI_GCT_EMPTY_IC_MISS", 1}, {"CPI_GCT_EMPTY_BR_MPRED", 1}, {"CPI_GCT_EMPTY_OTHER", 1},
      {"CPI_STALL_LSU_ERAT_MISS", 1}, {"CPI_STALL_LSU_REJECT_OTHERS", 1}, {"CPI_STALL_LSU_DCACHE_MISS", 1},
      {"CPI_STALL_LSU_OTHERS", 1}, {"CPI_STALL_FXU_DIV", 1}, {"CPI_STALL_FXU_OTHERS", 1},
      {"CPI_STALL_FPU_DIV", 1},
      {"FPU_FMA_PI", 2}, {"FPU_OTHER_PI", 2}, {"FPU_STF_PI", 2},
      {"DERAT_MISS_RATE", 3}, {"DSLB_MISS_RATE", 3}, {"DTLB_MISS_RATE", 3},
      {"DATA_FROM_L2_PI", 4}, {"DATA_FROM_L3_PI", 4}, {"DATA_FROM_LOCAL_MEM_PI", 4}, {"DATA_FROM_REMOTE_MEM_PI", 4},
      {"MEM_RD_BAND_PI", 5}, {"MEM_WR_BAND_PI", 5},
  };
  auto it = table1.find(name);
  return it == table1.end() ? -1 : it->second;
}

namespace {

// A metric column: a Table 1 name, or G<i>.NAME for a metric of one's own in group i.
int metric_group(const std::string& column) {
  if (int g = table1_group(column); g >= 0) return g;
  if (column.size() > 3 && column[0] == 'G' && column[1] >= '1' && column[1] <= '6' && column[2] == '.')
    return column[1] - '1';
  return -1;
}

const std::vector<std::string> kFixed = {"program", "kind", "mode", "instructions", "cpi", "runtime"};

}  // namespace

ProjectionData read_projection_data(const ProjectionFiles& files, std::vector<Table>& tables) {
  ProjectionData d;
  tables.reserve(tables.size() + 3);  // references into earlier tables stay valid
  tables.emplace_back();
  read_table(files.metrics, tables.back());
  const Table& mt = tables.back();
  const std::size_t c_program = mt.require("program"), c_kind = mt.require("kind"), c_mode = mt.require("mode"),
                    c_instr = mt.require("instructions");
  const int c_cpi = mt.find("cpi"), c_runtime = mt.find("runtime");
  std::vector<std::size_t> metric_cols;
  for (std::size_t c = 0; c < mt.columns.size(); ++c) {
    if (std::find(kFixed.begin(), kFixed.end(), mt.columns[c]) != kFixed.end()) continue;
    int g = metric_group(mt.columns[c]);
    if (g < 0)
      data_error("column '" + mt.columns[c] + "' is neither a seed 003 Table 1 metric nor G<1-6>.NAME (docs/projection.md)",
                 mt.header_loc(c));
    d.metrics.push_back(Metric{mt.columns[c], g, 1.0});
    d.group_present[g] = true;
    metric_cols.push_back(c);
  }
  if (d.metrics.empty()) data_error("no metric columns (seed 003 Table 1 names or G<1-6>.NAME)", Loc{mt.file.get(), mt.header_line, 1});

  // Modes in order of appearance; the base mode first.
  for (const Table::Row& row : mt.rows) {
    const std::string& mode = row.cells[c_mode];
    if (mode.empty()) data_error("empty cell in column 'mode'", mt.where(row, c_mode));
    if (std::find(d.modes.begin(), d.modes.end(), mode) == d.modes.end()) d.modes.push_back(mode);
  }
  if (!files.base_mode.empty()) {
    auto it = std::find(d.modes.begin(), d.modes.end(), files.base_mode);
    if (it == d.modes.end())
      throw CompileError{Diagnostic{Severity::Error, DiagKind::DataError, {},
                                    "--base-mode " + files.base_mode + ": no row has this mode", files.metrics}};
    std::rotate(d.modes.begin(), it, it + 1);
  }

  // Programs: rows grouped by name; each needs one row per mode.
  struct Pending {
    bool app = false;
    Program p;
    std::vector<const Table::Row*> rows;  // by mode
  };
  std::vector<Pending> programs;
  const std::size_t m = d.metrics.size();
  for (const Table::Row& row : mt.rows) {
    const std::string& name = row.cells[c_program];
    if (name.empty()) data_error("empty cell in column 'program'", mt.where(row, c_program));
    const std::string& kind = row.cells[c_kind];
    bool app = kind == "application" || kind == "app";
    if (!app && kind != "benchmark" && kind != "bench")
      data_error("column 'kind': '" + kind + "' is neither 'benchmark' nor 'application'", mt.where(row, c_kind));
    auto it = std::find_if(programs.begin(), programs.end(), [&](const Pending& p) { return p.p.name == name; });
    if (it == programs.end()) {
      programs.push_back(Pending{app, Program{}, std::vector<const Table::Row*>(d.modes.size(), nullptr)});
      it = programs.end() - 1;
      it->p.name = name;
      it->p.values.assign(d.modes.size() * m, 0.0);
    } else if (it->app != app) {
      data_error("program '" + name + "' is a " + (it->app ? "application" : "benchmark") + " in an earlier row",
                 mt.where(row, c_kind));
    }
    std::size_t mode = static_cast<std::size_t>(
        std::find(d.modes.begin(), d.modes.end(), row.cells[c_mode]) - d.modes.begin());
    if (it->rows[mode])
      data_error("program '" + name + "' has a second row for mode '" + d.modes[mode] + "' (first in row " +
                     std::to_string(it->rows[mode]->line) + ")",
                 mt.where(row, c_mode));
    it->rows[mode] = &row;
    double instructions = mt.number(row, c_instr);
    if (!(instructions > 0)) data_error("column 'instructions': the path length must be positive", mt.where(row, c_instr));
    for (std::size_t j = 0; j < m; ++j) {
      double v = mt.number(row, metric_cols[j]);
      if (v < 0) data_error("column '" + d.metrics[j].name + "': a metric cannot be negative", mt.where(row, metric_cols[j]));
      it->p.values[mode * m + j] = v;
    }
    if (mode == 0) {
      it->p.instructions = instructions;
      if (c_cpi >= 0) {
        it->p.cpi = mt.number(row, static_cast<std::size_t>(c_cpi));
        if (!(it->p.cpi > 0)) data_error("column 'cpi' must be positive", mt.where(row, static_cast<std::size_t>(c_cpi)));
      }
      if (c_runtime >= 0 && !row.cells[static_cast<std::size_t>(c_runtime)].empty()) {
        double r = mt.number(row, static_cast<std::size_t>(c_runtime));
        if (!(r > 0)) data_error("column 'runtime' must be positive", mt.where(row, static_cast<std::size_t>(c_runtime)));
        it->p.runtime = r;
      }
    }
  }
  for (Pending& p : programs) {
    for (std::size_t mode = 0; mode < d.modes.size(); ++mode)
      if (!p.rows[mode]) {
        const Table::Row* any = *std::find_if(p.rows.begin(), p.rows.end(), [](const Table::Row* r) { return r; });
        data_error("program '" + p.p.name + "' has no row for mode '" + d.modes[mode] + "'", mt.where(*any, c_program));
      }
    if (c_cpi < 0) {  // no cpi column: the CPI breakdown of G_1 and G_2 in the base mode
      for (std::size_t j = 0; j < m; ++j)
        if (d.metrics[j].group <= 1) p.p.cpi += p.p.values[j];
      if (!(p.p.cpi > 0))
        data_error("program '" + p.p.name + "': no 'cpi' column and no G1/G2 cycles to take it from",
                   mt.where(*p.rows[0], c_program));
    }
    (p.app ? d.applications : d.benchmarks).push_back(std::move(p.p));
  }
  if (d.benchmarks.empty()) data_error("no benchmark rows (kind 'benchmark')", Loc{mt.file.get(), mt.header_line, 1});
  if (d.applications.empty()) data_error("no application rows (kind 'application')", Loc{mt.file.get(), mt.header_line, 1});

  // Coefficients: c_ij by metric name, a_i by group name.
  if (!files.coefficients.empty()) {
    tables.emplace_back();
    read_table(files.coefficients, tables.back());
    const Table& ct = tables.back();
    const std::size_t c_name = ct.require("name"), c_value = ct.require("value");
    for (const Table::Row& row : ct.rows) {
      const std::string& name = row.cells[c_name];
      double v = ct.number(row, c_value);
      if (name.size() == 2 && name[0] == 'G' && name[1] >= '1' && name[1] <= '6') {
        d.group_coefficient[name[1] - '1'] = v;
        continue;
      }
      auto it = std::find_if(d.metrics.begin(), d.metrics.end(), [&](const Metric& x) { return x.name == name; });
      if (it == d.metrics.end())
        data_error("'" + name + "' is neither a metric column of " + files.metrics + " nor a group G1..G6", ct.where(row, c_name));
      it->coefficient = v;
    }
  }

  // Targets: a 'program' column, then one column per target of runtime ratios.
  tables.emplace_back();
  read_table(files.targets, tables.back());
  const Table& tt = tables.back();
  const std::size_t t_program = tt.require("program");
  for (std::size_t c = 0; c < tt.columns.size(); ++c)
    if (c != t_program) d.targets.push_back(tt.columns[c]);
  if (d.targets.empty()) data_error("no target columns beside 'program'", Loc{tt.file.get(), tt.header_line, 1});
  d.relative.assign(d.targets.size(), std::vector<double>(d.benchmarks.size(), 0.0));
  d.measured.assign(d.targets.size(), std::vector<std::optional<double>>(d.applications.size()));
  std::vector<const Table::Row*> seen(d.benchmarks.size(), nullptr);
  for (const Table::Row& row : tt.rows) {
    const std::string& name = row.cells[t_program];
    auto b = std::find_if(d.benchmarks.begin(), d.benchmarks.end(), [&](const Program& p) { return p.name == name; });
    auto a = std::find_if(d.applications.begin(), d.applications.end(), [&](const Program& p) { return p.name == name; });
    if (b == d.benchmarks.end() && a == d.applications.end())
      data_error("program '" + name + "' is not in " + files.metrics, tt.where(row, t_program));
    if (b != d.benchmarks.end()) {
      std::size_t k = static_cast<std::size_t>(b - d.benchmarks.begin());
      if (seen[k]) data_error("benchmark '" + name + "' has a second row (first in row " + std::to_string(seen[k]->line) + ")", tt.where(row, t_program));
      seen[k] = &row;
    }
    std::size_t t = 0;
    for (std::size_t c = 0; c < tt.columns.size(); ++c) {
      if (c == t_program) continue;
      bool empty = row.cells[c].empty();
      if (empty && a != d.applications.end()) {  // an application's measurement is optional
        ++t;
        continue;
      }
      double v = tt.number(row, c);
      if (!(v > 0)) data_error("column '" + tt.columns[c] + "': a relative runtime must be positive", tt.where(row, c));
      if (b != d.benchmarks.end())
        d.relative[t][static_cast<std::size_t>(b - d.benchmarks.begin())] = v;
      else
        d.measured[t][static_cast<std::size_t>(a - d.applications.begin())] = v;
      ++t;
    }
  }
  for (std::size_t k = 0; k < d.benchmarks.size(); ++k)
    if (!seen[k])
      data_error("benchmark '" + d.benchmarks[k].name + "' of " + files.metrics + " has no row (its relative runtimes)",
                 Loc{tt.file.get(), tt.header_line, 1});
  return d;
}

}  // namespace pamc::analysis
