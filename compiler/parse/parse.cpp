// The parse stage's entry point. Order of work for one file:
//   1. the guards (guards.h, text_is_parseable): UTF-8 without NUL, then bracket nesting
//      at most kMaxBracketNesting deep (byte scans, no recursion), before anything else
//      looks at the text;
//   2. the fast parser (fast_parser.cpp: hand-written, same grammar, same AST) tries the
//      file; it gives up on anything it is not sure of (any syntax error, deep nesting, a
//      rejected literal), reporting nothing;
//   3. only then ANTLR, the reference (antlr_builder.cpp), on a thread with a big stack:
//      it lexes and parses, reports syntax errors, and its Builder makes the AST.
// Both parsers build through build_ast.h (limits, literal check, associative chains).
#include "compiler/parse/parse.h"

#include "compiler/parse/guards.h"
#include "compiler/parse/parsers.h"

namespace pamc {

namespace {
// What a file the guards refuse parses to: no declarations, the file kept.
ast::Module refused(SourceFileP file) {
  ast::Module empty;
  empty.file = std::move(file);
  return empty;
}
}  // namespace

ast::Module parse_module(SourceFileP file, Diagnostics& diags) {
  if (!parse::text_is_parseable(*file, diags)) return refused(std::move(file));
  ast::Module fast;
  if (parse::run_fast_parser(file, fast)) return fast;
  return parse::run_antlr_parser(file, diags);
}

ast::Module parse_module_antlr(SourceFileP file, Diagnostics& diags) {
  if (!parse::text_is_parseable(*file, diags)) return refused(std::move(file));
  return parse::run_antlr_parser(file, diags);
}

}  // namespace pamc
