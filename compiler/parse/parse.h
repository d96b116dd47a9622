// The parse stage: model text -> AST (compiler/ast/ast.h). Only antlr_builder.cpp includes
// ANTLR's headers; the parse tree never leaves it.
//
// Before either parser runs, two cheap scans keep hostile input harmless (guards.h):
//   - the text must be UTF-8 without NUL bytes (InvalidEncoding at the first bad byte);
//   - brackets ( [ { may nest at most kMaxBracketNesting deep (NestingTooDeep at the
//     bracket that goes past it), so the recursive-descent parsers never meet 20,000 braces.
// ANTLR parsing and AST building then run on a thread with a large stack; the parsers also
// count their recursion (prefix chains such as `- - - x`), and an expression whose AST
// would be deeper than kMaxAstDepth levels is rejected (NestingTooDeep), so every later
// stage can recurse over the AST safely.
// Numeric literals are kept as written (Number.text); only a literal with an exponent
// beyond +-10000 or more than 10000 digits is rejected (NumberTooLarge).
// The limits are in build_ast.h. The two parsers and their contract: docs/design.md, "Two
// parsers, one grammar".
// Tests: tests/unit/front_parse.cpp, tests/unit/front_fastparse.cpp, tests/errors/.
#pragma once
#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/source/source.h"

namespace pamc {

// Parses one file. Reports SyntaxError, InvalidEncoding, NestingTooDeep or NumberTooLarge
// into `diags`; after an error the returned module holds no declarations (but keeps `file`).
// Valid input goes through a hand-written recursive-descent parser of the same grammar
// (fast: ANTLR's C++ runtime costs ~250,000 instructions a line); on anything it is not
// sure of it gives up and ANTLR, the reference, parses and reports.
ast::Module parse_module(SourceFileP file, Diagnostics& diags);

// The two parsers behind parse_module, each with the guards in front, for the test that
// keeps them in agreement (tests/unit/front_fastparse.cpp): ANTLR always; the fast parser
// alone, false when it gives up.
ast::Module parse_module_antlr(SourceFileP file, Diagnostics& diags);
bool parse_module_fast(SourceFileP file, ast::Module& out);

}  // namespace pamc
