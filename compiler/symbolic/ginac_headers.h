// The GiNaC headers pamc uses, instead of <ginac/ginac.h>. Each GiNaC class header adds a
// static registration object (its "unarchiver") to every translation unit that includes it,
// constructed and registered for destruction before main; <ginac/ginac.h> brings 53 of them
// (tensors, Clifford algebra, integration kernels) into each of pamc's files, about 6,000
// instructions of start-up per file (docs/benchmarks.md, "Aspen's own models"). GiNaC's own
// library registers every class once whatever pamc includes.
#pragma once

#include <ginac/add.h>
#include <ginac/constant.h>
#include <ginac/ex.h>
#include <ginac/factor.h>
#include <ginac/fderivative.h>
#include <ginac/function.h>
#include <ginac/inifcns.h>
#include <ginac/lst.h>
#include <ginac/mul.h>
#include <ginac/normal.h>
#include <ginac/numeric.h>
#include <ginac/operators.h>
#include <ginac/power.h>
#include <ginac/relational.h>
#include <ginac/symbol.h>
#include <ginac/wildcard.h>
