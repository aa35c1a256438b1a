"""README "中文界面": the catalog covers every marked line and help text, the language choice, the
edge."""

import gettext
import importlib.util
import json
from pathlib import Path

import pytest

from planner.base import i18n

ROOT = Path(__file__).resolve().parent.parent.parent
PARTS = ROOT / "po" / "zh"
# Typer's and Click's own messages: Typer marks some with its own `_` (planner gives it `lookup`),
# and planner/cli/click_words.py reads Click's finished sentences by their forms.
OUTSIDE_PARTS = {"click.po"}


def _po_module(name: str):
    spec = importlib.util.spec_from_file_location(f"po_{name}", ROOT / "po" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build_module():
    return _po_module("build")


# The extraction the catalog is checked against is po/extract.py's own.
_extract = _po_module("extract")
marked_messages, help_texts = _extract.marked_messages, _extract.help_texts


@pytest.fixture(scope="module")
def catalog():
    """The merged catalog of every po/zh part, as Babel reads it."""
    return _build_module().merged()


def test_every_marked_message_is_a_literal():
    _found, problems = marked_messages()
    assert problems == []


def _translated(string) -> bool:
    # A plural entry's string is a tuple, one per plural form.
    return all(string) if isinstance(string, tuple) else bool(string)


def test_every_message_and_help_text_has_a_translation(catalog):
    found, _problems = marked_messages()
    wanted = {**help_texts(), **found}
    missing = [f"{where}: {message!r}" for message, where in wanted.items()
               if message not in catalog or not _translated(catalog[message].string)]
    assert missing == [], f"{len(missing)} lines lack a translation in po/zh/*.po"


def test_translations_keep_their_placeholders(catalog):
    wrong = []
    for message in catalog:
        if not message.id:
            continue
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        targets = message.string if isinstance(message.string, tuple) else (message.string,)
        for target in targets:
            if target and placeholders(target) != placeholders(sources[-1]):
                wrong.append(f"{sources[0]!r} -> {target!r}")
    assert wrong == []


def test_templates_have_words_of_their_own(catalog):
    """A template says something of its own: not a lone placeholder, and no two placeholders
    touching (a translator could not tell where one ends)."""
    bad = [message.id for message in catalog
           if isinstance(message.id, str) and message.id
           and ("{{" in message.id or "}{" in message.id
                or i18n.PLACEHOLDER.fullmatch(message.id.strip()))]
    assert bad == []


def test_catalog_holds_no_line_that_no_code_uses(catalog):
    found, _problems = marked_messages()
    used = {**help_texts(), **found}
    outside = set()
    for part in OUTSIDE_PARTS:
        if (PARTS / part).exists():
            from babel.messages.pofile import read_po

            with (PARTS / part).open("rb") as stream:
                outside |= {message.id for message in read_po(stream) if message.id}
    stale = [message.id for message in catalog
             if message.id and message.id not in used and message.id not in outside
             and not isinstance(message.id, tuple)]
    assert stale == []
    # A line with a plural: the catalog's pair is the code's (nt(), n_()).
    plurals = [message.id for message in catalog if isinstance(message.id, tuple)
               and message.id not in outside]
    assert sorted(plurals) == sorted(_extract.PLURALS.items())


def test_the_compiled_catalog_is_the_current_one(catalog):
    """planner/locale holds what po/zh/*.po say (make rebuilds it; so does every install)."""
    mo = ROOT / "planner" / "locale" / "zh" / "LC_MESSAGES" / "planner.mo"
    with mo.open("rb") as stream:
        compiled = gettext.GNUTranslations(stream)
    for message in catalog:
        if message.id and not isinstance(message.id, tuple):
            assert compiled.gettext(message.id) == message.string, \
                f"{mo} is older than po/zh: run make (or pip install .)"
        elif message.id:
            assert compiled.ngettext(*message.id, 2) == message.string[0], \
                f"{mo} is older than po/zh: run make (or pip install .)"


@pytest.mark.parametrize(("environment", "language"), [
    ({}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "zh_TW.UTF-8"}, "zh"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "en"),
    ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
    ({"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, "zh"),
    ({"LANGUAGE": "en:zh_CN", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LANGUAGE": "fr:zh", "LANG": "en_US.UTF-8"}, "zh"),
    ({"LANGUAGE": "", "LANG": "zh_CN.UTF-8"}, "zh"),
])
def test_auto_follows_the_environment_as_gettext_does(environment, language):
    assert i18n.choose("auto", environment) == language


def test_config_language_wins_over_the_environment():
    assert i18n.choose("en", {"LANG": "zh_CN.UTF-8"}) == "en"
    assert i18n.choose("zh", {"LANG": "en_US.UTF-8"}) == "zh"


def test_recorded_lines_are_english_and_translated_where_shown():
    line = i18n.t("Error: {message}", message=i18n.t("in {days} days", days="1,000"))
    assert line == "Error: in 1,000 days"
    i18n.install("zh")
    try:
        assert i18n.t("Error: {message}", message="x") == "Error: x"
        # Said from its template; its value, a program line itself, is said in Chinese too.
        assert i18n.shown(line) == "错误：1,000 天后"
        # A value that is data stays as it is, even when it reads like a program line.
        assert i18n.shown(i18n.t("Error: {message}", message="in 1,000 days")) == \
            "错误：in 1,000 days"
        # No line is recognised by its words: only a catalog line said whole is translated.
        assert i18n.shown("Error: in 1,000 days") == "Error: in 1,000 days"
        assert i18n.shown("not a program line") == "not a program line"
        # Data that is a catalog line word for word stays data; the program's own is said.
        assert i18n.shown("Tuesday") == "Tuesday"
        assert i18n.shown(i18n.N_("Tuesday")) == "星期二"
    finally:
        i18n.install("en")


def test_a_line_keeps_its_template_through_str_and_errors():
    line = i18n.t("in {days} days", days=3)
    assert type(str(ValueError(line))) is i18n.Message
    assert str(ValueError(line)).template == "in {days} days"
    # Joined into other text it is plain English again (and so shown in English).
    assert type(f"{line}!") is str


def test_records_keep_a_line_to_say_it_again():
    line = i18n.t("Error: {message}", message=i18n.t("in {days} days", days=1000))
    data = i18n.encoded(line)
    assert data == {"template": "Error: {message}",
                    "values": {"message": {"template": "in {days} days",
                                           "values": {"days": 1000}}}}
    i18n.install("zh")
    try:
        with i18n.recorded({str(line): data}):
            assert i18n.shown("Error: in 1000 days") == "错误：1000 天后"
        assert i18n.shown("Error: in 1000 days") == "Error: in 1000 days"
        # A records file is untrusted: a template not in the catalog, a value that is not
        # text or a number, or words that do not come out again are shown as recorded.
        for bad in ({"template": "{0.__class__}", "values": {}},
                    {"template": "in {days} days", "values": {"days": [1]}},
                    {"template": "in {days} days", "values": {"days": 7}}):
            with i18n.recorded({"Error: in 1000 days": bad, "in 1000 days": bad}):
                assert i18n.shown("in 1000 days") == "in 1000 days"
        deep: dict = {"template": "in {days} days", "values": {"days": 1}}
        for _level in range(20):
            deep = {"template": "Error: {message}", "values": {"message": deep}}
        assert i18n.decoded(deep) is None
    finally:
        i18n.install("en")
    assert i18n.shown(line) == line and i18n.language() == "en"


def test_clicks_own_sentences_are_read_by_their_forms():
    from planner.cli.click_words import said

    line = said("Invalid value for '--days': 'x' is not a valid int.")
    assert isinstance(line, i18n.Message)
    assert line.template == "Invalid value for {param}: {message}"
    assert line.values["message"].template == "{value} is not a valid int."
    i18n.install("zh")
    try:
        assert i18n.shown(line) == "'--days' 的值无效：'x' 不是有效的整数。"
    finally:
        i18n.install("en")
    assert said("not one of Click's sentences") == "not one of Click's sentences"
    assert type(said("No such option: " + "x" * 5000)) is str  # too long to read: as it is


def placeholders(text: str) -> list[str]:
    """The placeholder names in `text`, sorted (a translation must keep the source's)."""
    return sorted(set(i18n.PLACEHOLDER.findall(text.replace("{{", "").replace("}}", ""))))


def test_the_catalog_is_extracted_from_the_source(tmp_path):
    """README "中文界面": po/extract.py writes every marked line with where it is written."""
    import subprocess
    import sys

    from babel.messages.pofile import read_po

    target = tmp_path / "planner.pot"
    done = subprocess.run([sys.executable, str(ROOT / "po" / "extract.py"), str(target)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    with target.open("rb") as stream:
        # A line with a plural is held under its singular.
        extracted = {message.id[0] if isinstance(message.id, tuple) else message.id:
                     message.locations for message in read_po(stream) if message.id}
    found, _problems = marked_messages()
    assert set(found) <= set(extracted)
    assert extracted["{log} line {number} cannot be read ({reason}); skipped"] == \
        [("planner/memory/log.py", int(found["{log} line {number} cannot be read ({reason}); "
                                           "skipped"].split(":")[1]))]


@pytest.mark.slow
def test_mypy_refuses_text_cut_from_or_added_to_a_program_line(tmp_path: Path,
                                                                monkeypatch) -> None:
    # A line made of lines is a template of its own: `+` or `partition` on a t() line gives
    # plain text, shown in English on a Chinese screen, so the type checker fails it.
    from mypy import api

    monkeypatch.chdir(ROOT)  # where mypy finds planner's modules
    module = tmp_path / "lines.py"
    module.write_text(
        "from planner.base.i18n import Message, t\n\n\n"
        "def joined(field: str) -> str:\n"
        "    return t('session {number}', number=1) + ' ' + field\n\n\n"
        "def cut(key: str) -> str:\n"
        "    return t('repeats the key {key}', key=key).partition(' ')[2]\n\n\n"
        "def template(field: str) -> Message:\n"
        "    return t('{prefix} {field}', prefix=t('session {number}', number=1), field=field)\n",
        encoding="utf-8")
    report, _errors, status = api.run([
        "--no-incremental", "--follow-imports=silent", "--python-version", "3.11",
        "--cache-dir", str(tmp_path / "cache"), str(module)])
    assert status == 1, report
    assert 'lines.py:5: error: Unsupported operand types for + ("Message" and "str")' in report
    assert 'lines.py:9: error: Argument 1 to "partition" of "Message"' in report
    assert "Found 2 errors" in report


def test_a_line_with_a_plural_is_said_by_its_count_and_kept_so() -> None:
    from planner.calendar.rejections import rejection

    one, three = (rejection([(number, "2026-12-02", i18n.t("is busy"))
                             for number in range(1, count + 1)], 12).reason for count in (1, 3))
    assert (one, three) == (
        "1 of 12 sessions does not fit; mend it and propose the plan again",
        "3 of 12 sessions do not fit; mend them all and propose the plan again")
    i18n.install("zh")
    try:
        assert i18n.shown(one) == "12 次中有 1 次放不下；请改好，再提出一次计划"
        assert i18n.shown(three) == "12 次中有 3 次放不下；请改好，再提出一次计划"
        # As a run's records keep it (messages.json), and `planner show` says it again.
        kept = json.loads(i18n.kept_words(three))
        assert kept["forms"][1].startswith("{count} of {total} sessions do not fit")
        assert i18n.shown(i18n.restored(str.__str__(three), kept)) == i18n.shown(three)
        assert i18n.decoded({**kept, "forms": ["not", "planner's"]}) is None
        assert i18n.n_("1 call", "{count} calls", 5).format(count=5) == "5 次调用"
    finally:
        i18n.install("en")
    assert i18n.n_("1 call", "{count} calls", 1) == "1 call"
