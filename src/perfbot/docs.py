"""``docs/rules.md`` from the rule registry (``perfbot docs``; ``perfbot docs --check`` in a test).

Per rule: ``## PBxxx slug``, its severity, whether a fix is available (always / sometimes / never),
its config keys, the docstring's first line and body, and its ``Example:`` and ``Use instead:``
blocks as Markdown code blocks. The page is a pure function of the registry, so a test can say
whether the file on disk is up to date.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .rules import Rule

# Where the rendered page is published, for rule links (review comments, SARIF ``helpUri``, rdjson
# ``url``). perfbot has no fixed home: the page is the one of the perfbot that runs. In GitHub
# Actions the runner names the action's repository and ref (``GITHUB_ACTION_REPOSITORY`` /
# ``GITHUB_ACTION_REF``; a composite action passes them on as ``PERFBOT_ACTION_*``, since the
# ``GITHUB_`` ones are empty in its ``run:`` steps); elsewhere ``PERFBOT_DOCS_URL`` names the page.
# With none of them there is no link at all (never a placeholder that leads nowhere). The
# workflow sets these variables, never the pull request, but they still go into Markdown: each is
# checked against a narrow character set and ignored when it does not match.
RULES_PATH = "docs/rules.md"
DOCS_URL_ENV = "PERFBOT_DOCS_URL"
_ACTION_ENV = (
    ("PERFBOT_ACTION_REPOSITORY", "PERFBOT_ACTION_REF"),
    ("GITHUB_ACTION_REPOSITORY", "GITHUB_ACTION_REF"),
)
_REPO = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/(?!\.\.?$)[A-Za-z0-9._-]{1,100}")
_REF = re.compile(r"[A-Za-z0-9._][A-Za-z0-9._/-]{0,254}")  # and no `..`, no trailing `/`
_SERVER = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?")
# a URL with nothing that could end a Markdown link or start markup: no spaces, quotes, brackets,
# parentheses, angle brackets, backticks, backslashes or control characters
_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~%!$&*+,;=:@/-]*)?")
DEFAULT_SERVER = "https://github.com"
# every variable rules_url reads (a test clears them for output that must not depend on the runner)
LINK_ENV = (DOCS_URL_ENV, *(k for pair in _ACTION_ENV for k in pair), "GITHUB_SERVER_URL")

_SECTION = re.compile(r"^([A-Z][A-Za-z ]*):$")
_CODE_SECTIONS = ("Example", "Use instead")


def is_repository(text: str) -> bool:
    """``owner/name`` as GitHub spells them, nothing else (safe in a URL, Markdown or a shell
    word)."""
    return bool(_REPO.fullmatch(text))


def is_ref(text: str) -> bool:
    """A branch, tag or sha of ``A-Z a-z 0-9 . _ / -`` without ``..``."""
    return bool(_REF.fullmatch(text)) and ".." not in text and not text.endswith("/")


def rules_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The URL of the rules page (``docs/rules.md``) to link to, or None for no link.

    ``PERFBOT_DOCS_URL`` when set (the maintainer's explicit choice), else
    ``<server>/<action repository>/blob/<action ref>/docs/rules.md`` from ``PERFBOT_ACTION_*`` or
    ``GITHUB_ACTION_*`` (the ref defaults to ``HEAD``, the default branch), else None. A value
    outside its character set is ignored."""
    env = os.environ if environ is None else environ
    url = env.get(DOCS_URL_ENV, "").strip()
    if url and _URL.fullmatch(url):
        return url
    for repo_key, ref_key in _ACTION_ENV:
        repo = env.get(repo_key, "").strip()
        if not repo or not is_repository(repo):
            continue
        ref = env.get(ref_key, "").strip()
        ref = ref if ref and is_ref(ref) else "HEAD"
        server = env.get("GITHUB_SERVER_URL", "").strip().rstrip("/")
        server = server if _SERVER.fullmatch(server) else DEFAULT_SERVER
        return f"{server}/{repo}/blob/{ref}/{RULES_PATH}"
    return None


def anchor(rule_id: str, slug: str) -> str:
    """GitHub's anchor for the heading ``## PBxxx slug``."""
    text = f"{rule_id} {slug}".lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def rule_url(rule_id: str, slug: str, environ: Mapping[str, str] | None = None) -> str | None:
    """A rule's section of the rules page, or None when there is no page to link to."""
    base = rules_url(environ)
    return f"{base}#{anchor(rule_id, slug)}" if base else None


def default_path() -> Path | None:
    """``docs/rules.md`` of the source checkout perfbot runs from, or None for an installed
    perfbot (never the current folder's: that is some other repository's ``docs/``)."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "src" / "perfbot").is_dir():
        return root / "docs" / "rules.md"
    return None


def _fence(text: str, lang: str = "markdown") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _split_doc(doc: str) -> tuple[str, list[str], list[tuple[str, list[str]]]]:
    """(first line, body lines, [(section name, section lines)]). A section starts at an unindented
    ``Name:`` line and runs to the next one (the extent ``Rule.section`` reads)."""
    lines = doc.splitlines()
    if not lines:
        return "", [], []
    body: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for ln in lines[1:]:
        m = _SECTION.match(ln)
        if m:
            sections.append((m.group(1), []))
        elif sections:
            sections[-1][1].append(ln)
        else:
            body.append(ln)
    return lines[0], body, sections


def _dedent(lines: list[str]) -> str:
    return "\n".join(ln[4:] if ln.startswith("    ") else ln for ln in lines).strip("\n")


def _config_keys(r: Rule) -> str:
    keys = [f"`rules.{r.id}`"] + [f"`{k}`" for k in r.config_keys]
    return ", ".join(keys)


def render_rule(r: Rule) -> str:
    first, body, sections = _split_doc(r.doc)
    out = [f"## {r.id} {r.slug}", "", first or r.slug, ""]
    out.append(f"- Severity: {r.severity}" + ("" if r.enabled else " (off by default)"))
    out.append(f"- Fix: {r.fix}" + ("" if r.fix == "never" else f" ({r.fix_safety})"))
    out.append(f"- Config keys: {_config_keys(r)}")
    out.append(f"- Family: {r.family}")
    text = "\n".join(body).strip("\n")
    if text:
        out += ["", text]
    for name, lines in sections:
        content = r.section(name) if name in _CODE_SECTIONS else _dedent(lines)
        if not content.strip():
            continue
        out += ["", f"### {name}", ""]
        out.append(_fence(content) if name in _CODE_SECTIONS else content)
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_rules_md(rules: list[Rule] | None = None) -> str:
    """The whole ``docs/rules.md`` page."""
    if rules is None:
        from .rules import all_rules

        rules = all_rules()
    head = [
        "# perfbot rules",
        "",
        "<!-- Generated by `perfbot docs` from the rule registry; do not edit by hand. -->",
        "",
        "Rule ids (`PB0xx` inline directives, `PB1xx` requirements, `PB2xx` sentence, `PB3xx` "
        "columns, `PB4xx` values, `PB5xx` matrix, `PB6xx` structure) are stable; slugs are "
        "aliases. `perfbot rule ID` prints one rule's page. A repository changes a rule's "
        "severity, or turns it off, in `.perfbot.yml`:",
        "",
        "```yaml",
        "rules:",
        "  PB203: off",
        "  img-s-mismatch: warning",
        "```",
        "",
        "and a README silences rules where it must with HTML comments (ids or slugs; none means "
        "every rule): `<!-- perfbot-disable-next-table PB306 -->`, `<!-- perfbot-disable PB301 "
        "-->` ... `<!-- perfbot-enable -->`, `<!-- perfbot-disable-file -->`.",
        "",
        "A fix is *safe* when it changes presentation only (a header's spelling, alignment, the "
        "decimals of a shown number, `ON`/`OFF`, the sentence's words, the order of understood "
        "columns) and *unsafe* when it changes a measured or declared value (a recomputed img/s, "
        "a CANN version, a row taken from the matrix). `perfbot fix` applies unsafe fixes only "
        "with `--unsafe-fixes`; the review on a pull request offers them as suggestions that say "
        "which cells disagree. JSON findings say which a fix is (`fix.applicability`).",
        "",
    ]
    if rules:
        head += [
            "| rule | slug | severity | fix | safety | summary |",
            "|---|---|---|---|---|---|",
        ]
        for r in rules:
            head.append(
                f"| [{r.id}](#{anchor(r.id, r.slug)}) | `{r.slug}` | {r.severity} | {r.fix} | "
                f"{r.fix_safety} | {_cell(r.summary)} |"
            )
    else:
        head.append("No rules are registered.")
    return "\n".join(head) + "\n" + "".join("\n" + render_rule(r) for r in rules)
