"""planner init: every setting asked once on the terminal, checked as config.json is, written
only after SAVE.

Each answer is checked by the config's own loader (planner.base.config.parse_config) in the
config it would become, so a rule lives in one place. Nothing is written before SAVE: the key
typed for the OS keyring waits in memory, and Ctrl+C at any question leaves every file as it was.
An existing config.json is kept as config.json.bak-<time> and the new one moved in whole.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import typer

from planner import ui
from planner.base.errors import Interrupted
from planner.base.i18n import N_, _, lookup, t
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    open_workspace,
)
from planner.cli.exits import exit_usage, failing_on_os, interrupted
from planner.cli.init_answers import NONE_WORDS, Refused, goal_date_answer, hours_answer

if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.cli.init_calendars import Found

# The keys a provider preset fills: an old provider's values would win over a new preset's.
PRESET_KEYS = ("base_url", "api_key_env", "model", "extra_body", "prices", "api",
               "max_tokens_field")
KEYRING_WORDS = frozenset({"keyring"})
REMOVE = object()  # an answer that takes its key out of config.json (the default applies)
SAVE_PROMPT = N_("Type SAVE to write this config.json; anything else cancels: ")


def _left() -> Interrupted:
    """The person left (Ctrl+C, end of input, the terminal gone): nothing is written."""
    return Interrupted(t("interrupted; nothing was written"))


def init_command(
    ctx: typer.Context,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Set planner up in a few questions: language, provider, model and key, notes folder,
    study hours, busy calendars and a first goal; config.json is written only after SAVE.

    Example: planner init
    """
    if not (sys.stdin.isatty() and ui.has_terminal()):
        exit_usage(t("planner init asks its questions on a terminal; run it in one (nothing was "
                     "written)"))
    workspace = open_workspace(ctx, home, config_path)
    from planner.base.config import DEFAULT_CONFIG_FILE

    target = workspace.config_path or workspace.home / DEFAULT_CONFIG_FILE
    if target.is_symlink():
        exit_usage(t("{path} is a link; planner init never replaces it (edit the file it points "
                "to, or give --config PATH)", path=target))
    if target.exists() and not target.is_file():
        exit_usage(t("{path} is not a plain file; planner init never replaces it (give --config "
                "PATH)", path=target))
    screen = Screen()
    # The person leaving a question (Interrupted) rises: one line, exit 130.
    answers = Questions(screen, target, _current(screen, target)).ask_all()
    if not screen.confirm(target, answers.data):
        screen.say(_("Nothing was written."))
        return
    with interrupted(t("interrupted; {path} was left as it was", path=target)):
        if workspace.config_path is None:
            workspace.writable()  # the per-user data folder is made now, after SAVE, if need be
        if answers.secret is not None:
            _store_key(answers)
        backup = write_config_file(target, answers.data)  # whole or not at all, Ctrl+C included
    if backup is None:
        screen.say(_("Written: {path}").format(path=target))
    else:
        screen.say(_("Written: {path} (the old one is kept as {backup})").format(
            path=target, backup=backup.name))


def _place(source: dict[str, Any]) -> str:
    """A busy calendar's file, folder or URL, as config.json holds it."""
    return str(source.get("ics") or source.get("vdir") or source.get("caldav") or "?")


def _current(screen: Screen, target: Path) -> dict[str, Any]:
    """What config.json holds now, as written (the defaults when it is missing or unusable)."""
    from planner.base.config_problems import config_as_written

    if not target.exists():
        return {}
    data, problem = config_as_written(target)
    if problem is not None:
        from planner.base.i18n import shown

        screen.warn(_("{path} cannot be used ({problem}); the questions start from the defaults, "
                      "and the old file will be kept beside the new one.").format(
            path=target, problem=shown(problem)))
    return data


class Answers(NamedTuple):
    """The config to write, and a key to store in the OS keyring after SAVE (or None)."""

    data: dict[str, Any]
    secret: str | None
    key_user: str


class Screen:
    """The terminal the questions are asked on: lines wrapped to its width, answers edited."""

    def say(self, line: str, style: str = "") -> None:
        from planner.ui import init_screen

        init_screen.say(line, style)

    def warn(self, line: str) -> None:
        self.say(line, "yellow")

    def ask(self, question: str, default: str) -> str:
        """One edited line; Enter gives `default`. Interrupted when the person leaves."""
        from planner.base.inert import inert_line
        from planner.ui.conversation import fitted_prompt, unsendable

        shown = question if not default else _("{question} [{default}]").format(
            question=question, default=inert_line(default))
        while True:
            with interrupted(t("interrupted; nothing was written")):
                line = ui.read_edited_line(fitted_prompt(shown + " "))
            if line is None or not line.endswith("\n"):
                raise _left()  # the terminal went away, or Ctrl+D: nobody is answering
            # What is written is what the person saw: no control character, no escape.
            problem = unsendable(line)
            if problem is None:
                return line.strip() or default
            self.warn(problem)

    def ask_until(self, question: str, default: str, accept: Callable[[str], object]) -> object:
        """Ask until `accept` takes the answer; each refusal is named and the question asked
        again."""
        return self.retried(lambda: accept(self.ask(question, default)))

    def retried(self, questions: Callable[[], object]) -> object:
        """`questions` asked again until their answers are taken: each refusal (Refused, or the
        config's own checks refusing: ConfigError, the keyring's KeyProblem among them) is
        named first, in the person's language (the config loader's lines are program lines,
        said from their templates)."""
        from planner.base.config import ConfigError
        from planner.base.i18n import shown

        while True:
            try:
                return questions()
            except (Refused, ConfigError) as refused:
                self.warn(_("Not used: {reason}").format(reason=shown(str(refused))))

    def confirm(self, target: Path, data: dict[str, Any]) -> bool:
        """The config as it will be written, then SAVE (a near miss asked once more)."""
        from planner.base.answers import is_full_width
        from planner.base.inert import inert_line
        from planner.conversation.turn_values import is_near_miss
        from planner.ui import init_screen
        from planner.ui.conversation import fitted_prompt

        self.say(_("{path} will hold:").format(path=target))
        init_screen.show_block(_config_text(data).decode("utf-8"))
        prompt = lookup(SAVE_PROMPT)
        for _attempt in range(2):
            with interrupted(t("interrupted; nothing was written")):
                line = ui.read_tty_line(fitted_prompt(prompt), discard_typed_ahead=True)
            if line == "SAVE\n":
                return True
            if line is None or not line.endswith("\n") or not is_near_miss(line):
                return False
            typed = inert_line(line.removesuffix("\n"))
            # ＳＡＶＥ is in capitals already: what it lacks is half-width letters.
            prompt = (_('You typed "{typed}"; only SAVE in half-width capitals saves. {prompt}')
                      if is_full_width(typed) else
                      _('You typed "{typed}"; only SAVE in capitals saves. {prompt}')).format(
                typed=typed, prompt=lookup(SAVE_PROMPT))
        return False


class Questions:
    """The questions in order, each answer checked in the config it would become."""

    def __init__(self, screen: Screen, target: Path, current: dict[str, Any]) -> None:
        self.screen = screen
        self.target = target
        self.data = dict(current)
        self.secret: str | None = None
        self.key_user = ""

    def ask_all(self) -> Answers:
        self.language()
        self.provider()
        self.model()
        self.key()
        self.notes()
        self.study_hours()
        self.daily_minutes()
        self.busy_calendars()
        self.goal()
        return Answers(self.data, self.secret, self.key_user)

    def check(self, **values: object) -> Config:
        """The config with these values, loaded by the config's own checks; its ConfigError
        (a refusal: Screen.retried) when it cannot be used. REMOVE takes a key out (its default
        applies); None is written as null."""
        from planner.base.config import parse_config

        data = {**self.data, **values}
        data = {key: value for key, value in data.items() if value is not REMOVE}
        config = parse_config(data, self.target.name)
        self.data = data
        return config

    def language(self) -> None:
        from planner.base import i18n

        def accept(answer: str) -> str:
            self.check(language=answer)
            return answer

        chosen = self.screen.ask_until(_("Language: auto (the system's), en or zh"),
                                       self.data.get("language", "auto"), accept)
        i18n.install(i18n.choose(str(chosen), os.environ))

    def provider(self) -> None:
        from planner.base import providers

        self.screen.say(_("Providers: {names}").format(names=_(", ").join(providers.PRESETS)))
        now = self.data.get("provider") or providers.provider_for(
            None, self.data.get("base_url", "https://api.deepseek.com")) or "none"

        def accept(answer: str) -> str:
            name = answer.lower()
            if name in NONE_WORDS:
                self.check(provider=REMOVE)
                return "none"
            # A new provider's preset fills its keys: the old provider's values go.
            kept = dict.fromkeys(PRESET_KEYS, REMOVE) if name != now else {}
            self.check(**kept, provider=name)
            return name

        chosen = self.screen.ask_until(
            _("Provider (none: give the server's base_url yourself)"), now, accept)
        if chosen == "none":
            self.screen.ask_until(_("The server's base_url (http:// or https://)"),
                                  self.data.get("base_url", ""),
                                  lambda answer: self.check(base_url=answer))


    def model(self) -> None:
        from planner.base.config import parse_config

        preset_model = parse_config({k: v for k, v in self.data.items() if k != "model"},
                                    self.target.name).model
        now = self.data.get("model", preset_model)

        def accept(answer: str) -> str:
            # The preset's own model needs no key of its own.
            self.check(model=REMOVE if answer == preset_model else answer)
            return answer

        self.screen.ask_until(_("Model"), now, accept)
        self.max_tokens()

    def max_tokens(self) -> None:
        from planner.base.config import Config

        default = Config().max_tokens

        def accept(answer: str) -> str:
            # Digits become the number; anything else goes to the loader as typed, to be refused.
            value: object = int(answer) if answer.isascii() and answer.isdigit() else answer
            self.check(max_tokens=REMOVE if value == default else value)
            return answer

        self.screen.ask_until(_("Longest reply in tokens (max_tokens)"),
                              str(self.data.get("max_tokens", default)), accept)

    def key(self) -> None:
        from planner.base import secrets as keys
        from planner.base.config import parse_config

        config = parse_config(self.data, self.target.name)
        self.key_user = keys.key_user(config)
        if config.api_key_env is None:
            self.screen.say(_("No key is needed: a local server takes any."))
            return
        self.screen.say(_("The API key is never written to config.json. Type keyring to keep it "
                          "in the OS keyring now (typed at a hidden prompt, stored after SAVE), "
                          "the name of the environment variable that holds it, or none for a "
                          "server that needs no key."))
        preset_env = parse_config({k: v for k, v in self.data.items() if k != "api_key_env"},
                                  self.target.name).api_key_env

        def accept(answer: str) -> str:
            if answer.lower() in KEYRING_WORDS:
                keys.check_keyring()  # a KeyProblem is a refusal: the question asked again
                return "keyring"
            if answer.lower() in NONE_WORDS:
                self.check(api_key_env=None)  # null: a server that needs no key
                return "none"
            self.check(api_key_env=REMOVE if answer == preset_env else answer)
            return answer

        if self.screen.ask_until(_("Key"), str(config.api_key_env), accept) == "keyring":
            self.secret = self.hidden_key()

    def hidden_key(self) -> str:
        while True:
            try:
                secret = ui.ask_hidden(_("Key for {user} (input hidden): ").format(
                    user=self.key_user)).strip()
            except (KeyboardInterrupt, EOFError):
                raise _left() from None
            if secret:
                return secret
            self.screen.warn(_("Not used: {reason}").format(reason=_("no key was typed")))

    def notes(self) -> None:
        from planner.base.config import expand_path

        def accept(answer: str) -> str | None:
            if answer.lower() in NONE_WORDS:
                self.check(notes_dir=REMOVE)
                return None
            self.check(notes_dir=answer)
            # Written as typed; read as a run reads it (~, $VAR, from config.json's folder).
            folder = expand_path(answer, self.target)
            if not folder.is_dir():
                raise Refused(_("{folder} is not a folder").format(folder=folder))
            return answer

        self.screen.say(_("Your notes: a folder of Markdown files (an Obsidian vault works); "
                          "none: notes/ in the home folder, or the sample notes."))
        chosen = self.screen.ask_until(_("Notes folder"), self.data.get("notes_dir") or "none",
                                       accept)
        if chosen is not None and (expand_path(str(chosen), self.target) / ".obsidian").is_dir():
            self.screen.say(_("An Obsidian vault: its Markdown notes, front matter and tags are "
                              "read; .obsidian/ itself is left alone."))

    def study_hours(self) -> None:
        from planner.base.config import study_windows
        from planner.base.study_hours import shown

        hours = study_windows(self.check())
        now = "; ".join(f"{day} {', '.join(shown(windows)) or 'none'}"
                        for day, windows in hours.items())
        self.screen.say(_("Study hours: HH:MM-HH:MM windows, for every day or by weekday, e.g. "
                          "19:00-22:00, or mon 18:00-20:00; daily 19:00-21:30; a day with none "
                          "has no study hours: daily 19:00-22:00; fri none"))
        # The hours in force kept as they are written (review_time's window stays implied).
        self.screen.ask_until(_("Study hours"), now, lambda answer: None if answer == now
                              else self.check(study_hours=hours_answer(answer)))

    def daily_minutes(self) -> None:
        def accept(answer: str) -> object:
            if answer.lower() in NONE_WORDS:
                return self.check(daily_minutes=REMOVE)
            # Text that is no whole number goes to the check as it is: its line names the rule.
            number = int(answer) if answer.isascii() and answer.isdigit() else answer
            return self.check(daily_minutes=number)

        now = self.data.get("daily_minutes")
        self.screen.ask_until(_("The most minutes of review on one day (5-600, none: no limit)"),
                              "none" if now is None else str(now), accept)

    def busy_calendars(self) -> None:
        from planner.cli.init_calendars import found_calendars

        found = found_calendars()
        if found:
            self.screen.say(_("Calendars found on this computer:"))
            for number, calendar in enumerate(found, 1):
                self.screen.say(f"{number}. {calendar.name} ({calendar.source}: "
                                f"{_tilde(calendar.path)})")
        self.screen.say(_("Busy calendars (only read, never written): numbers from the list, "
                          ".ics files, calendar folders or CalDAV URLs, separated by spaces; "
                          "none for none."))
        now = self.data.get("busy_calendars") or []
        default = " ".join(_place(source) for source in now) or "none"

        def accept(answer: str) -> object:
            if answer == default:
                return None
            sources = [] if answer.lower() in NONE_WORDS else \
                [_busy_source(word, found, self.target)
                 for word in answer.replace(",", " ").split()]
            return self.check(busy_calendars=sources)

        self.screen.ask_until(_("Busy calendars"), default, accept)
        for number, source in enumerate(self.data.get("busy_calendars") or []):
            self.all_day(number, source)

    def all_day(self, number: int, source: dict[str, Any]) -> None:
        """Whether one busy calendar's all-day events are busy (the default) or free."""
        from planner.base.inert import inert_line

        self.screen.say(_("All-day events in {place}: busy (the calendar standard's default, "
                          "a trip) or free (a birthdays calendar)?").format(
            place=inert_line(_place(source))))

        def accept(answer: str) -> str:
            word = {"忙": "busy", "闲": "free"}.get(answer, answer.lower())
            if word not in ("busy", "free"):
                raise Refused(_("answer busy or free"))
            sources = list(self.data["busy_calendars"])
            changed = {key: value for key, value in source.items() if key != "all_day"}
            if word == "free":  # busy is the default: left out of the file
                changed["all_day"] = "free"
            sources[number] = changed
            self.check(busy_calendars=sources)
            return word

        self.screen.ask_until(_("All-day events"), str(source.get("all_day", "busy")), accept)

    def goal(self) -> None:
        from planner.base import config

        if "goals" not in config.KEYS:
            return  # this version of the config has no goals
        goals = list(self.data.get("goals") or [])
        self.screen.say(_("A first goal (an exam, a trip): its name, its date and the notes it "
                          "covers. Enter: no new goal."))
        retention = self.check().desired_retention
        typed = {"name": "", "date": "", "notes": ""}

        def questions() -> None:
            """The goal's three questions, asked again (as answered) while it is refused."""
            typed["name"] = self.screen.ask(_("Goal name"), typed["name"])
            if not typed["name"]:
                return
            typed["date"] = str(self.screen.ask_until(_("Goal date (YYYY-MM-DD)"),
                                                      typed["date"], goal_date_answer))
            if not typed["date"]:
                return  # Enter: no new goal after all
            typed["notes"] = self.screen.ask(
                _("Its notes: note IDs, folder:NAME/ or tag:NAME, separated by spaces"),
                typed["notes"])
            goal = {"name": typed["name"], "date": typed["date"],
                    "notes": typed["notes"].replace(",", " ").split(), "retention": retention}
            others = [old for old in goals if not isinstance(old, dict)
                      or str(old.get("name", "")).lower() != typed["name"].lower()]
            self.check(goals=[*others, goal])

        self.screen.retried(questions)


def _tilde(path: Path) -> str:
    """A path under the person's home folder as ~/...: short enough to read."""
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home):] if home != "~" and text.startswith(home + os.sep) else text


def _busy_source(word: str, found: list[Found], target: Path) -> dict[str, str]:
    """One busy calendar from an answer: a number from the list, a URL, a folder or a file
    (written as typed, read as the config reads it: ~, $VAR, from config.json's folder)."""
    from planner.base.config import expand_path

    if word.isascii() and word.isdigit():
        number = int(word)
        if not 1 <= number <= len(found):
            raise Refused(_("{number} is not a number from the list").format(number=word))
        return {"vdir": _tilde(found[number - 1].path)}
    if word.startswith(("http://", "https://")):
        return {"caldav": word}
    path = expand_path(word, target)
    if path.is_dir():
        return {"vdir": word}
    if path.is_file():
        return {"ics": word}
    raise Refused(_("{path}: no such file or folder").format(path=word))


def _store_key(answers: Answers) -> None:
    """The key typed for the OS keyring, stored as `planner key set` stores it."""
    from planner.base import secrets as keys

    # A key that cannot be stored is a UsageError (exit 2): config.json was not written.
    keys.set_key_before_config(answers.key_user, answers.secret or "")
    ui.info(t("Stored the key for {user} in the OS keyring (service {service}, user {user}).",
              user=answers.key_user, service=keys.SERVICE))


def _config_text(data: dict[str, Any]) -> bytes:
    import json

    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def write_config_file(target: Path, data: dict[str, Any]) -> Path | None:
    """config.json written whole: a new file created exclusively, or the old one kept as
    config.json.bak-<time> and the new one moved in (never edited in place). The backup's
    path, or None."""
    from planner.base import storage

    text = _config_text(data)
    with failing_on_os(lambda reason: t("could not write {path} ({reason}); it was left as it "
                                        "was", path=target, reason=reason)):
        if not os.path.lexists(target):
            # "x": a config.json made meanwhile by someone else is never overwritten.
            storage.create_exclusive(target, text)
            return None
        import datetime as _dt

        stamp = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
        backup = target.with_name(f"{target.name}.bak-{stamp}")
        storage.replace_keeping(target, text, backup)
        return backup
