// The Pamela language (SPEC section 2; seed 002 section 2.1).
//
// One expression grammar serves numeric, process and resource expressions: a name or a
// call can be any of the three, so the checker, not the parser, assigns types. Process
// operators sit at the lowest precedence. From loosest to tightest:
//
//   ||   ;   or   and   not   == != < <= > >=   + -   * / mod div   (term)
//
// A term is what the one-term rule of `seq`, `par`, `if` and the reductions takes as body:
//
//   term:  - term  |  seq/par/sum/max/min (i = lb, ub) term  |  if (c) term [else term]
//          |  primary [^ term]
//
// so `-x^2` is -(x^2), `2^-1` is 2^(-1), `2^3^2` is 2^(3^2), and
// `seq (i = 1, N) a ; b` is `{seq (i = 1, N) a} ; b`.
//
// Everything that ANTLR's generated code does lives in compiler/parse/: this file holds
// only the grammar and a nesting guard (a recursion counter) so hostile input cannot
// overflow the stack.
grammar Pamela;

@parser::members {
  // Counts the active frames of the recursive rules (arith, expr, term). Past the limit
  // the guard throws NestingLimit, which compiler/parse/antlr_builder.cpp reports as NestingTooDeep.
  struct NestingLimit { antlr4::Token* token; };
  static constexpr int kMaxNesting = 5000;
  int nesting_depth = 0;
  struct DepthGuard {
    int& depth;
    DepthGuard(int& d, antlr4::Parser* p) : depth(d) {
      if (++depth > kMaxNesting) { --depth; throw NestingLimit{p->getCurrentToken()}; }
    }
    ~DepthGuard() { --depth; }
  };
}

module : item* EOF ;

item
  : IMPORT STRING                                                  # ImportItem
  | declType PARAMETER name=ID formals? ('=' dflt=arith)? bound*    # ParamDecl
  | declType name=ID formals? '=' body=expr                        # EqDecl
  | REGION name=ID '{' counter+ '}'                                # RegionItem
  ;

// An MA region (seed 000: a ma_xxx_start/stop pair) and its workload counters, e.g.
//   region tzetar { numeric vector_flops = size^2 * (size - 1) * 16  numeric mv = 3 }
// Each counter is a numeric equation named REGION.COUNTER (compiler/check checks the names).
counter : NUMERIC name=ID '=' body=expr ;

// A parameter's default and bounds are expressions without comparisons or process
// operators, so `numeric parameter N = 1000 >= 1` is the default 1000 with the bound >= 1.
// (ANTLR cannot call a left-recursive rule at a given precedence, so the rule `arith`
// repeats the arithmetic levels.)
declType : NUMERIC | PROCESS | RESOURCE ;
formals : '(' (ID (',' ID)*)? ')' ;
bound : op=('>=' | '>' | '<=' | '<') value=arith ;

arith
@init { DepthGuard guard_(nesting_depth, this); }
  : term                                          # ArithTerm
  | arith op=('*' | '/' | MOD | DIV) arith        # ArithMul
  | arith op=('+' | '-') arith                    # ArithAdd
  ;

expr
@init { DepthGuard guard_(nesting_depth, this); }
  : term                                          # TermExpr
  | expr op=('*' | '/' | MOD | DIV) expr          # MulExpr
  | expr op=('+' | '-') expr                      # AddExpr
  | expr op=('==' | '!=' | '<' | '<=' | '>' | '>=') expr   # CmpExpr
  | NOT expr                                      # NotExpr
  | expr AND expr                                 # AndExpr
  | expr OR expr                                  # OrExpr
  | expr ';' expr                                 # SeqExpr
  | expr '||' expr                                # ParExpr
  ;

term
@init { DepthGuard guard_(nesting_depth, this); }
  : primary ('^' term)?                                            # PowTerm
  | '-' term                                                       # NegTerm
  | kw=(SEQ | PAR) '(' index=ID '=' lb=expr ',' ub=expr ')' term   # LoopTerm
  | kw=(SUM | MAX | MIN) '(' index=ID '=' lb=expr ',' ub=expr ')' term   # ReduceTerm
  | IF '(' cond=expr ')' then=term (ELSE other=term)?              # IfTerm
  ;

primary
  : NUMBER                                         # NumberPrim
  | fn=(ID | MAX | MIN) '(' args? ')'               # CallPrim
  | ID                                             # NamePrim
  | DELAY '(' args? ')'                            # DelayPrim
  | USE '(' args? ')'                              # UsePrim
  | '(' expr ')'                                   # ParenPrim
  | '{' expr '}'                                   # GroupPrim
  | '[' args? ']'                                  # VectorPrim
  ;

args : expr (',' expr)* ;

// Keywords. `fcfs` and the builtin functions (sqrt, log, ...) are ordinary names.
IMPORT : 'import' ;
NUMERIC : 'numeric' ;
PROCESS : 'process' ;
RESOURCE : 'resource' ;
PARAMETER : 'parameter' ;
REGION : 'region' ;
SEQ : 'seq' ;
PAR : 'par' ;
IF : 'if' ;
ELSE : 'else' ;
DELAY : 'delay' ;
USE : 'use' ;
SUM : 'sum' ;
MAX : 'max' ;
MIN : 'min' ;
MOD : 'mod' ;
DIV : 'div' ;
AND : 'and' ;
OR : 'or' ;
NOT : 'not' ;

ID : [a-zA-Z_] [a-zA-Z_0-9]* ;
// Kept as written; compiler/parse/build_ast.cpp bounds the exponent, later stages read the value exactly.
NUMBER : DIGITS ('.' DIGITS?)? EXPONENT? | '.' DIGITS EXPONENT? ;
fragment DIGITS : [0-9]+ ;
fragment EXPONENT : [eE] [+-]? DIGITS ;
STRING : '"' ~["\r\n]* '"' ;

COMMENT : '%' ~[\r\n]* -> skip ;
WS : [ \t\r\n\f]+ -> skip ;
// Anything else becomes one token the parser rejects, with the character in the message.
ERRCHAR : . ;
