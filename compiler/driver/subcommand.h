// A pamc subcommand is one file (compiler/driver/<name>_command.cpp) that defines a
// Subcommand: its name, its options and its run function, and one row in
// compiler/driver/subcommands.def. main.cpp knows nothing else about it (docs/design.md,
// "Adding a subcommand").
#pragma once
#include <boost/program_options.hpp>

#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/check/check.h"
#include "compiler/diag/diag.h"

namespace pamc {

namespace po = boost::program_options;

// A subcommand's command line, read by boost::program_options.
struct CommandLine {
  std::string command;  // the subcommand's name
  po::variables_map vm;
  std::string file;  // the positional FILE (a model, or a CSV for project and hybrid)

  bool flag(const char* name) const { return vm.count(name) > 0; }
  std::string text(const char* name) const;  // "" when not given
  std::vector<std::string> strings(const char* name) const;  // a repeatable option
  LoadOptions load() const;                                  // -I and --machine
  std::map<std::string, std::string> bindings() const;       // -D NAME=VALUE
};

struct Subcommand {
  const char* name;
  const char* summary;  // its line in `pamc --help`
  // What follows `pamc NAME` in `pamc NAME --help`: the positional FILE and the options the
  // command cannot run without; main.cpp adds every other option of the table in brackets.
  const char* usage;
  // Declares its options beyond the common ones (-h, -I, --machine).
  void (*options)(po::options_description& d);
  // Checks the options (a usage_error() for a bad one) and runs; returns the exit status.
  // A CompileError from a file the command loaded is reported inside the command
  // (report(e)): its location points into that file's text, which is gone once the error
  // has left the command; main's catch is for errors that name no such file.
  int (*run)(const CommandLine& line);
  bool needs_file = true;  // false: the command reads no FILE (lsp serves the documents an editor opens)
};

// What every command that evaluates a model reads the same way: the file, the import
// options and -D bindings; read_model_options adds the --target names.
template <class Command>
void read_model_file(Command& c, const CommandLine& line) {
  c.file = line.file;
  c.load = line.load();
  c.bindings = line.bindings();
}
template <class Command>
void read_model_options(Command& c, const CommandLine& line) {
  read_model_file(c, line);
  c.targets = line.strings("target");
}

// Options several subcommands share.
void add_binding_option(po::options_description& d);  // -D NAME=VALUE

// NAME=VALUE, the one parser for -D and --start; a usage_error() naming `option` otherwise.
std::pair<std::string, std::string> parse_assignment(const std::string& text, const std::string& option);

// An option whose value is one of a fixed set of names (--stage, --emit): one table of
// (value, name) pairs gives the help text, the parsing and the error for a name not in it.
template <class E>
using NameTable = std::initializer_list<std::pair<E, const char*>>;

template <class E>
std::string names_of(NameTable<E> table, const char* separator) {
  std::string out;
  for (const auto& [value, name] : table) out += (out.empty() ? "" : separator) + std::string(name);
  return out;
}

template <class E>
E parse_name(NameTable<E> table, const std::string& text, const std::string& command, const std::string& option) {
  for (const auto& [value, name] : table)
    if (text == name) return value;
  throw usage_error(command + ": unknown --" + option + " '" + text + "' (" + names_of(table, ", ") + ")");
}

}  // namespace pamc
