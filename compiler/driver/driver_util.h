// What every subcommand shares: exit statuses, reporting diagnostics, -D values.
#pragma once
#include <map>
#include <string>

#include <ginac/ginac.h>

#include "compiler/diag/diag.h"

namespace pamc {

constexpr int kOk = 0;          // success
constexpr int kModelError = 1;  // the model (or a value it was given) is wrong
constexpr int kUsageError = 2;  // the command line is wrong

// Renders the diagnostics on stderr; kModelError if any is an error.
int report(const Diagnostics& diags);
int report(const CompileError& e);

// -D NAME=VALUE texts as exact numbers; prints "not a number" for each bad one and
// returns false if there was any.
bool parse_bindings(const std::map<std::string, std::string>& raw, std::map<std::string, GiNaC::numeric>& out);

// Writes `text` to `path` through a temporary file renamed into place, so an error never
// leaves a partial output file behind. False if it could not.
bool write_file_atomically(const std::string& path, const std::string& text);

}  // namespace pamc
