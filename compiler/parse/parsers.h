// The two parsers behind parse_module (internal to compiler/parse/), on text that has
// already passed the guards (text_is_parseable, guards.h). parse.h's parse_module_fast and
// parse_module_antlr are these with the guards in front.
#pragma once
#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/source/source.h"

namespace pamc::parse {

// The hand-written parser (fast_parser.cpp): true and the module in `out`, or false when it
// gives up (it reports nothing).
bool run_fast_parser(const SourceFileP& file, ast::Module& out);

// ANTLR and the Builder (antlr_builder.cpp), the reference: reports SyntaxError,
// NestingTooDeep or NumberTooLarge into `diags`; after an error the module holds no
// declarations (but keeps `file`).
ast::Module run_antlr_parser(const SourceFileP& file, Diagnostics& diags);

}  // namespace pamc::parse
