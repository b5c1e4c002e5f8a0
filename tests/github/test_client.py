"""perfbot.github.client against the GitHub fake: requests, pages, errors, retries."""

import pytest

from github_fake import GitHubFake, PRFile
from perfbot.github.client import (
    Client,
    GitHubError,
    NetworkError,
    ReadOnlyError,
    graphql_url_for,
)

README = "configs/toynet/README.md"
OLD = "# ToyNet\n\n| model name | cards |\n|---|---|\n| toy | 1 |\n"
NEW = OLD.replace("| toy | 1 |", "| toy | 8 |")


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    monkeypatch.setattr(Client, "write_interval", None)


@pytest.fixture
def pr(gh):
    return gh.add_pull(changes={README: (OLD, NEW)})


def client(gh, token=GitHubFake.WRITE_TOKEN, **kw):
    return Client(gh.repo, token, gh.api_url, **kw)


def test_pull_and_files_are_one_request_each(gh, pr):
    c = client(gh)
    pull = c.pull(pr.number)
    assert pull["head"]["sha"] == pr.head_sha and pull["head"]["repo"]["full_name"] == gh.repo
    files = c.pull_files(pr.number)
    assert [f["filename"] for f in files] == [README] and files[0]["patch"].startswith("@@")
    assert c.requests_made == 2 == len(gh.requests)
    assert gh.requests[1].query["per_page"] == "100"


def test_files_follow_every_page(gh):
    files = [PRFile(f"src/m{i}.py", "@@ -1 +1 @@\n-a\n+b") for i in range(250)]
    pr = gh.add_pull(files=files)
    c = client(gh)
    got = c.pull_files(pr.number)
    assert [f["filename"] for f in got] == [f.filename for f in files]
    assert c.requests_made == 3 == len(gh.calls("GET", "/files"))


def test_file_content_at_a_sha(gh, pr):
    c = client(gh)
    assert c.file_content(README, pr.head_sha) == NEW.encode()
    assert c.file_content(README, pr.base_sha) == OLD.encode()
    with pytest.raises(GitHubError) as err:
        c.file_content("missing.md", pr.head_sha)
    assert err.value.status == 404 and not isinstance(err.value, ReadOnlyError)


def test_write_methods_and_their_bodies_follow_the_schema(gh, pr):
    c = client(gh)
    rv = c.create_review(
        pr.number,
        pr.head_sha,
        "review body",
        [{"path": README, "line": 5, "side": "RIGHT", "body": "fix"}],
    )
    assert rv["state"] == "COMMENTED" and rv["commit_id"] == pr.head_sha
    (rc,) = c.review_comments(pr.number)
    c.edit_review_comment(rc["id"], "edited")
    ic = c.create_issue_comment(pr.number, "summary")
    c.edit_issue_comment(ic["id"], "summary 2")
    assert c.minimize_comment(ic["node_id"], "OUTDATED") is True
    c.add_reaction(ic["id"], "eyes")
    c.add_reaction(rc["id"], "+1", review_comment=True)
    assert [x["body"] for x in c.issue_comments(pr.number)] == ["summary 2"]
    assert [x["body"] for x in c.review_comments(pr.number)] == ["edited"]
    assert len(c.reviews(pr.number)) == 1
    assert gh.minimized[0]["classifier"] == "OUTDATED"
    assert gh.schema_errors == [] and gh.unhandled == []
    assert c.requests_made == len(gh.requests)


def test_bad_arguments_are_refused_before_any_request(gh, pr):
    c = client(gh)
    with pytest.raises(ValueError):
        c.minimize_comment("X", "OLD")
    with pytest.raises(ValueError):
        c.add_reaction(1, "thumbs_up")
    assert gh.requests == []


def test_permission_and_whoami(gh):
    gh.set_permission("alice", "maintain")
    c = client(gh)
    assert c.permission("alice") == "maintain"
    assert c.permission("stranger") == "read"
    assert c.whoami() is None  # GITHUB_TOKEN may not read /user
    gh.add_token("ghp_alice", login="alice")
    assert client(gh, "ghp_alice").whoami() == "alice"


def test_a_read_only_token_gets_read_only_error_on_writes(gh, pr):
    c = client(gh, GitHubFake.READ_TOKEN)
    assert c.pull_files(pr.number)  # reading is fine
    with pytest.raises(ReadOnlyError) as err:
        c.create_issue_comment(pr.number, "hello")
    assert err.value.status == 403 and "not accessible" in err.value.message
    ic = gh.add_issue_comment(pr.number, "x", user="github-actions[bot]")
    with pytest.raises(ReadOnlyError):
        c.minimize_comment(ic["node_id"])


def test_422_carries_github_details(gh, pr):
    c = client(gh)
    with pytest.raises(GitHubError) as err:
        c.create_review(pr.number, pr.head_sha, "x", [{"path": README, "line": 1, "body": "x"}])
    assert err.value.status == 422
    assert "must be part of the diff" in err.value.message
    assert "HTTP 422" in str(err.value)


def test_5xx_on_a_get_is_retried(gh, pr):
    gh.fail_next("GET", "/files", 502, times=2)
    c = client(gh)
    assert c.pull_files(pr.number)
    assert [r.status for r in gh.calls("GET", "/files")] == [502, 502, 200]
    assert c.requests_made == 1  # one call, PyGithub retried it


def test_5xx_on_a_post_is_left_to_the_caller(gh, pr):
    # GitHub may have carried the POST out: a blind retry could post twice
    gh.fail_next("POST", "/comments", 504, after=True)
    c = client(gh)
    with pytest.raises(GitHubError) as err:
        c.create_issue_comment(pr.number, "hello")
    assert err.value.status == 504
    assert [x["body"] for x in gh.issue_comments] == ["hello"]


def test_secondary_rate_limit_on_a_post_waits_and_retries(gh, pr):
    gh.fail_next("POST", "/comments", 403, headers={"Retry-After": "0"})
    c = client(gh)
    c.create_issue_comment(pr.number, "hello")
    assert [r.status for r in gh.calls("POST", "/comments")] == [403, 201]
    assert len(gh.issue_comments) == 1


def test_retries_end(gh, pr):
    gh.fail_next("GET", "/files", 503, times=10)
    c = client(gh, retries=2)
    with pytest.raises(GitHubError) as err:
        c.pull_files(pr.number)
    assert err.value.status == 503
    assert len(gh.calls("GET", "/files")) == 3


def test_network_errors_are_network_error(gh):
    c = Client("org/models", "t", "https://unreachable.example/api/v3")
    with pytest.raises(NetworkError) as err:
        c.pull(1)
    assert err.value.status == 0
    assert "cannot reach GitHub at unreachable.example" in str(err.value)
    assert "\n" not in str(err.value)


def test_github_enterprise():
    assert (
        graphql_url_for("https://ghe.example.com/api/v3") == "https://ghe.example.com/api/graphql"
    )
    assert graphql_url_for("https://api.github.com") == "https://api.github.com/graphql"
    with GitHubFake(api_url="https://ghe.example.com/api/v3") as fake:
        pr = fake.add_pull(changes={README: (OLD, NEW)})
        c = Client(fake.repo, fake.WRITE_TOKEN, fake.api_url)
        assert c.graphql_url == fake.graphql_url
        ic = c.create_issue_comment(pr.number, "x")
        assert c.minimize_comment(ic["node_id"], "RESOLVED")
        assert [f["filename"] for f in c.pull_files(pr.number)] == [README]
        assert fake.unhandled == [] and fake.schema_errors == []
