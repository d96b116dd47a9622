// pamc::sym: the symbolic engine. GiNaC extensions for Pamela's cost models (reductions,
// n-ary max/min, unit vectors and Pamela's scalar functions), facts about parameters, the
// closed-form simplifier, the Pamela printer and the reference evaluator.
#pragma once

#include "compiler/symbolic/evaluate.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/facts.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/simplify.h"
