# Makes a generated ANTLR recognizer build its ATN on first use instead of at program
# start. ANTLR's C++ target (4.7) deserializes the lexer's and the parser's ATN in static
# initializers: more than half of a one-shot `pamc eval`'s start-up, paid even when the
# hand-written fast parser reads the model and ANTLR never runs. Here the static
# Initializer object goes, and the constructor makes it a function-local static (built
# once, thread-safe) before it needs the ATN.
#   cmake -DFILE=PamelaLexer.cpp -DCLASS=PamelaLexer -P lazy_init.cmake
file(READ ${FILE} text)
set(static_init "${CLASS}::Initializer ${CLASS}::_init;")
string(FIND "${text}" "${static_init}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "lazy_init: '${static_init}' not found in ${FILE} (another ANTLR version?)")
endif()
string(REPLACE "${static_init}" "// (built on first use: grammar/lazy_init.cmake)" text "${text}")
string(REGEX MATCH "${CLASS}::${CLASS}\\([A-Za-z]+ \\*input\\) : [A-Za-z]+\\(input\\) {\n" ctor "${text}")
if(ctor STREQUAL "")
  message(FATAL_ERROR "lazy_init: the constructor of ${CLASS} not found in ${FILE}")
endif()
string(REPLACE "${ctor}" "${ctor}  static const Initializer once;  // the ATN, on first use\n  (void)once;\n" text "${text}")
file(WRITE ${FILE} "${text}")
