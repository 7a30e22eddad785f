#!/usr/bin/env python3
"""Structural checks of a SARIF 2.1.0 log as proxyfence writes it.

The official schema is not vendored here; this checks the properties the
spec requires and GitHub code scanning reads, and that every region points
at an existing line of its file (resolved through originalUriBaseIds).

  check_sarif.py LOG                      validate, print "ok: N results"
  check_sarif.py --same-fingerprints A B  also: A and B have the same results'
                                          fingerprints (in order)
"""
import json
import os
import sys
from urllib.parse import unquote, urlparse

LEVELS = {"none", "note", "warning", "error"}


class Invalid(Exception):
    pass


def need(cond, what):
    if not cond:
        raise Invalid(what)


def positive_int(v, what):
    need(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"{what} must be an integer >= 1, not {v!r}")


def text_message(m, what):
    need(isinstance(m, dict) and isinstance(m.get("text"), str) and m["text"], f"{what}.message.text missing")


def resolve(loc, bases, what):
    need(isinstance(loc, dict), f"{what}: artifactLocation missing")
    uri = loc.get("uri")
    need(isinstance(uri, str) and uri, f"{what}: artifactLocation.uri missing")
    base = loc.get("uriBaseId")
    if base is not None:
        need(base in bases, f"{what}: uriBaseId {base!r} not in originalUriBaseIds")
        need(not urlparse(uri).scheme and not uri.startswith("/"), f"{what}: uri {uri!r} with a uriBaseId must be relative")
        return os.path.join(bases[base], unquote(uri))
    parsed = urlparse(uri)
    need(parsed.scheme == "file", f"{what}: uri {uri!r} is neither relative to a base nor a file URI")
    return unquote(parsed.path)


def check_region(region, path, what, keys=("startLine", "startColumn")):
    need(isinstance(region, dict), f"{what}: region missing")
    for k in keys:
        positive_int(region.get(k), f"{what}.region.{k}")
    need(os.path.isfile(path), f"{what}: {path} does not exist")
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for k in ("startLine", "endLine"):
        if k in region:
            need(region[k] <= len(lines), f"{what}: {k} {region[k]} past the end of {path}")
    if "endLine" in region:
        need((region["endLine"], region.get("endColumn", 0)) >= (region["startLine"], region["startColumn"]),
             f"{what}: region ends before it starts")


def check_physical(pl, bases, what):
    need(isinstance(pl, dict), f"{what}: physicalLocation missing")
    path = resolve(pl.get("artifactLocation"), bases, what)
    check_region(pl.get("region"), path, what)


def check(log):
    need(log.get("version") == "2.1.0", "version must be \"2.1.0\"")
    runs = log.get("runs")
    need(isinstance(runs, list) and len(runs) == 1, "runs must hold one run")
    run = runs[0]
    driver = run.get("tool", {}).get("driver")
    need(isinstance(driver, dict) and isinstance(driver.get("name"), str), "tool.driver.name missing")
    need(isinstance(driver.get("version"), str), "tool.driver.version missing")
    rules = driver.get("rules")
    need(isinstance(rules, list) and rules, "tool.driver.rules missing")
    ids = []
    for i, r in enumerate(rules):
        need(isinstance(r.get("id"), str), f"rules[{i}].id missing")
        text_message({"text": r.get("shortDescription", {}).get("text")}, f"rules[{i}].shortDescription")
        ids.append(r["id"])
    need(len(set(ids)) == len(ids), "rule ids are not unique")
    bases = {}
    for name, b in run.get("originalUriBaseIds", {}).items():
        p = urlparse(b.get("uri", ""))
        need(p.scheme == "file" and p.path.endswith("/"), f"originalUriBaseIds.{name} must be a file URI ending in /")
        bases[name] = unquote(p.path)
    for inv in run.get("invocations", []):
        need(isinstance(inv.get("executionSuccessful"), bool), "invocations[].executionSuccessful missing")
    results = run.get("results")
    need(isinstance(results, list), "results missing")
    for i, res in enumerate(results):
        what = f"results[{i}]"
        need(res.get("ruleId") in ids, f"{what}.ruleId {res.get('ruleId')!r} is not a rule")
        if "ruleIndex" in res:
            need(ids[res["ruleIndex"]] == res["ruleId"], f"{what}.ruleIndex does not match ruleId")
        need(res.get("level") in LEVELS, f"{what}.level invalid")
        text_message(res.get("message"), what)
        locs = res.get("locations")
        need(isinstance(locs, list) and locs, f"{what}.locations missing")
        for j, loc in enumerate(locs):
            check_physical(loc.get("physicalLocation"), bases, f"{what}.locations[{j}]")
        rel_ids = []
        for j, loc in enumerate(res.get("relatedLocations", [])):
            rel_ids.append(loc.get("id"))
            text_message(loc.get("message"), f"{what}.relatedLocations[{j}]")
            check_physical(loc.get("physicalLocation"), bases, f"{what}.relatedLocations[{j}]")
        need(len(set(rel_ids)) == len(rel_ids), f"{what}.relatedLocations ids are not unique")
        fps = res.get("partialFingerprints")
        need(isinstance(fps, dict) and fps and all(isinstance(v, str) and v for v in fps.values()),
             f"{what}.partialFingerprints missing")
        for k, fix in enumerate(res.get("fixes", [])):
            fw = f"{what}.fixes[{k}]"
            changes = fix.get("artifactChanges")
            need(isinstance(changes, list) and changes, f"{fw}.artifactChanges missing")
            for c in changes:
                path = resolve(c.get("artifactLocation"), bases, fw)
                reps = c.get("replacements")
                need(isinstance(reps, list) and reps, f"{fw}.replacements missing")
                for r in reps:
                    check_region(r.get("deletedRegion"), path, fw + ".deletedRegion")
                    need(isinstance(r.get("insertedContent", {}).get("text"), str), f"{fw}.insertedContent.text missing")
    return results


def fingerprints(results):
    return [json.dumps(r["partialFingerprints"], sort_keys=True) for r in results]


def main(argv):
    same = argv[:1] == ["--same-fingerprints"]
    paths = argv[1:] if same else argv
    try:
        logs = []
        for p in paths:
            with open(p) as f:
                logs.append(check(json.load(f)))
        if same:
            a, b = (fingerprints(r) for r in logs)
            need(a == b, f"fingerprints differ:\n  {a}\n  {b}")
    except (Invalid, json.JSONDecodeError, KeyError, TypeError, IndexError) as e:
        print(f"invalid SARIF: {e}")
        return 1
    print("ok: " + ", ".join(f"{len(r)} results" for r in logs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
