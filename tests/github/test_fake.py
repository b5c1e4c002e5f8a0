"""The GitHub fake, exercised through PyGithub itself, and the webhook payload fixtures."""

import json

import github
import pytest
import requests

from github_fake import EVENTS_DIR, GitHubFake, PRFile, load_event, validate_model, validate_webhook

README = "configs/dit/README.md"
OLD = (
    "# DiT\n\n## Performance\n\n"
    "| model name | cards | s/step |\n|---|---|---|\n| dit | 1 | 0.89 |\n\n"
    + "".join(f"Paragraph {i}.\n" for i in range(20))
    + "\n## Requirements\n\n| mindspore |\n|---|\n| 2.3.0 |\n"
)
NEW = OLD.replace("| dit | 1 | 0.89 |\n", "| dit | 1 | 0.89 |\n| dit | 8 | 0.93 |\n").replace(
    "| 2.3.0 |", "| 2.3.1 |"
)
# NEW's lines: 5-8 the performance table (8 added), 33-35 the requirements table (35 changed).
# Hunks: new lines 5-11 and 32-35 (old 31-34, 34 deleted).


@pytest.fixture
def pr(gh):
    return gh.add_pull(changes={README: (OLD, NEW)})


@pytest.fixture
def pull(gh, pr):
    return gh.client().get_repo(gh.repo).get_pull(pr.number)


def _comment(line, body="Fix this row.", **kw):
    return {"path": README, "line": line, "body": body, **kw}


def test_world_as_pygithub_sees_it(gh, pr, pull):
    assert pull.number == 1 and pull.head.sha == pr.head_sha and pull.base.ref == "main"
    assert pull.head.repo.full_name == "org/models" and not pull.head.repo.fork
    (f,) = pull.get_files()
    assert (f.filename, f.status, f.additions, f.deletions) == (README, "modified", 2, 1)
    assert f.patch.startswith("@@ -5,6 +5,7 @@\n")
    content = pull.base.repo.get_contents(README, ref=pull.head.sha)
    assert content.decoded_content.decode() == NEW
    base = pull.base.repo.get_contents(README, ref=pull.base.sha)
    assert base.decoded_content.decode() == OLD
    assert gh.unhandled == [] and gh.schema_errors == []


def test_create_review_with_single_and_multi_line_comments(gh, pull):
    suggestion = "```suggestion\n| dit | 8 | 0.93 |\n```"
    review = pull.create_review(
        commit=pull.base.repo.get_commit(pull.head.sha),
        body="perfbot found 2 problems.",
        event="COMMENT",
        comments=[_comment(8, suggestion), _comment(35, start_line=33, side="RIGHT")],
    )
    assert review.state == "COMMENTED" and review.commit_id == pull.head.sha
    comments = list(pull.get_review_comments())
    assert [(c.line, c.start_line, c.side, c.start_side) for c in comments] == [
        (8, None, "RIGHT", None),
        (35, 33, "RIGHT", "RIGHT"),
    ]
    assert comments[0].diff_hunk.splitlines()[-1] == "+| dit | 8 | 0.93 |"
    assert comments[0].pull_request_review_id == review.id
    assert comments[0].user.login == "github-actions[bot]"
    assert len(gh.reviews) == 1 and gh.schema_errors == []


@pytest.mark.parametrize(
    ("comment", "message"),
    [
        (_comment(20), "Pull request review thread line must be part of the diff"),
        (_comment(1), "Pull request review thread line must be part of the diff"),
        (
            _comment(8, start_line=8),
            "pull_request_review_thread.start_line must precede the end line.",
        ),
        (
            _comment(33, start_line=8),
            "Pull request review thread start line must be part of the same hunk as the line.",
        ),
        ({"path": "configs/vit/README.md", "line": 8, "body": "x"}, "Path could not be resolved"),
    ],
)
def test_review_on_a_line_github_would_refuse_is_422_and_posts_nothing(gh, pull, comment, message):
    with pytest.raises(github.GithubException) as err:
        pull.create_review(body="x", event="COMMENT", comments=[_comment(8), comment])
    assert err.value.status == 422
    assert err.value.data["message"] == "Unprocessable Entity"
    assert message in err.value.data["errors"][0]
    assert validate_model("ValidationErrorSimple", err.value.data, forbid_unknown=False) == []
    assert gh.reviews == [] and gh.review_comments == []  # a review is all or nothing
    assert gh.schema_errors == []


def test_legacy_position_comments(gh, pull):
    pull.create_review(event="COMMENT", comments=[{"path": README, "position": 4, "body": "x"}])
    assert (gh.review_comments[0]["line"], gh.review_comments[0]["position"]) == (8, 4)
    # position 8 is the second hunk's "@@" line: counted, but not a line one can comment on
    with pytest.raises(github.GithubException) as err:
        pull.create_review(event="COMMENT", comments=[{"path": README, "position": 8, "body": "x"}])
    assert err.value.status == 422


def test_file_without_patch_takes_no_comment(gh):
    gh.add_pull(files=[PRFile("docs/arch.png", None, "added")])
    pull = gh.client().get_repo(gh.repo).get_pull(1)
    with pytest.raises(github.GithubException) as err:
        pull.create_review(
            body="x", event="COMMENT", comments=[{"path": "docs/arch.png", "line": 1, "body": "x"}]
        )
    assert "diff hunk can't be blank" in err.value.data["errors"][0]


def test_left_side_comment_on_a_deleted_line(gh, pull):
    pull.create_review(event="COMMENT", comments=[_comment(34, side="LEFT")])
    (c,) = gh.review_comments
    assert (c["line"], c["side"]) == (34, "LEFT")
    assert c["diff_hunk"].endswith("\n-| 2.3.0 |")


def test_bodies_over_65536_characters_are_refused(gh, pull):
    with pytest.raises(github.GithubException) as err:
        pull.create_issue_comment("x" * 65537)
    assert err.value.status == 422
    (e,) = err.value.data["errors"]
    assert e == {
        "resource": "IssueComment",
        "code": "custom",
        "field": "body",
        "message": "body is too long (maximum is 65536 characters)",
    }
    assert validate_model("ValidationError", err.value.data, forbid_unknown=False) == []
    with pytest.raises(github.GithubException):
        pull.create_review(body="ok", event="COMMENT", comments=[_comment(8, "y" * 65537)])
    pull.create_issue_comment("x" * 65536)
    assert len(gh.issue_comments) == 1 and gh.reviews == []


def test_read_only_token_cannot_write(gh, pr):
    gh.add_issue_comment(pr.number, "earlier", user="github-actions[bot]")
    pull = gh.client(gh.READ_TOKEN).get_repo(gh.repo).get_pull(pr.number)
    assert pull.title == "Update README"  # reading is fine
    (comment,) = pull.get_issue_comments()
    attempts = [
        lambda: pull.create_review(body="x", event="COMMENT", comments=[_comment(8)]),
        lambda: pull.create_issue_comment("x"),
        lambda: comment.edit("y"),
        lambda: comment.create_reaction("eyes"),
    ]
    for attempt in attempts:
        with pytest.raises(github.GithubException) as err:
            attempt()
        assert err.value.status == 403
        assert err.value.data["message"] == "Resource not accessible by integration"
    (post,) = gh.calls("POST", "/reviews")
    assert post.response_headers["X-Accepted-GitHub-Permissions"] == "pull_requests=write"
    with pytest.raises(github.GithubException):
        comment.minimize()
    assert gh.reviews == [] and gh.minimized == []
    assert [c["body"] for c in gh.issue_comments] == ["earlier"]


def test_unknown_token_and_anonymous_writes(gh, pr):
    with pytest.raises(github.BadCredentialsException):
        gh.client("ghp_nope").get_repo(gh.repo)
    anon = gh.client(None).get_repo(gh.repo).get_pull(pr.number)
    with pytest.raises(github.GithubException) as err:
        anon.create_issue_comment("x")
    assert err.value.status == 401


def test_pagination_of_250_files(gh):
    files = {f"configs/m{i:03}/README.md": "@@ -1 +1 @@\n-a\n+b" for i in range(250)}
    gh.add_pull(files=files)
    pull = gh.client(per_page=100).get_repo(gh.repo).get_pull(1)
    names = [f.filename for f in pull.get_files()]
    assert names == list(files)
    pages = gh.calls("GET", "/pulls/1/files")
    assert [r.query.get("page", "1") for r in pages] == ["1", "2", "3"]
    assert all(r.query["per_page"] == "100" for r in pages)
    first = requests.get(
        f"{gh.api_url}/repos/org/models/pulls/1/files",
        params={"per_page": 100},
        headers={"Authorization": f"token {gh.WRITE_TOKEN}"},
    )
    assert len(first.json()) == 100
    assert first.links["next"]["url"].endswith("per_page=100&page=2")
    assert first.links["last"]["url"].endswith("per_page=100&page=3")
    # GitHub's default page size is 30.
    assert len(list(gh.client().get_repo(gh.repo).get_pull(1).get_files())) == 250
    assert len(gh.calls("GET", "/pulls/1/files")) == 3 + 1 + 9


def test_schema_rejects_a_wrong_field_type(gh, pull):
    with pytest.raises(github.GithubException) as err:
        pull.create_review(body="x", event="COMMENT", comments=[_comment("8")])
    assert err.value.status == 422
    assert err.value.data["message"].startswith("Invalid request.")
    (v,) = gh.schema_errors
    assert v.model == "ReposOwnerRepoPullsPullNumberReviewsPostBody"
    assert v.errors == ["comments[0].line: Input should be a valid integer (got '8')"]
    assert gh.reviews == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"event": "comment"}, "event: Input should be 'APPROVE', 'REQUEST_CHANGES' or 'COMMENT'"),
        (
            {"event": "COMMENT", "comments": [{"path": README, "line": 8}]},
            "comments[0].body: Field required",
        ),
        (
            {"event": "COMMENT", "comments": [{**_comment(8), "start_lines": 7}]},
            "comments[0].start_lines: is not a field",
        ),
    ],
)
def test_schema_errors_are_recorded(gh, pr, body, expected):
    r = requests.post(
        f"{gh.api_url}/repos/org/models/pulls/{pr.number}/reviews",
        json=body,
        headers={"Authorization": f"Bearer {gh.WRITE_TOKEN}"},
    )
    assert r.status_code == 422
    (v,) = gh.schema_errors
    assert any(e.startswith(expected) for e in v.errors), v.errors


def test_reaction_content_is_checked_and_repeats_answer_200(gh, pull):
    comment = pull.create_issue_comment("/perfbot fix")
    assert comment.create_reaction("eyes").content == "eyes"
    assert comment.create_reaction("eyes").id == gh.reactions[0]["id"]
    statuses = [r.status for r in gh.calls("POST", "/reactions")]
    assert statuses == [201, 200]
    with pytest.raises(github.GithubException):
        comment.create_reaction("thumbs_up")
    assert gh.schema_errors[0].model == "ReposOwnerRepoIssuesCommentsCommentIdReactionsPostBody"


def test_retry_after_failure_injection(gh, pull):
    gh.fail_next("POST", "/reviews", status=502, times=1, headers={"Retry-After": "1"})
    with pytest.raises(github.GithubException) as err:
        pull.create_review(body="x", event="COMMENT", comments=[_comment(8)])
    assert err.value.status == 502
    assert err.value.headers["retry-after"] == "1"
    assert gh.reviews == []
    pull.create_review(body="x", event="COMMENT", comments=[_comment(8)])
    assert len(gh.reviews) == 1


def test_pygithub_retries_transparently_with_its_default_retry(gh, pr):
    gh.fail_next("POST", "/reviews", status=502, headers={"Retry-After": "1"})
    pull = gh.client(retry=github.GithubRetry(total=3)).get_repo(gh.repo).get_pull(pr.number)
    pull.create_review(body="x", event="COMMENT", comments=[_comment(8)])
    assert [r.status for r in gh.calls("POST", "/reviews")] == [502, 200]
    assert len(gh.reviews) == 1


def test_a_lost_answer_still_posts(gh, pull):
    gh.fail_next("POST", "/comments", status=504, after=True)
    with pytest.raises(github.GithubException):
        pull.create_issue_comment("hello")
    assert [c["body"] for c in gh.issue_comments] == ["hello"]  # a blind retry would repeat it


def test_review_and_issue_comments_can_be_listed_and_edited(gh, pr, pull):
    for i in range(35):
        gh.add_issue_comment(pr.number, f"comment {i}")
    pull.create_review(body="x", event="COMMENT", comments=[_comment(8, "old")])
    (rc,) = pull.get_review_comments()
    rc.edit("new")
    assert gh.review_comments[0]["body"] == "new"
    comments = list(pull.get_issue_comments())
    assert len(comments) == 35
    comments[-1].edit("edited")
    assert gh.issue_comments[-1]["body"] == "edited"
    assert gh.issue_comments[-1]["updated_at"] > gh.issue_comments[-1]["created_at"]
    assert gh.schema_errors == []


def test_minimize_comment_is_recorded(gh, pr, pull):
    c = gh.add_issue_comment(pr.number, "stale summary", user="github-actions[bot]")
    (comment,) = pull.get_issue_comments()
    assert comment.minimize(reason="OUTDATED") is True
    assert gh.minimized == [{"node_id": c["node_id"], "id": c["id"], "classifier": "OUTDATED"}]
    assert gh.graphql_calls[0]["operation"] == "minimizeComment"
    with pytest.raises(github.GithubException):
        comment.minimize(reason="OLD")
    assert gh.schema_errors[-1].model == "GraphQL MinimizeCommentInput"


def test_collaborator_permissions(gh):
    gh.set_permission("alice", "maintain")
    repo = gh.client().get_repo(gh.repo)
    assert repo.get_collaborator_permission("alice") == "write"
    assert repo.get_collaborator_permission("stranger") == "read"
    assert repo.get_collaborator_permission("org") == "admin"
    r = requests.get(f"{gh.api_url}/repos/org/models/collaborators/alice/permission").json()
    assert r["role_name"] == "maintain" and r["user"]["permissions"]["maintain"] is True


def test_fork_pull_request_and_its_contents(gh):
    pr = gh.add_pull(changes={README: (OLD, NEW)}, fork="contributor")
    pull = gh.client(gh.READ_TOKEN).get_repo(gh.repo).get_pull(pr.number)
    assert pull.head.repo.full_name == "contributor/models" and pull.head.repo.fork
    assert pull.user.login == "contributor" and pull.head.label == "contributor:update-readme"
    fork = gh.client().get_repo("contributor/models")
    assert fork.parent.full_name == "org/models"
    assert pull.base.repo.get_contents(README, ref=pull.head.sha).decoded_content == NEW.encode()
    with pytest.raises(github.UnknownObjectException):
        pull.base.repo.get_contents("missing.md", ref=pull.head.sha)


def test_push_makes_comments_on_changed_files_outdated(gh, pr, pull):
    pull.create_review(body="x", event="COMMENT", comments=[_comment(8)])
    new_head = gh.push(pr.number, changes={README: NEW.replace("0.93", "0.95")})
    assert gh.client().get_repo(gh.repo).get_pull(pr.number).head.sha == new_head
    (c,) = gh.comments_on(pr.number)
    assert (c["line"], c["original_line"], c["position"]) == (None, 8, None)
    with pytest.raises(github.GithubException):  # the old head is gone from the diff view
        pull.create_review(body="x", event="COMMENT", comments=[_comment(40)])


def test_bot_token_cannot_read_the_authenticated_user(gh):
    with pytest.raises(github.GithubException) as err:
        gh.client().get_user().login  # noqa: B018
    assert err.value.status == 403
    gh.add_token("ghp_alice", login="alice")
    assert gh.client("ghp_alice").get_user().login == "alice"


def test_unknown_endpoints_are_404_and_logged(gh):
    r = requests.get(f"{gh.api_url}/repos/org/models/releases")
    assert r.status_code == 404
    assert [u.path for u in gh.unhandled] == ["/repos/org/models/releases"]


def test_github_enterprise_urls():
    with GitHubFake(api_url="https://ghe.example.com/api/v3") as fake:
        pr = fake.add_pull(changes={README: (OLD, NEW)})
        fake.add_issue_comment(pr.number, "hi")
        pull = fake.client().get_repo(fake.repo).get_pull(pr.number)
        assert pull.html_url == "https://ghe.example.com/org/models/pull/1"
        (comment,) = pull.get_issue_comments()
        assert comment.minimize()
        assert fake.graphql_url == "https://ghe.example.com/api/graphql"
        assert fake.env()["GITHUB_GRAPHQL_URL"] == fake.graphql_url


def test_responses_match_githubkit_response_models(gh, pr, pull):
    # Responses may carry fields the latest schema dropped (merge_commit_sha, "status" of errors):
    # GitHub sends them under 2022-11-28, so only the schema's own fields are checked.
    gh.set_permission("alice", "write")
    pull.create_review(body="x", event="COMMENT", comments=[_comment(8)])
    comment = pull.create_issue_comment("hello")
    comment.create_reaction("+1")
    pull.base.repo.get_contents(README, ref=pull.head.sha)
    pull.base.repo.get_commit(pull.head.sha)
    pull.base.repo.get_collaborator_permission("alice")
    list(pull.get_review_comments())
    list(pull.get_issue_comments())
    list(pull.get_files())
    models = {
        ("GET", "/repos/org/models"): "FullRepository",
        ("GET", "/pulls/1"): "PullRequest",
        ("POST", "/pulls/1/reviews"): "PullRequestReview",
        ("POST", "/issues/1/comments"): "IssueComment",
        ("POST", "/reactions"): "Reaction",
        ("GET", f"/contents/{README}"): "ContentFile",
        ("GET", f"/commits/{pull.head.sha}"): "Commit",
        ("GET", "/collaborators/alice/permission"): "RepositoryCollaboratorPermission",
    }
    lists = {
        ("GET", "/pulls/1/comments"): "PullRequestReviewComment",
        ("GET", "/issues/1/comments"): "IssueComment",
        ("GET", "/pulls/1/files"): "DiffEntry",
    }
    checked = 0
    for (method, path), model in models.items():
        for r in gh.calls(method, path):
            assert validate_model(model, r.response, forbid_unknown=False) == [], (path, model)
            checked += 1
    for (method, path), model in lists.items():
        for r in gh.calls(method, path):
            assert r.response, path
            for item in r.response:
                assert validate_model(model, item, forbid_unknown=False) == [], (path, model)
            checked += 1
    assert checked >= len(models) + len(lists)


# ---- webhook payload fixtures ------------------------------------------------------------------

EVENTS = {
    "pull_request_opened": "pull_request",
    "pull_request_synchronize": "pull_request",
    "pull_request_opened_fork": "pull_request",
    "pull_request_synchronize_fork": "pull_request",
    "issue_comment_created": "issue_comment",
    "issue_comment_edited": "issue_comment",
    "issue_comment_created_bot": "issue_comment",
    "issue_comment_edited_bot": "issue_comment",
}


def test_every_fixture_is_listed():
    assert {p.stem for p in EVENTS_DIR.glob("*.json")} == set(EVENTS)


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_event_fixture_is_valid_for_githubkit_webhook_models(name):
    payload = load_event(name)
    assert validate_webhook(EVENTS[name], payload) == []


def test_event_fixtures_say_what_they_are():
    same, fork = load_event("pull_request_opened"), load_event("pull_request_opened_fork")
    assert same["pull_request"]["head"]["repo"]["full_name"] == same["repository"]["full_name"]
    assert fork["pull_request"]["head"]["repo"]["fork"] is True
    assert fork["pull_request"]["head"]["repo"]["full_name"] != fork["repository"]["full_name"]
    sync = load_event("pull_request_synchronize_fork")
    assert sync["after"] == sync["pull_request"]["head"]["sha"] != sync["before"]
    user, bot = load_event("issue_comment_created"), load_event("issue_comment_created_bot")
    assert user["issue"]["pull_request"]["url"].endswith("/pulls/1")
    assert (user["sender"]["type"], bot["sender"]["type"]) == ("User", "Bot")
    assert "changes" in load_event("issue_comment_edited")


def test_a_broken_payload_is_caught():
    payload = load_event("pull_request_opened")
    payload["pull_request"]["number"] = "1"
    del payload["sender"]["login"]
    errors = validate_webhook("pull_request", payload)
    assert any(e.startswith("pull_request.number") for e in errors)
    assert any(e.startswith("sender.login: Field required") for e in errors)
    assert json.loads(json.dumps(payload))  # plain JSON
