"""Rule links (review comments, SARIF ``helpUri``/``informationUri``, rdjson ``url``) name the
perfbot that runs: the action's own repository and ref in GitHub Actions, ``PERFBOT_DOCS_URL``
elsewhere, and nothing at all otherwise; never the ``OWNER/perfbot`` placeholder. Each command runs
in a fresh process with the environment a runner gives it."""

from __future__ import annotations

import json
import re

import cmarkgfm
import pytest
from review_kit import BROKEN, README
from test_fresh_process import checkout, run_perfbot, runner_env

from github_fake import load_event
from loopback import LoopbackGitHub
from perfbot.docs import LINK_ENV, rule_url, rules_url

ACTION = {"GITHUB_ACTION_REPOSITORY": "org/perfbot", "GITHUB_ACTION_REF": "v1.4.0"}
PAGE = "/org/perfbot/blob/v1.4.0/docs/rules.md"
EXAMPLE = "examples/broken/README.md"


def hrefs(markdown: str) -> list[str]:
    html = cmarkgfm.github_flavored_markdown_to_html(markdown)
    return re.findall(r'href="([^"]*)"', html)


def review(tmp_path, extra: dict[str, str]) -> tuple[str, str]:
    """``perfbot review`` on a same-repository PR with ``extra`` in its environment: (what the
    fake received, the job summary)."""
    with LoopbackGitHub() as gh:
        pr = gh.add_pull(changes={README: (None, BROKEN)})
        ws = checkout(gh, pr.head_sha, tmp_path / "ws")
        event = load_event("pull_request_opened")
        event["number"] = event["pull_request"]["number"] = pr.number
        event["pull_request"]["head"]["sha"] = pr.head_sha
        event["pull_request"]["base"]["sha"] = pr.base_sha
        env = runner_env(gh, tmp_path, "review", "pull_request", event, gh.WRITE_TOKEN)
        env.update(GITHUB_WORKSPACE=str(ws), **extra)
        got = run_perfbot(["review"], {**_cleared(), **env}, ws)
        assert got.returncode == 1, got.stderr
        assert gh.reviews, got.stderr
        bodies = [rv["body"] for rv in gh.reviews]
        bodies += [c["body"] for c in gh.comments_on(pr.number)]
        bodies += [c["body"] for c in gh.issue_comments]
        summary = (tmp_path / "review.summary.md").read_text(encoding="utf-8")
        return "\n\n".join(bodies), summary


def _cleared() -> dict[str, str]:
    return {k: "" for k in LINK_ENV if k != "GITHUB_SERVER_URL"}


@pytest.mark.parametrize(
    "names",
    [
        ACTION,  # a Docker or JavaScript action: the runner sets these
        {"PERFBOT_ACTION_REPOSITORY": "org/perfbot", "PERFBOT_ACTION_REF": "v1.4.0"},  # composite
    ],
)
def test_a_review_links_the_action_that_runs(tmp_path, names):
    text, summary = review(tmp_path, names)
    assert "OWNER/perfbot" not in text + summary
    links = [h for h in hrefs(text) + hrefs(summary) if "rules.md" in h]
    assert links and all(h.split("#")[0].endswith(PAGE) for h in links)
    assert any(h.endswith("docs/rules.md#pb401-img-s-mismatch") for h in links)


def test_a_review_without_a_named_action_has_no_rule_links(tmp_path):
    text, summary = review(tmp_path, {})
    assert "OWNER/perfbot" not in text + summary and "rules.md" not in text + summary
    assert "`PB401` img-s-mismatch" in text  # the rule is still named


def check(fmt: str, env: dict[str, str], tmp_path) -> str:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    got = run_perfbot(["check", "--format", fmt, EXAMPLE], {**_cleared(), **env}, root)
    assert got.returncode == 1, got.stderr
    return got.stdout


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_sarif_and_rdjson_link_the_action_that_runs(tmp_path, fmt):
    out = check(fmt, ACTION, tmp_path)
    assert "OWNER/perfbot" not in out
    urls = re.findall(r'"(?:helpUri|informationUri|url)": "([^"]*)"', out)
    assert urls and all(u.startswith("https://github.com" + PAGE) for u in urls)


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_no_named_action_no_link(tmp_path, fmt):
    out = check(fmt, {}, tmp_path)
    assert "OWNER/perfbot" not in out and "rules.md" not in out
    assert not re.search(r'"(?:helpUri|informationUri|url)"', out)


def test_docs_url_names_the_page(tmp_path):
    page = "https://docs.example.org/perfbot/rules.html"
    out = check("sarif", {"PERFBOT_DOCS_URL": page}, tmp_path)
    log = json.loads(out)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert {r["helpUri"].split("#")[0] for r in rules} == {page}


@pytest.mark.parametrize(
    "env",
    [
        {"GITHUB_ACTION_REPOSITORY": "org/perfbot)[click](https://evil.example"},
        {"GITHUB_ACTION_REPOSITORY": "org/perfbot", "GITHUB_ACTION_REF": "v1) <img src=x>"},
        {"GITHUB_ACTION_REPOSITORY": "org/perfbot", "GITHUB_ACTION_REF": "../../evil"},
        {"GITHUB_ACTION_REPOSITORY": "../evil"},
        {"PERFBOT_DOCS_URL": "javascript:alert(1)"},
        {"PERFBOT_DOCS_URL": "https://ok.example/x) [y](https://evil.example"},
        {"PERFBOT_DOCS_URL": "https://ok.example/<b>"},
    ],
)
def test_values_outside_the_character_sets_are_ignored(env):
    url = rules_url(env)
    if url is not None:  # a bad ref falls back to the default branch, never into the link
        assert url == "https://github.com/org/perfbot/blob/HEAD/docs/rules.md"
    link = f"[x]({rule_url('PB401', 'img-s-mismatch', env)})"
    assert "evil" not in link and "<" not in link and "javascript" not in link


def test_the_explicit_pair_wins_and_the_server_is_the_runners():
    env = {
        **ACTION,
        "PERFBOT_ACTION_REPOSITORY": "fork/perfbot",
        "PERFBOT_ACTION_REF": "0123abc",
        "GITHUB_SERVER_URL": "https://ghe.example.com",
    }
    assert rules_url(env) == "https://ghe.example.com/fork/perfbot/blob/0123abc/docs/rules.md"
    default_branch = rules_url({"GITHUB_ACTION_REPOSITORY": "org/perfbot"})
    assert default_branch == "https://github.com/org/perfbot/blob/HEAD/docs/rules.md"
    assert rules_url({}) is None and rule_url("PB401", "img-s-mismatch", {}) is None


def test_the_schema_names_no_placeholder():
    from perfbot.config_view import SCHEMA_FILE, schema_text

    assert "OWNER" not in schema_text() and "OWNER" not in SCHEMA_FILE.read_text(encoding="utf-8")
