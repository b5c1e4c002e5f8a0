#!/usr/bin/env bash
# The example workflows and the action files through zizmor (no finding above low), actionlint
# (with shellcheck; setup/install.sh through shellcheck itself) and the GitHub workflow / action JSON schemas (check-jsonschema). The
# placeholders OWNER and PERFBOT_SHA are filled with dummies first; for actionlint the perfbot
# actions are pointed at this checkout (`./`, `./setup`), so their inputs are checked too.
# The tools come with the dev extra: python -m pip install -e '.[dev]'.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/filled" "$tmp/local/.github/workflows" "$tmp/local/setup"
cp action.yml Dockerfile "$tmp/local/"
cp setup/action.yml "$tmp/local/setup/"
sha=0123456789abcdef0123456789abcdef01234567
for f in examples/workflows/*.yml; do
  name="$(basename "$f")"
  sed -e "s#OWNER/perfbot#example-owner/perfbot#g" -e "s#PERFBOT_SHA#$sha#g" "$f" >"$tmp/filled/$name"
  sed -e "s#OWNER/perfbot/setup@PERFBOT_SHA#./setup#g" -e "s#OWNER/perfbot@PERFBOT_SHA#./#g" \
    "$f" >"$tmp/local/.github/workflows/$name"
done
if grep -rnE "^[^#]*(OWNER|PERFBOT_SHA)" "$tmp/filled" "$tmp/local/.github"; then
  echo "check-workflows: a placeholder is left over" >&2
  exit 1
fi
zizmor --offline --min-severity medium "$tmp"/filled/*.yml action.yml setup/action.yml
shellcheck setup/install.sh # the actions' install script (their run: steps get actionlint's)
(cd "$tmp/local" && git init -q . && actionlint)
check-jsonschema --builtin-schema vendor.github-workflows "$tmp"/filled/*.yml
check-jsonschema --builtin-schema vendor.github-actions action.yml setup/action.yml
echo "check-workflows: ok ($(ls examples/workflows/*.yml | wc -l) workflows, 2 actions)"
