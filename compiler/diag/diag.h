// Diagnostics as data: each has a kind (kinds.def), a location and a message. Stages report
// into a Diagnostics sink; the driver renders them as
//   file:line:col: error: message [Kind]
//     <source line>
//     ^
#pragma once
#include <exception>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/source/source.h"

namespace pamc {

enum class DiagKind {
#define DIAG(kind, what) kind,
#include "compiler/diag/kinds.def"
#undef DIAG
};

const char* diag_kind_name(DiagKind kind);

// A value that cannot be computed at a point (division by zero, a domain error, an empty
// max, ...): the kinds a sweep or fit prefixes with the point or row where it happened.
bool is_value_error(DiagKind kind);

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  DiagKind kind = DiagKind::SyntaxError;
  Loc loc;
  std::string message;
  std::string file_name;  // used when loc has no file (e.g. a file that cannot be opened)
};

class Diagnostics {
 public:
  void error(Loc loc, DiagKind kind, std::string message);
  void warning(Loc loc, DiagKind kind, std::string message);
  void note(Loc loc, std::string message);  // kind Note: it explains the diagnostic before it
  // Records a diagnostic as it is, whatever its severity (e.g. one a stage threw).
  void add(Diagnostic d);
  // An error about a whole file (cannot open, ...), printed as `file: error: ...`.
  void file_error(const std::string& file, DiagKind kind, std::string message);

  // Keeps a source file alive as long as these diagnostics: a Loc points at its file
  // without owning it, and a failed load leaves no Program to own the files.
  void keep_file(SourceFileP file) { files_.push_back(std::move(file)); }

  bool has_errors() const { return error_count_ > 0; }
  std::size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return diags_; }

  // Renders every diagnostic, in the order reported. At most `limit` errors are printed;
  // then a line says how many more there were.
  void render(std::ostream& out, std::size_t limit = 50) const;

 private:
  std::vector<Diagnostic> diags_;
  std::vector<SourceFileP> files_;
  std::size_t error_count_ = 0;
};

// Renders one diagnostic (with source line and caret when it has a location).
void render_diagnostic(std::ostream& out, const Diagnostic& d);

// The one exception pamc throws for an error that ends a run, from any stage (lowering,
// evaluation, simulation, data files) and from the command line: it carries the Diagnostic
// the driver renders (exit 1; exit 2 for kind UsageError). what() is
// "file:line:col: message" (or "file: message", or "message") for callers that only print.
class CompileError : public std::exception {
 public:
  explicit CompileError(Diagnostic d) : diag(std::move(d)) {}
  CompileError(Loc loc, DiagKind kind, std::string message)
      : diag{Severity::Error, kind, loc, std::move(message), {}} {}
  const char* what() const noexcept override;

  Diagnostic diag;

 private:
  mutable std::string what_;
};

// An error about a whole file (cannot read or write it, a row that is wrong, ...).
CompileError file_error(const std::string& file, DiagKind kind, std::string message);
// A command line pamc cannot run (exit 2), printed as `pamc: message`.
CompileError usage_error(std::string message);

}  // namespace pamc
