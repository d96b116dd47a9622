"""Seeded random Pamela models for the cross-check (tests/crosscheck/run_crosscheck.py): the
Python twin of tests/unit/passes_property.cpp's generator."""
import random


class ModelGenerator:
    """The Python twin of tests/unit/passes_property.cpp's generator."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.next_index = 0
        self.in_f = False
        self.in_work = False

    def u(self, lo, hi):
        return self.rng.randint(lo, hi)

    def pick(self, xs):
        return xs[self.u(0, len(xs) - 1)]

    def var(self, scope):
        if scope and self.u(0, 2) > 0:
            return self.pick(scope)
        return self.pick(["N", "P", "K", "c", "B", "M", "Q"])

    def fresh(self):
        self.next_index += 1
        return "i%d" % self.next_index

    def range_(self, scope):
        k = self.u(0, 9)
        if k == 0: return "1", "N"
        if k == 1: return "0", "K - 1"
        if k == 2: return "1", str(self.u(0, 3))
        if k == 3: return "1", "P"
        if k == 4: return "0", "N - 1"
        if k == 5: return "1", "M"
        if k == 6: return str(self.u(0, 2)), str(self.u(0, 9))
        if k == 7: return ("1", scope[-1]) if scope else ("1", "Q")
        if k == 8: return (scope[-1] + " + 1", "N") if scope else ("0", "Q - 1")
        return (scope[-1], "N") if scope else ("2", "N + 1")

    def predicate(self, i):
        k = self.u(0, 8)
        p = self.pick
        if k == 0: return "(%s mod %s == %s)" % (i, p(["2", "3", "P", "Q"]), p(["0", "1", "2"]))
        if k == 1: return "(%s mod %s != %s)" % (i, p(["2", "3"]), p(["0", "1"]))
        if k == 2: return "(%s <= %s)" % (i, p(["N", "P", "3", "K", "c"]))
        if k == 3: return "(%s < %s)" % (i, p(["N", "M", "2", "c * 2"]))
        if k == 4: return "(%s < %s)" % (p(["N", "P", "2"]), i)
        if k == 5: return "(2 * %s >= %s)" % (i, p(["N", "P", "3"]))
        if k == 6: return "(%s == %s)" % (i, p(["N", "P", "3", "c"]))
        if k == 7: return "(%s != %s)" % (i, p(["N", "2"]))
        return "((%s + 1) mod %s == 1)" % (i, p(["2", "3"]))

    def numeric(self, depth, scope):
        if depth <= 0 or self.u(0, 5) == 0:
            return str(self.u(0, 5)) if self.u(0, 1) else self.var(scope)
        d = depth - 1
        n = lambda: self.numeric(d, scope)
        p = self.pick
        k = self.u(0, 19)
        if k == 0: return n() + " + " + n()
        if k == 1: return n() + " - " + n()
        if k == 2: return "(%s) * (%s)" % (n(), n())
        if k == 3: return "(%s) / %s" % (n(), p(["2", "4", "(P + 1)"]))
        if k == 4: return "(%s) ^ %s" % (n(), p(["2", "3"]))
        if k == 5: return "(%s) mod %s" % (n(), p(["2", "3", "P"]))
        if k == 6: return "(%s) div %s" % (n(), p(["2", "3", "P"]))
        if k == 7: return "(%s %s %s)" % (n(), p(["==", "!=", "<", "<=", ">", ">="]), n())
        if k == 8: return "(%s < 2 %s not %s > 1)" % (n(), p(["and", "or"]), n())
        if k == 9: return "%s(%s, %s)" % ("max" if self.u(0, 1) else "min", n(), n())
        if k in (10, 11):
            lb, ub = self.range_(scope)
            i = self.fresh()
            inner = scope + [i]
            body = self.predicate(i) if self.u(0, 3) == 0 else self.numeric(d, inner)
            if self.u(0, 5) == 0:
                body = self.predicate(i) + " * (" + self.numeric(d, inner) + ")"
            return "%s (%s = %s, %s) { %s }" % (p(["sum", "sum", "max", "min"]), i, lb, ub, body)
        if k == 12: return "(if (%s > 2) (%s) else (%s))" % (n(), n(), n())
        if k == 13: return "%s((%s) / 3)" % (p(["floor", "ceil", "abs"]), n())
        if k == 14: return "sqrt(%s ^ 2 + 1)" % n()
        if k == 15: return "max([%s, %s, 1] * 2)" % (n(), n())
        if k == 16: return n() if self.in_f else "f(%s)" % n()
        if k == 17: return "max((%s) * unitvec(2) + [1, 2])" % n()
        return "%s * %d" % (self.var(scope), self.u(1, 4))

    def resource(self, scope):
        i = scope[-1] if scope else self.pick(["0", "1"])
        k = self.u(0, 6)
        p = self.pick
        if k == 0: return "r0"
        if k == 1: return "r1"
        if k in (2, 3): return "cpu(%s%s mod %s)" % (i, p(["", "", " + 1"]), p(["P", "2", "3", "Q"]))
        if k == 4: return "cpu(%s%s div %s)" % (i, p(["", "", " - 1"]), p(["B", "B", "2", "3"]))
        if k == 5: return "cpu(%s)" % (scope[-2] + " mod P" if len(scope) >= 2 else i + " div B")
        return "cpu(%s)" % i

    def process(self, depth, scope):
        if depth <= 0 or self.u(0, 6) == 0:
            if self.u(0, 1):
                return "delay(%s)" % self.numeric(1, scope)
            return "use(%s, %s)" % (self.resource(scope), self.numeric(1, scope))
        d = depth - 1
        k = self.u(0, 8)
        if k == 0: return "{ %s ; %s }" % (self.process(d, scope), self.process(d, scope))
        if k == 1: return "{ %s || %s }" % (self.process(d, scope), self.process(d, scope))
        if k in (2, 3):
            lb, ub = self.range_(scope)
            i = self.fresh()
            return "%s (%s = %s, %s) %s" % ("seq" if self.u(0, 1) else "par", i, lb, ub, self.process(d, scope + [i]))
        if k == 4:
            return "if (%s) %s else %s" % (self.pick(["0.25", "0.5", "1", "0"]), self.process(d, scope), self.process(d, scope))
        if k == 5:
            if scope and self.u(0, 1):
                return "if %s %s" % (self.predicate(scope[-1]), self.process(d, scope))
            return "if (%s mod 2 == 0) %s" % (self.var(scope), self.process(d, scope))
        if k == 6:
            if self.in_work:
                return "delay(%s)" % self.numeric(1, scope)
            return "work(%s)" % self.numeric(1, scope)
        return "use(%s, %s)" % (self.resource(scope), self.numeric(d, scope))

    def model(self):
        out = ["numeric parameter N", "numeric parameter P >= 1", "numeric parameter K = 3",
               "numeric parameter B >= 1", "numeric parameter M >= P", "numeric parameter Q >= 2 <= 5",
               "numeric c = " + self.pick(["0.5", "2", "1.25", "3"]),
               "resource r0 = fcfs(0, 1)", "resource r1 = fcfs(1, %s)" % self.pick(["1", "2", "3"]),
               "resource cpu(p) = fcfs(p + 2, 1)"]
        self.in_work = True
        out.append("process work(x) = " + self.process(2, ["x"]))
        self.in_work = False
        self.in_f = True
        out.append("numeric f(y) = " + self.numeric(2, ["y"]))
        self.in_f = False
        out.append("process main = " + self.process(3, []))
        out.append("numeric value = " + self.numeric(3, []))
        return "\n".join(out) + "\n"

    def points(self, count):
        pts = []
        for _ in range(count):
            p = {"N": self.u(0, 6), "P": self.u(1, 5), "K": self.u(0, 4), "B": self.u(1, 4), "Q": self.u(2, 5)}
            p["M"] = p["P"] + self.u(0, 3)
            pts.append(p)
        return pts
