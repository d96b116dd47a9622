// pamc sweep: evaluate over parameter ranges, CSV and plot (docs/cli.md, "sweep").
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/stat.h>

#include "compiler/driver/subcommand.h"
#include "compiler/driver/driver_util.h"
#include "compiler/driver/plot.h"
#include "compiler/analysis/explain.h"
#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "compiler/analysis/sweep.h"

namespace pamc {
namespace {

struct SweepCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;
  std::vector<std::string> sweeps;  // NAME=FIRST:LAST[:STEP|:xFACTOR]
  std::vector<std::string> targets;
  std::string csv;   // empty: stdout
  std::string plot;  // empty: no plot
  bool speedup = false;
  bool timing = false;  // points/s on stderr
  bool heatmap = false;  // --plot as heat maps over two swept parameters (Armstrong and Eigenmann 1997, Figure 4)
};

// Swept values: the shortest text that reads back as the same double (the values are
// correctly rounded from exact decimals, so 0.3 prints as 0.3).
// Whole numbers print in full (10000000, not 1e+07), as `pamc eval` prints them.
inline char* put_shortest(char* p, double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_chars(p, p + 32, static_cast<long long>(v)).ptr;
  return std::to_chars(p, p + 32, v).ptr;
}

// Results: at most 15 significant digits, which hides binary rounding (0.1 * 3 * 1000
// prints 300, as `pamc eval` does) and keeps every digit a double carries reliably. The
// shortest form is tried first: it is much faster and usually short enough.
inline char* put_double(char* p, double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_chars(p, p + 32, static_cast<long long>(v)).ptr;
  char* e = std::to_chars(p, p + 32, v).ptr;
  int digits = 0;
  for (char* q = p; q < e && *q != 'e'; ++q) digits += (*q >= '0' && *q <= '9');
  if (digits <= 15) return e;
  return std::to_chars(p, p + 32, v, std::chars_format::general, 15).ptr;
}

// Output for CSV rows: stdout, or an OutputFile (a temporary renamed into place at the end).
// The CSV goes to a file that appears only when complete (OutputFile), or to stdout, held
// back until the sweep ends or 64 MB have accumulated: an evaluation error then leaves
// nothing on stdout (not even the header), unless the sweep had already printed more than
// 64 MB of rows.
struct CsvSink {
  static constexpr std::size_t kHold = 64u << 20;
  OutputFile file;
  std::FILE* f = nullptr;
  bool to_stdout = false;
  std::string held;
  bool open(const std::string& p) {
    to_stdout = p.empty();
    if (to_stdout) {
      f = stdout;
      return true;
    }
    if (!file.open(p)) return false;
    f = file.stream();
    return true;
  }
  bool write(const char* data, std::size_t n) {
    if (!to_stdout) return std::fwrite(data, 1, n, f) == n;
    held.append(data, n);
    return held.size() < kHold || flush_held();
  }
  bool flush_held() {
    bool ok = std::fwrite(held.data(), 1, held.size(), stdout) == held.size();
    held.clear();
    return ok;
  }
  bool commit() { return to_stdout ? flush_held() && std::fflush(stdout) == 0 : file.commit(); }
};

std::string fixed_text(const std::map<std::string, GiNaC::numeric>& fixed) {
  std::string out;
  for (const auto& [name, v] : fixed) out += (out.empty() ? "" : ", ") + name + " = " + format_number(v);
  return out;
}

}  // namespace

int run_sweep(const SweepCommand& c) {
  using clock = std::chrono::steady_clock;
  std::map<std::string, GiNaC::numeric> fixed;
  if (!parse_bindings(c.bindings, fixed)) return kUsageError;
  std::vector<SweepRange> ranges;
  for (const std::string& s : c.sweeps) {
    SweepRange r;
    std::string error;
    if (!parse_sweep_range(s, r, error)) {
      return report(usage_error("sweep: --sweep " + s + ": " + error));
    }
    for (const SweepRange& q : ranges)
      if (q.name == r.name) {
        return report(usage_error("sweep: " + r.name + " is swept twice"));
      }
    if (fixed.count(r.name)) {
      return report(usage_error("sweep: " + r.name + " is both bound (-D) and swept (--sweep)"));
    }
    ranges.push_back(std::move(r));
  }
  std::size_t points = 1;
  for (const SweepRange& r : ranges) {
    if (points > 1'000'000'000 / r.size()) {
      return report(usage_error("sweep: the grid has more than 10^9 points"));
    }
    points *= r.size();
  }
  const std::size_t kMaxPlotPoints = 2'000'000;
  if (c.heatmap && (c.plot.empty() || ranges.size() != 2 || c.speedup)) {
    return report(usage_error("sweep: --heatmap draws with --plot over exactly two --sweep parameters (this has " +
                              std::to_string(ranges.size()) + (c.plot.empty() ? ", and no --plot" : "") +
                              (c.speedup ? ", and --speedup" : "") + ")"));
  }
  if (!c.plot.empty()) {
    if (plot_format(c.plot).empty()) {
      return report(usage_error("sweep: --plot " + c.plot + ": the file name must end in .png or .svg"));
    }
    if (points > kMaxPlotPoints) {
      return report(usage_error("sweep: --plot draws at most " + std::to_string(kMaxPlotPoints) + " points; this grid has " +
                                std::to_string(points)));
    }
  }

  Diagnostics diags;
  auto comp = compile_file(c.file, c.load, Stage::Simplified, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  const CostModel& model = comp->model;
  try {
    auto t0 = clock::now();
    Sweep sweep(model, fixed, ranges, c.targets);
    for (const auto& [name, why] : sweep.slow_targets())
      report_note({}, "sweep: " + name + " is evaluated exactly at each point (slow): " + why);
    sweep.validate();
    const std::size_t nt = sweep.target_names().size();
    const std::size_t n0 = sweep.ranges()[0].size();
    const std::size_t block = points / n0;  // points per value of the first parameter
    std::vector<double> base;
    if (c.speedup) {
      base.resize(block * nt);
      sweep.evaluate(0, block, base.data());
    }
    std::vector<double> all;
    if (!c.plot.empty()) all.resize(points * nt);

    CsvSink sink;
    if (!sink.open(c.csv)) {
      return report(file_error(c.csv, DiagKind::IOError, "cannot write the output file"));
    }
    std::string header;
    for (const SweepRange& r : sweep.ranges()) header += (header.empty() ? "" : ",") + r.name;
    for (const std::string& t : sweep.target_names()) header += "," + t;
    if (c.speedup)
      for (const std::string& t : sweep.target_names()) header += ",speedup_" + t;
    header += "\n";
    sink.write(header.data(), header.size());

    auto label = [&](std::size_t k, std::size_t i) {
      char b[40];
      return std::string(b, put_shortest(b, sweep.ranges()[k].dvalues[i]));
    };
    const std::size_t kChunk = 1 << 15;
    std::vector<double> vals(kChunk * nt);
    std::vector<char> text;
    double eval_seconds = 0, format_seconds = 0;
    std::vector<std::size_t> idx;
    for (std::size_t begin = 0; begin < points; begin += kChunk) {
      std::size_t end = std::min(points, begin + kChunk);
      auto a = clock::now();
      sweep.evaluate(begin, end, vals.data());
      auto b = clock::now();
      eval_seconds += std::chrono::duration<double>(b - a).count();
      if (!all.empty()) std::copy(vals.begin(), vals.begin() + (end - begin) * nt, all.begin() + begin * nt);
      text.resize((end - begin) * (64 * sweep.ranges().size() + 40 * nt * 2 + 2));
      char* p = text.data();
      sweep.indices(begin, idx);
      for (std::size_t i = begin; i < end; ++i) {
        for (std::size_t k = 0; k < idx.size(); ++k) {
          if (k) *p++ = ',';
          p = put_shortest(p, sweep.ranges()[k].dvalues[idx[k]]);
        }
        const double* row = &vals[(i - begin) * nt];
        for (std::size_t t = 0; t < nt; ++t) {
          *p++ = ',';
          p = put_double(p, row[t]);
        }
        if (c.speedup)
          for (std::size_t t = 0; t < nt; ++t) {
            *p++ = ',';
            p = put_double(p, base[(i % block) * nt + t] / row[t]);
          }
        *p++ = '\n';
        for (std::size_t k = idx.size(); k-- > 0;) {
          if (++idx[k] < sweep.ranges()[k].size()) break;
          idx[k] = 0;
        }
      }
      if (!sink.write(text.data(), static_cast<std::size_t>(p - text.data()))) {
        return report(file_error(c.csv.empty() ? "stdout" : c.csv, DiagKind::IOError, "cannot write the output"));
      }
      format_seconds += std::chrono::duration<double>(clock::now() - b).count();
    }
    if (c.timing) {
      double total = std::chrono::duration<double>(clock::now() - t0).count();
      std::fprintf(stderr,
                   "sweep: %zu points x %zu targets; evaluation %.4f s (%.4g points/s); CSV formatting and "
                   "writing %.4f s; evaluation + CSV %.4g points/s; total with setup %.4f s\n",
                   points, nt, eval_seconds, points / std::max(eval_seconds, 1e-12), format_seconds,
                   points / std::max(eval_seconds + format_seconds, 1e-12), total);
    }

    if (c.heatmap) {
      HeatSpec spec;
      spec.path = c.plot;
      std::string fixed_part = fixed_text(fixed);
      spec.title = std::filesystem::path(c.file).filename().string() + " over " + sweep.ranges()[0].name + " and " +
                   sweep.ranges()[1].name + ": shade and label = order of magnitude" +
                   (fixed_part.empty() ? "" : "  (" + fixed_part + ")");
      spec.xlabel = sweep.ranges()[0].name;
      spec.ylabel = sweep.ranges()[1].name;
      for (std::size_t i = 0; i < n0; ++i) spec.xs.push_back(label(0, i));
      for (std::size_t i = 0; i < block; ++i) spec.ys.push_back(label(1, i));
      for (std::size_t t = 0; t < nt; ++t) {
        HeatPanel panel;
        panel.title = sweep.target_names()[t];
        panel.z.resize(n0 * block);
        for (std::size_t i0 = 0; i0 < n0; ++i0)
          for (std::size_t i1 = 0; i1 < block; ++i1) panel.z[i1 * n0 + i0] = all[(i0 * block + i1) * nt + t];
        spec.panels.push_back(std::move(panel));
      }
      std::string err = draw_heatmap(spec);
      if (!err.empty()) return report(file_error(c.plot, DiagKind::IOError, err));
    } else if (!c.plot.empty()) {
      PlotSpec spec;
      spec.path = c.plot;
      const SweepRange& r0 = sweep.ranges()[0];
      std::string x = r0.name;
      std::string fixed_part = fixed_text(fixed);
      std::string names;
      for (const std::string& t : sweep.target_names()) names += (names.empty() ? "" : ", ") + t;
      std::string stem = std::filesystem::path(c.file).filename().string();
      spec.title = stem + ": " + names + " against " + x + (fixed_part.empty() ? "" : "  (" + fixed_part + ")");
      spec.xlabel = x;
      spec.ylabel = "predicted time " + (nt == 1 ? sweep.target_names()[0] : std::string("T"));
      spec.logx = r0.geometric;
      if (r0.geometric && r0.step == 2) spec.logx_base = 2;
      bool all_positive = std::all_of(all.begin(), all.end(), [](double v) { return v > 0; });
      spec.logy = r0.geometric && all_positive;
      // One curve per target and combination of the other swept parameters.
      for (std::size_t inner = 0; inner < block; ++inner) {
        std::string suffix;
        sweep.indices(inner, idx);
        for (std::size_t k = 1; k < idx.size(); ++k)
          suffix += (suffix.empty() ? "" : ", ") + sweep.ranges()[k].name + " = " + label(k, idx[k]);
        for (std::size_t t = 0; t < nt; ++t) {
          PlotSeries s, sp;
          s.title = (nt > 1 || suffix.empty() ? sweep.target_names()[t] : std::string()) +
                    (suffix.empty() ? "" : (nt > 1 ? ", " : "") + suffix);
          sp.title = s.title;
          for (std::size_t i0 = 0; i0 < n0; ++i0) {
            double v = all[(i0 * block + inner) * nt + t];
            s.x.push_back(r0.dvalues[i0]);
            s.y.push_back(v);
            if (c.speedup) {
              sp.x.push_back(r0.dvalues[i0]);
              sp.y.push_back(all[inner * nt + t] / v);
            }
          }
          spec.series.push_back(std::move(s));
          if (c.speedup) spec.series2.push_back(std::move(sp));
        }
      }
      if (c.speedup) {
        spec.ylabel2 = "speedup T(" + x + " = " + label(0, 0) + ") / T(" + x + ")";
        spec.logy2 = spec.logy;
      }
      // Where the dominant term of a max/min changes (pamc explain), when only one
      // parameter is swept.
      if (sweep.ranges().size() == 1) {
        double lo = std::min(r0.first.to_double(), r0.last.to_double());
        double hi = std::max(r0.first.to_double(), r0.last.to_double());
        for (const std::string& t : sweep.target_names())
          for (const auto& [at, what] : crossovers_in(model, t, fixed, x, lo, hi)) {
            double v = at.to_double();
            if (v > lo && v < hi)  // a root found numerically is a float, an exact one rational
              spec.markers.emplace_back(v, x + " = " + crossover_text(at, !at.is_rational()) + " (" + what + ")");
          }
      }
      std::string err = draw_plot(spec);
      if (!err.empty()) {
        return report(file_error(c.plot, DiagKind::IOError, err));
      }
    }
    if (!sink.commit()) {
      return report(file_error(c.csv.empty() ? "stdout" : c.csv, DiagKind::IOError, "cannot write the output"));
    }
  } catch (const CompileError& e) {
    return report(e);
  }
  return kOk;
}

namespace {

void options(po::options_description& d) {
  add_binding_option(d);
  d.add_options()
      ("sweep", po::value<std::vector<std::string>>()->value_name("NAME=FIRST:LAST[:STEP|:xFACTOR]")->composing(),
       "NAME=FIRST:LAST[:STEP|:xFACTOR]: a linear (step 1 by default) or geometric range; repeat for a grid "
       "(cartesian product, the first --sweep varying slowest)")
      ("target", po::value<std::vector<std::string>>()->value_name("NAME")->composing(), "evaluate NAME (T_main, or a process L meaning T_L); repeatable")
      ("csv", po::value<std::string>()->value_name("PATH"), "write the CSV to PATH instead of stdout")
      ("plot", po::value<std::string>()->value_name("PATH.png|PATH.svg"), "draw time against the first swept parameter into PATH (.png or .svg; needs gnuplot)")
      ("speedup", "add speedup columns T(first)/T(x) to the CSV, and a speedup panel to the plot")
      ("timing", "print evaluation and output throughput (points/s) on stderr")
      ("heatmap", "with --plot and two --sweep: one heat map per target, shaded by order of magnitude");
}

int run(const CommandLine& line) {
  SweepCommand c;
  read_model_options(c, line);
  c.sweeps = line.strings("sweep");
  if (c.sweeps.empty()) throw usage_error("sweep: give at least one --sweep NAME=FIRST:LAST[:STEP|:xFACTOR]");
  c.csv = line.text("csv");
  c.plot = line.text("plot");
  c.speedup = line.flag("speedup");
  c.timing = line.flag("timing");
  c.heatmap = line.flag("heatmap");
  return run_sweep(c);
}

}  // namespace

extern const Subcommand sweep_command{
    "sweep", "evaluate over parameter ranges (CSV, plot)",
    "FILE --sweep NAME=FIRST:LAST[:STEP|:xFACTOR]...",
    options, run};

}  // namespace pamc
