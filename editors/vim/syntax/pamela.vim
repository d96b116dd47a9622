" Vim syntax file
" Language:    Pamela performance models (pamc)
" Source:      grammar/Pamela.g4 (keywords), compiler/check/check.cpp (builtin functions)
" Checked by:  tests/editors/check_editors.py (every sample, with vim -es)
if exists("b:current_syntax")
  finish
endif

syn case match

" Keywords, as the grammar's lexer has them.
syn keyword pamelaInclude     import
syn keyword pamelaType        numeric process resource
syn keyword pamelaModifier    parameter
syn keyword pamelaRegion      region
syn keyword pamelaRepeat      seq par
syn keyword pamelaConditional if else
syn keyword pamelaReduction   sum
syn keyword pamelaPrimitive   delay use
syn keyword pamelaWordOp      mod div and or not
" max and min: a reduction before `(INDEX =`, a function otherwise.
syn match   pamelaReduction   "\<\(max\|min\)\>\ze\s*(\s*\h\w*\s*=[^=]"
syn keyword pamelaBuiltin     sqrt log log2 exp ceil floor abs gcd unitvec
syn match   pamelaBuiltin     "\<\(max\|min\)\>\(\s*(\s*\h\w*\s*=[^=]\)\@!"
syn keyword pamelaResource    fcfs

" The name a declaration introduces.
syn match   pamelaDeclared    "\%(\<\%(numeric\|process\|resource\)\s\+\%(parameter\s\+\)\=\)\@<=\h\w*" contains=pamelaModifier
syn match   pamelaRegionName  "\%(\<region\s\+\)\@<=\h\w*"

" Numbers: DIGITS ('.' DIGITS?)? EXPONENT? | '.' DIGITS EXPONENT?, not inside a name.
syn match   pamelaNumber      "\%(\w\|\.\)\@<!\%(\d\+\%(\.\d*\)\=\|\.\d\+\)\%([eE][+-]\=\d\+\)\="

syn match   pamelaOperator    "||\|;\|==\|!=\|<=\|>=\|[<>=+*/^-]"
syn region  pamelaString      start=+"+ end=+"+ end=+$+ oneline
syn match   pamelaComment     "%.*$" contains=pamelaTodo,@Spell
syn keyword pamelaTodo        contained TODO FIXME XXX NOTE

hi def link pamelaInclude     Include
hi def link pamelaType        Type
hi def link pamelaModifier    StorageClass
hi def link pamelaRegion      Structure
hi def link pamelaRepeat      Repeat
hi def link pamelaConditional Conditional
hi def link pamelaReduction   Repeat
hi def link pamelaPrimitive   Statement
hi def link pamelaWordOp      Operator
hi def link pamelaBuiltin     Function
hi def link pamelaResource    Special
hi def link pamelaDeclared    Identifier
hi def link pamelaRegionName  Identifier
hi def link pamelaNumber      Number
hi def link pamelaOperator    Operator
hi def link pamelaString      String
hi def link pamelaComment     Comment
hi def link pamelaTodo        Todo

let b:current_syntax = "pamela"
