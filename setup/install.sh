#!/usr/bin/env bash
# Install perfbot from this commit into a fresh virtual environment, for action.yml and
# setup/action.yml. Usage: install.sh VENV BIN
#
#   PERFBOT_SRC     the perfbot tree to install (the action's own commit, never a checkout)
#   PERFBOT_PYTHON  the Python to build the environment from; empty: the first of python3.13,
#                   python3.12, python3.11, python3 on PATH that is 3.11 or later
#   PERFBOT_ACTION_REPOSITORY, PERFBOT_ACTION_REF
#                   the action's repository and ref, for perfbot's rule links; GitHub's runner
#                   leaves github.action_repository/action_ref empty inside composite actions
#                   (actions/runner#2473), so when they are empty they are read from the action's
#                   folder, RUNNER/_work/_actions/OWNER/REPO/REF[/setup]
#
# BIN gets one file, `perfbot`: a wrapper that runs the environment's perfbot with
# GITHUB_ACTION_REPOSITORY and GITHUB_ACTION_REF set to the action's (when the step has none).
#
# Every dependency comes from requirements/action.lock with its hash; perfbot itself is built
# from PERFBOT_SRC without an index. pip's own settings (PIP_FIND_LINKS, PIP_NO_INDEX, ...)
# still apply, so a runner may install from a wheelhouse: the hashes are checked all the same.
# Prints the environment's Python on the last line of stdout.
set -euo pipefail
venv="$1"
bin="$2"
src="${PERFBOT_SRC:?}"
want="${PERFBOT_PYTHON:-}"
# Nothing from the job's working directory (a pull request's checkout, perhaps) can stand in
# for a module: every Python runs from RUNNER_TEMP, with -I (version probe) or -P.
cd "${RUNNER_TEMP:-${TMPDIR:-/tmp}}"

version_of() { "$1" -I -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null; }
new_enough() { "$1" -I -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }

py=""
if [ -n "$want" ]; then
  if ! command -v "$want" >/dev/null 2>&1; then
    echo "::error title=perfbot::perfbot needs Python 3.11 or later; the Python given ($want) was not found." >&2
    exit 1
  fi
  if ! new_enough "$want"; then
    got="$(version_of "$want" || true)"
    echo "::error title=perfbot::perfbot needs Python 3.11 or later; $want is Python ${got:-of an unknown version}. Give a Python 3.11+ (input \`python:\`; on GitHub-hosted runners, actions/setup-python with python-version: \"3.11\" before this step). A benchmark's own Python (MindSpore's) is separate: perfbot bench runs the benchmark's command with the runner's PATH." >&2
    exit 1
  fi
  py="$want"
else
  tried=()
  for c in python3.13 python3.12 python3.11 python3 python; do
    if command -v "$c" >/dev/null 2>&1; then
      tried+=("$c $(version_of "$c" || echo '?')")
      if new_enough "$c"; then
        py="$c"
        break
      fi
    fi
  done
  if [ -z "$py" ]; then
    echo "::error title=perfbot::perfbot needs Python 3.11 or later and found none on PATH (tried python3.13, python3.12, python3.11, python3, python; found: ${tried[*]:-none}). Run actions/setup-python with python-version: \"3.11\" before this step, or give one with the input \`python:\`." >&2
    exit 1
  fi
fi

rm -rf "$venv"
"$py" -P -m venv "$venv"
vbin="$venv/bin"
if [ -d "$venv/Scripts" ]; then vbin="$venv/Scripts"; fi # a Windows runner's venv
vpy="$vbin/python"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
"$vpy" -P -m pip install --quiet --no-deps --require-hashes -r "$src/requirements/action.lock"
"$vpy" -P -m pip install --quiet --no-deps --no-build-isolation --no-index "$src"
repo="${PERFBOT_ACTION_REPOSITORY:-}"
ref="${PERFBOT_ACTION_REF:-}"
if [ -z "$repo" ] || [ -z "$ref" ]; then
  dir="$(cd "$src" && pwd -P)"
  case "$dir" in
    */_actions/*/*/*)
      rest="${dir##*/_actions/}"
      IFS=/ read -r a_owner a_name a_ref _ <<<"$rest"
      repo="$a_owner/$a_name"
      ref="$a_ref"
      ;;
  esac
fi
if ! [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ && "$ref" =~ ^[A-Za-z0-9_.-]+$ ]]; then
  repo="" ref=""
fi
rm -rf "$bin"
mkdir -p "$bin"
{
  echo '#!/usr/bin/env bash'
  echo '# perfbot from the environment the perfbot action built, with the action named for links'
  if [ -n "$repo" ]; then
    echo "if [ -z \"\${GITHUB_ACTION_REPOSITORY:-}\" ]; then"
    echo "  export GITHUB_ACTION_REPOSITORY=$repo GITHUB_ACTION_REF=$ref"
    echo "fi"
  fi
  printf 'exec %q "$@"\n' "$vbin/perfbot"
} >"$bin/perfbot"
chmod +x "$bin/perfbot"
echo "perfbot: $("$vbin/perfbot" --version) on Python $(version_of "$vpy") ($py)" >&2
echo "$vpy"
