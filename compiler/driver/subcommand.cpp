#include "compiler/driver/subcommand.h"

namespace pamc {

std::string CommandLine::text(const char* name) const {
  return vm.count(name) ? vm[name].as<std::string>() : std::string{};
}

std::vector<std::string> CommandLine::strings(const char* name) const {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

LoadOptions CommandLine::load() const {
  LoadOptions o;
  o.include_dirs = strings("include");
  o.machines = strings("machine");
  return o;
}

std::map<std::string, std::string> CommandLine::bindings() const {
  std::map<std::string, std::string> out;
  for (const std::string& d : strings("define")) {
    auto [name, value] = parse_assignment(d, "-D");
    out[name] = value;  // the last -D for a name wins
  }
  return out;
}

void add_binding_option(po::options_description& d) {
  d.add_options()("define,D", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
                  "bind a parameter: -D NAME=VALUE (repeatable)");
}

std::pair<std::string, std::string> parse_assignment(const std::string& text, const std::string& option) {
  std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw usage_error(option + " " + text + ": expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace pamc
