"""`perfbot report` takes the `rerun:` policy from the default branch, never from the base branch
that the pull request's author picked."""

from test_report import BASE_README, HEAD_CONFIG, PATH, README, post, posting, result

__all__ = ["posting"]  # the fixture


def test_push_is_read_on_the_default_branch_not_the_base_branch(posting, tmp_path):
    fake = posting
    fake.set_contents("main", ".perfbot.yml", "rerun: {push: false}\n")
    pr = fake.add_pull(
        changes={PATH: (BASE_README, README)},
        contents={".perfbot.yml": HEAD_CONFIG},
        base_ref="release",
    )
    fake.set_contents("release", ".perfbot.yml", "rerun: {push: true}\n")
    assert post(tmp_path, pr, result()) == 0
    assert fake.contents_commits == [] and len(fake.review_comments) == 1
    reads = [r.query.get("ref") for r in fake.calls("GET", "/contents/.perfbot.yml")]
    assert "release" not in reads and "main" in reads
