"""README "中文界面": the catalog covers every marked line and help text, the language choice, the
edge."""

import ast
import gettext
import importlib.util
from pathlib import Path

import pytest

from planner.base import i18n

ROOT = Path(__file__).resolve().parent.parent.parent
PARTS = ROOT / "po" / "zh"
# Typer's and Click's own messages: Typer marks some with its own `_` (planner gives it `lookup`),
# and planner/cli/click_words.py reads Click's finished sentences by their forms.
OUTSIDE_PARTS = {"click.po"}
MARKERS = {"_": 1, "t": 1, "N_": 1}


def _build_module():
    spec = importlib.util.spec_from_file_location("po_build", ROOT / "po" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def catalog():
    """The merged catalog of every po/zh part, as Babel reads it."""
    return _build_module().merged()


def marked_messages() -> tuple[dict[str, str], list[str]]:
    """Every string planner marks with _(), t() or N_(), with where it is; and the calls
    whose message is not a literal (they cannot be translated)."""
    found: dict[str, str] = {}
    problems = []
    for path in sorted((ROOT / "planner").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else None
            if name not in MARKERS or path.name == "i18n.py":
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            arguments = node.args[:MARKERS[name]]
            if len(arguments) < MARKERS[name] or not all(
                    isinstance(argument, ast.Constant) and isinstance(argument.value, str)
                    for argument in arguments):
                problems.append(f"{where}: {name}() needs literal text, not an expression")
                continue
            for argument in arguments:
                found.setdefault(argument.value, where)
    return found, problems


def help_texts() -> dict[str, str]:
    """Every help text of every command and option, as Typer hands them to Click."""
    import typer

    from planner.cli import app as cli

    command = typer.main.get_command(cli.app)
    texts: dict[str, str] = {}
    stack = [(command, "planner")]
    while stack:
        current, path = stack.pop()
        for attribute in ("help", "short_help", "epilog"):
            text = getattr(current, attribute, None)
            if text:
                texts.setdefault(text, f"{path} ({attribute})")
        for parameter in current.params:
            if getattr(parameter, "help", None):
                texts.setdefault(parameter.help, f"{path} {parameter.name}")
        for name, sub in getattr(current, "commands", {}).items():
            stack.append((sub, f"{path} {name}"))
    # Typer's and Click's own words around them.
    for word in ("Options", "Commands", "Arguments", "required", "default: {default}",
                 "env var: {var}", "Show this message and exit."):
        texts.setdefault(word, "typer")
    return texts


def test_every_marked_message_is_a_literal():
    _found, problems = marked_messages()
    assert problems == []


def test_every_message_and_help_text_has_a_translation(catalog):
    found, _problems = marked_messages()
    wanted = {**help_texts(), **found}
    missing = [f"{where}: {message!r}" for message, where in wanted.items()
               if message not in catalog or not catalog[message].string]
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


def test_templates_can_be_matched_back(catalog):
    """A t() line is translated by matching it: two placeholders must never touch, and a line
    must not be only a placeholder."""
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


def test_the_compiled_catalog_is_the_current_one(catalog):
    """planner/locale holds what po/zh/*.po say (make rebuilds it; so does every install)."""
    mo = ROOT / "planner" / "locale" / "zh" / "LC_MESSAGES" / "planner.mo"
    with mo.open("rb") as stream:
        compiled = gettext.GNUTranslations(stream)
    for message in catalog:
        if message.id and not isinstance(message.id, tuple):
            assert compiled.gettext(message.id) == message.string, \
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
