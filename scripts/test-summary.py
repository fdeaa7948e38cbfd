#!/usr/bin/env python3
"""Sum the results of a meson test run into one closing line.

Criterion programs print 'Synthesis: Tested: T | Passing: P | Failing: F |
Crashing: C'; their individual tests are counted.  Other tests (scripts)
count as one each, by meson's verdict.  Prints Criterion's synthesis format
and the plain 'N passed, N failed, N skipped' line.
"""
import json
import re
import sys

SYNTH = re.compile(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| "
                   r"Failing: (\d+) \| Crashing: (\d+)")


def main(path):
    passed = failed = skipped = 0
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            out = (t.get("stdout") or "") + (t.get("stderr") or "")
            m = SYNTH.findall(re.sub(r"\x1b\[[0-9;]*m", "", out))
            if m:
                _, p, fl, c = (int(x) for x in m[-1])
                passed += p
                failed += fl + c
                if t["result"] not in ("OK", "EXPECTEDFAIL") and fl + c == 0:
                    failed += 1  # the program failed outside its tests
            elif t["result"] == "SKIP":
                skipped += 1
            elif t["result"] in ("OK", "EXPECTEDFAIL"):
                passed += 1
            else:
                failed += 1
    total = passed + failed
    print(f"[====] Synthesis: Tested: {total} | Passing: {passed} | "
          f"Failing: {failed} | Crashing: 0")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
