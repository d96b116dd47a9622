// Drawing sweep curves with gnuplot (`pamc sweep --plot`): writes a data file and a script
// into a temporary folder, runs `gnuplot` on it, and moves the image into place, so a
// failure never leaves a partial image behind.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace pamc {

struct PlotSeries {
  std::string title;
  std::vector<double> x, y;
};

struct PlotSpec {
  std::string path;   // .png or .svg
  std::string title;  // may contain "\n"
  std::string xlabel, ylabel;
  bool logx = false, logy = false;
  int logx_base = 10;
  std::vector<PlotSeries> series;
  // A second panel below the first (speedup), when non-empty.
  std::string ylabel2;
  std::vector<PlotSeries> series2;
  bool logy2 = false;
  std::vector<std::pair<double, std::string>> markers;  // vertical lines: x, label
};

// Heat maps (`pamc sweep --plot --heatmap`): one panel per target over a grid of two swept
// parameters, cells shaded by log10 of the value and labelled with its order of magnitude,
// as seed 004's Figure 4 shades its forecasts (2 means 1e2 to 1e3 seconds).
struct HeatPanel {
  std::string title;
  std::vector<double> z;  // z[iy * xs.size() + ix]
};

struct HeatSpec {
  std::string path;
  std::string title;
  std::string xlabel, ylabel;
  std::vector<std::string> xs, ys;  // the swept values, as printed
  std::vector<HeatPanel> panels;
};

std::string draw_heatmap(const HeatSpec& spec);

// "png" or "svg" from the path's extension; "" otherwise.
std::string plot_format(const std::string& path);

// Returns "" on success, else an error message.
std::string draw_plot(const PlotSpec& spec);

}  // namespace pamc
