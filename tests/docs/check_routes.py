#!/usr/bin/env python3
"""check_routes.py - the route reference cannot drift from the route table.

  python3 tests/docs/check_routes.py [--src DIR]

The table is server/routes.c (one `{"METHOD", "/pattern", ...}` row per
route).  Checks, with path parameters compared by position ({id},
{rank}, {name} are all "{}"):
  - every API route (not a page: not "/", /ui/..., /assets/...) is in
    web/assets/openapi.json with its method, and every path and method of
    openapi.json is a route (HEAD is served as GET and is not listed);
  - every route's path is named in server/SERVICE.md's route list.
Exit 1 with one line per difference.
"""
import argparse
import json
import os
import re
import sys

ROW = re.compile(r'\{"(GET|POST|PUT|DELETE)",\s*"([^"]+)"')


def norm(path):
    return re.sub(r"\{[^}]*\}", "{}", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--src", default=os.path.normpath(os.path.join(here, "..", "..")))
    a = ap.parse_args()
    with open(os.path.join(a.src, "server", "routes.c"), encoding="utf-8") as f:
        routes = {(m.group(1), norm(m.group(2))) for m in ROW.finditer(f.read())}
    with open(os.path.join(a.src, "web", "assets", "openapi.json"), encoding="utf-8") as f:
        spec = json.load(f)
    documented = {(meth.upper(), norm(p)) for p, ops in spec["paths"].items()
                  for meth in ops if meth in ("get", "post", "put", "delete")}

    def page(path):
        return path == "/" or path.startswith("/ui/") or path.startswith("/assets/")

    problems = []
    for meth, path in sorted(routes):
        if not page(path) and (meth, path) not in documented:
            problems.append("%s %s: a route that web/assets/openapi.json does not list"
                            % (meth, path))
    for meth, path in sorted(documented - routes):
        problems.append("%s %s: in web/assets/openapi.json but not a route of "
                        "server/routes.c" % (meth, path))
    with open(os.path.join(a.src, "server", "SERVICE.md"), encoding="utf-8") as f:
        service = norm(f.read())
    for path in sorted({p for _, p in routes}):
        if path != "/" and not re.search(re.escape(path) + r"(?![\w/{}.-])", service):
            problems.append("%s: a route that server/SERVICE.md's route list does not name"
                            % path)
    for p in problems:
        print("docs.routes: " + p)
    if problems:
        print("docs.routes: keep web/assets/openapi.json and server/SERVICE.md's route list "
              "equal to server/routes.c")
        return 1
    print("docs.routes: %d routes, %d in openapi.json, all documented"
          % (len(routes), len(documented)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
