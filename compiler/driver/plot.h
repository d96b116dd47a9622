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

// "png" or "svg" from the path's extension; "" otherwise.
std::string plot_format(const std::string& path);

// Returns "" on success, else an error message.
std::string draw_plot(const PlotSpec& spec);

}  // namespace pamc
