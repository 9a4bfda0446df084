"""Group the failures of tests/hostile/test_hostile.py by function, parameter and defect class.

Usage::

    python -m pytest -p no:cacheprovider tests/hostile/test_hostile.py --junitxml=hostile.xml -q --tb=no
    python scripts/hostile_report.py hostile.xml

Prints, for each defect class (crash, hang, an exception the contract forbids, TypeError and
ValueError swapped, bad input accepted, valid input refused, wrong value, a message that does
not name the argument, warnings), the failing cases grouped by function and parameter.
"""
from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

_EXPECTED = re.compile(r"expected (\w+Error)")
_RAISED = re.compile(r"but it raised ([\w.]+)")


def defect(problem: str) -> str:
    """The defect class of one failure's first line (after ``->``)."""
    head = problem.split("; and emitted warnings")[0]
    if "CRASHED" in head:
        return "crash (signal)"
    if "HUNG" in head:
        return "hang (timeout)"
    if "does not name" in head:
        return "message does not name the argument"
    if "check failed" in head and "but it" not in head:
        return "wrong value returned"
    raised = _RAISED.findall(head)
    if raised:
        kind = raised[0].rsplit(".", 1)[-1]
        expected = set(_EXPECTED.findall(head))
        if "expected a result" in head and not expected:
            return f"valid input refused ({kind})"
        if kind in ("TypeError", "ValueError") and expected & {"TypeError", "ValueError"}:
            if kind in expected:
                return "message does not name the argument"
            return "TypeError and ValueError swapped"
        return f"forbidden exception escapes ({kind})"
    if "but it returned" in head or "returned" in head.split(":")[0]:
        return "bad input accepted" if "check failed" not in head else "wrong value returned"
    if "emitted warnings" in problem:
        return "warning emitted"
    return "other"


def main(path: str) -> None:
    groups: dict = defaultdict(lambda: defaultdict(list))
    total = failed = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        total += 1
        failure = case.find("failure")
        if failure is None:
            continue
        failed += 1
        text = failure.text or failure.get("message") or ""
        problem = text.split("\n  -> ", 1)[-1]
        kind = defect(problem)
        if "emitted warnings" in problem and kind != "warning emitted":
            kind += " + warning"
        name = case.get("name")
        where, label = name, ""
        if name.startswith("test_generated[") and name.count("-") >= 2:
            target, parameter, label = name[len("test_generated["):-1].split("-", 2)
            where = f"{target}({parameter})" if target != "method" else f"method {parameter}-{label}"
            label = label if target != "method" else ""
        groups[kind][where].append(label)
    print(f"{failed} of {total} cases fail")
    for kind in sorted(groups, key=lambda k: -sum(map(len, groups[k].values()))):
        cases = groups[kind]
        print(f"\n## {kind}: {sum(map(len, cases.values()))}")
        for where in sorted(cases):
            labels = [label for label in cases[where] if label]
            print(f"- {where}" + (f": {', '.join(labels)}" if labels else ""))


if __name__ == "__main__":
    main(sys.argv[1])
