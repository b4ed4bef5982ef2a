"""Unit tests of meshguard-run's ordering (tool/meshguard-run/meshguard_run_order.py):
the lexical guess of who calls whom, and the schedule that re-checks a file
only when an entry it looked up changed."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, sys.argv.pop(1))
import meshguard_run_order as order  # noqa: E402


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def doc(tu, functions=(), lookups=()):
    return {"version": order.SUMMARY_VERSION, "tu": tu,
            "functions": [{"usr": u, "hash": h} for u, h in functions],
            "lookups": [list(p) for p in lookups]}


class Scan(unittest.TestCase):
    def test_definitions_and_calls(self):
        d = tempfile.mkdtemp()
        p = write(d, "a.cpp", r'''
#include "a.h"
#define CALL(x) hidden(x)
namespace outer { namespace inner {
void helper(const at::Tensor &t) { other::sync(t); /* gone(t); */ }
}  // namespace inner
struct Holder { void inlineMethod() { fromMethod(); } };
Holder::Holder(int a) : member(a), next(make(a)) { init(); }
}
namespace a::b { int twice(int x) { if (x) return x; return shared(x); } }
extern "C" { void c_entry() { puts("x(y)"); } }
namespace { void local() {} }
void decl_only(int);
''')
        defs, calls = order.scan(p)
        self.assertEqual(defs, {"outer::inner::helper", "outer::Holder::Holder", "a::b::twice",
                                "c_entry", "local"})
        for c in ("other::sync", "fromMethod", "init", "shared", "puts"):
            self.assertIn(c, calls)
        for c in ("gone", "hidden", "x", "if", "decl_only"):
            self.assertNotIn(c, calls)

    def test_dependencies(self):
        d = tempfile.mkdtemp()
        utils = write(d, "utils.cpp", "namespace u { void sync(int) { all_reduce(); } }\n")
        train = write(d, "train.cpp", "void step() { u::sync(1); }\n")
        own = write(d, "own.cpp", "static void sync(int) {}\nvoid f() { sync(2); }\n")
        wrong = write(d, "wrong.cpp", "void g() { v::sync(3); }\n")
        deps = order.lexical_dependencies([utils, train, own, wrong])
        self.assertEqual(deps[train], {utils})
        self.assertEqual(deps[own], set())     # its own sync
        self.assertEqual(deps[wrong], set())   # another namespace
        self.assertEqual(deps[utils], set())

    def test_database_dependencies(self):
        docs = {"a": doc("a", [("c:@F@f", "1")]),
                "b": doc("b", [], [("c:@F@f", "1"), ("c:@F@lib", "")])}
        self.assertEqual(order.database_dependencies(docs), {"a": set(), "b": {"a"}})


def drain(schedule, outputs):
    """Runs every job one at a time; outputs(path, run) gives its doc."""
    ran = []
    while True:
        p = schedule.next()
        if p is None:
            return ran
        ran.append(p)
        schedule.done(p, outputs(p, schedule.runs[p]))


class Order(unittest.TestCase):
    def test_dependencies_first_no_recheck(self):
        s = order.Schedule(["main", "b", "c"], {"main": {"b"}, "b": {"c"}})
        out = {"c": doc("c", [("h", "H")]),
               "b": doc("b", [("g", "G")], [("h", "H")]),
               "main": doc("main", [], [("g", "G")])}
        self.assertEqual(drain(s, lambda p, n: out[p]), ["c", "b", "main"])
        self.assertEqual(s.unsettled(), [])

    def test_waits_for_running_dependency(self):
        s = order.Schedule(["main", "b"], {"main": {"b"}})
        self.assertEqual(s.next(), "b")
        self.assertIsNone(s.next())  # main waits while b runs
        s.done("b", doc("b", [("g", "G")]))
        self.assertEqual(s.next(), "main")

    def test_wrong_guess_rechecks_only_the_caller(self):
        # No dependency known: main runs first, looks up g in vain, and runs
        # again once b has written g; b does not run again.
        s = order.Schedule(["main", "b"], {})
        def out(p, n):
            if p == "b":
                return doc("b", [("g", "G")])
            return doc("main", [], [("g", "G" if "g" in s.entries else "")])
        self.assertEqual(drain(s, out), ["main", "b", "main"])
        self.assertEqual(s.runs, {"main": 2, "b": 1})
        self.assertEqual(s.again, {"main": "g"})

    def test_unchanged_entry_no_recheck(self):
        prev = {"b": doc("b", [("g", "G")]), "main": doc("main", [], [("g", "G")])}
        s = order.Schedule(["main", "b"], {}, prev)
        self.assertEqual(drain(s, lambda p, n: prev[p]), ["main", "b"])

    def test_removed_entry_rechecks(self):
        prev = {"b": doc("b", [("g", "G")]), "main": doc("main", [], [("g", "G")])}
        s = order.Schedule(["main", "b"], {}, prev)
        out = {"b": doc("b", []), "main": None}
        def outputs(p, n):
            if p == "main":
                return doc("main", [], [("g", s.entries.get("g", ""))])
            return out[p]
        self.assertEqual(drain(s, outputs), ["main", "b", "main"])

    def test_cycle_is_bounded(self):
        # Each run of one changes what the other sees: at most MAX_RUNS each.
        s = order.Schedule(["a", "b"], {"a": {"b"}, "b": {"a"}})
        def out(p, n):
            q = "b" if p == "a" else "a"
            return doc(p, [(p, "%s%d" % (p, n))], [(q, s.entries.get(q, ""))])
        ran = drain(s, out)
        self.assertEqual(s.runs, {"a": order.MAX_RUNS, "b": order.MAX_RUNS})
        self.assertEqual(len(ran), 2 * order.MAX_RUNS)
        self.assertTrue(s.unsettled())

    def test_function_defined_by_two_files(self):
        # Two programs of one database each define setup(): meshguard-tidy
        # reads the entry of the first database file by name, and so must
        # the schedule, or m would run again (three times) on every call.
        a, b = sorted(["/src/a.cpp", "/src/b.cpp"], key=order.summary_file_name)
        prev = {a: doc(a, [("setup", "A")]), b: doc(b, [("setup", "B")]),
                "m": doc("m", [], [("setup", "A")])}
        s = order.Schedule(list(prev), {}, prev)
        self.assertEqual(s.entries["setup"], "A")
        self.assertEqual(drain(s, lambda p, n: prev[p]), [a, b, "m"])
        self.assertEqual(s.unsettled(), [])
        # m runs first; then a stops defining setup(): b's entry is the one
        # now (not a removed one), and m, which saw a's, runs again.
        out = dict(prev, **{a: doc(a, [])})
        s = order.Schedule(["m", a, b], {}, prev)
        def outputs(p, n):
            return doc("m", [], [("setup", s.entries["setup"])]) if p == "m" else out[p]
        self.assertEqual(drain(s, outputs), ["m", a, b, "m"])
        self.assertEqual(s.entries["setup"], "B")
        self.assertEqual(s.unsettled(), [])


class ReadSummaryDoc(unittest.TestCase):
    def test_malformed_shapes_are_unreadable(self):
        d = tempfile.mkdtemp()
        good = doc("/src/a.cpp", [("f", "F")], [("g", "")])
        good["files"] = [["/src/a.cpp", "0123"]]
        self.assertIsNotNone(order.read_summary_doc(write(d, "good.json", json.dumps(good))))
        for field, value in (("tu", ["x"]), ("tu", 5), ("functions", True), ("lookups", 1),
                             ("files", [["p"]]), ("files", [[1, "h"]]), ("files", "p")):
            bad = dict(good, **{field: value})
            self.assertIsNone(order.read_summary_doc(write(d, "bad.json", json.dumps(bad))),
                              "%s = %r" % (field, value))
        self.assertIsNone(order.read_summary_doc(write(d, "list.json", "[1]")))
        self.assertIsNone(order.read_summary_doc(os.path.join(d, "missing.json")))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=1)
