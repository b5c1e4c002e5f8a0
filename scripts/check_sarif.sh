#!/usr/bin/env bash
# perfbot's SARIF through Microsoft's SARIF Multitool (the validator GitHub's docs point to), with
# the SARIF rules and GitHub's ingestion rules (GH*: every rule's help, fullDescription ...):
# the shipped broken example, serially, and 70 copies of it, through a process pool (PERFBOT_JOBS=2). The tests
# validate against the OASIS schema (tests/test_sarif_schema.py); this adds GitHub's rules.
# Uses `sarif-multitool` from PATH, else installs it from npm into .ci/.node (not committed);
# skipped, with a message, where neither works (no npm, or the registry cannot be reached).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v sarif-multitool >/dev/null 2>&1; then
  if command -v npm >/dev/null 2>&1 &&
    timeout 300 npm install --silent --prefix .ci/.node @microsoft/sarif-multitool@5 >/dev/null 2>&1 &&
    [ -x .ci/.node/node_modules/.bin/sarif-multitool ]; then
    PATH="$PWD/.ci/.node/node_modules/.bin:$PATH"
  else
    echo "check-sarif: skipped (sarif-multitool is not on PATH and could not be installed from npm)"
    exit 0
  fi
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree"
git -C "$tmp/tree" init -q
for i in $(seq -w 1 70); do
  mkdir -p "$tmp/tree/m$i"
  cp examples/broken/README.md "$tmp/tree/m$i/README.md"
done
root="$PWD"
# The SARIF as code scanning gets it from a workflow: there the perfbot of the action (or of
# `setup`) knows the action's repository and ref, so the tool and every rule carry links to its
# rules page. Elsewhere, without PERFBOT_DOCS_URL, perfbot writes no link at all (never one that
# leads nowhere), which the Multitool reports as SARIF2005 (informationUri), a warning.
export GITHUB_ACTION_REPOSITORY=example-owner/perfbot GITHUB_ACTION_REF=v1.0.0
perfbot check --format sarif -o "$tmp/one.sarif" examples/broken || [ $? -eq 1 ]
(cd "$tmp/tree" && PERFBOT_JOBS=2 perfbot check -q --format sarif -o "$tmp/pool.sarif" .) || [ $? -eq 1 ]
for log in one pool; do
  for kind in Sarif Gh; do
    sarif-multitool validate --rule-kind "$kind" --output "$tmp/$log.$kind.out" "$tmp/$log.sarif" >/dev/null
    n="$(python -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"][0]["results"]))' "$tmp/$log.$kind.out")"
    if [ "$n" != 0 ]; then
      echo "check-sarif: $log.sarif has $n $kind problem(s):" >&2
      python -c 'import json,sys; [print(r["ruleId"], r["message"].get("text", r["message"])) for r in json.load(open(sys.argv[1]))["runs"][0]["results"]]' "$tmp/$log.$kind.out" >&2
      exit 1
    fi
  done
done
cd "$root"
echo "check-sarif: ok (serial and process-pool SARIF, SARIF and GitHub rules)"
