"""The secrets: where the API key comes from (README "Providers"), in this order; CalDAV passwords
beside
it; storing either in the OS keyring.

1. the environment variable config names (`api_key_env`);
2. `api_key_cmd` in config: an argument list run without a shell, 10-second timeout, the first
   line of what it prints (a failure is one line naming the command, never its output);
3. the OS keyring through the `keyring` library (an optional extra): service "planner", user
   the provider name or the base_url host;
4. the hidden prompt, when a terminal is present.

`key_source` says which source would be used without reading a secret (for --dry-run and
`planner key status`). This is the only module that imports `keyring`, and only when the
keyring is really consulted. No key is ever written to a file, a record or the screen: every
message here names a source, never a key or a command's output.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NamedTuple
from urllib.parse import urlsplit

from planner.base import providers
from planner.base.config import Config
from planner.base.config import MissingKey as MissingKey
from planner.base.errors import UsageError
from planner.base.i18n import _, t
from planner.base.install import install_command
from planner.base.oserrors import os_reason

SERVICE = "planner"
# The CalDAV password for `planner sync` (README "Calendars"), before the keyring and the prompt.
CALDAV_PASSWORD_ENV = "PLANNER_CALDAV_PASSWORD"
COMMAND_TIMEOUT = 10.0
# A key is one short line; a command printing more than this is not printing a key.
COMMAND_OUTPUT_LIMIT = 64 * 1024
# Longer than any real API key; a longer "key" is refused before it is stored.
MAX_KEY_LENGTH = 4096
_SHOWN = 120
# How long the output may go on being read once the command has ended.
_OUTPUT_GRACE = 1.0


class KeyProblem(MissingKey):
    """A key source failed; the message names the source, never the key or any output."""

    # A source that failed (a command, the keyring), like a Failure; a run still says it with
    # exit 2, as the MissingKey it is (planner.cli.run).
    exit_code = 1


class KeyringUnavailable(KeyProblem):
    """There is no keyring to store in: the library (the optional extra) or a backend is missing."""

    exit_code = 2  # a keyring to install or a setting to change, like a UsageError


class KeyRefused(KeyProblem):
    """The key typed cannot be stored (empty, too long, or not sendable); nothing was stored."""

    exit_code = 2  # another key or provider name to give, like a UsageError


class KeySource(NamedTuple):
    """Which source a run would take its key from, as one line for the person."""

    # "none" (a local server: a placeholder is sent), "env", "command", "keyring", "prompt",
    # "missing" (no source: the run would stop), or "error" (the keyring cannot be read).
    kind: str
    detail: str


def key_user(config: Config) -> str:
    """The keyring user name for this config: the provider, else the base_url host."""
    if config.provider:
        return config.provider
    try:
        host = urlsplit(config.base_url).hostname
    except ValueError:
        host = None
    return (host or config.base_url).lower()


def key_source(config: Config, terminal: bool, probe_keyring: bool = False) -> KeySource:
    """The source find_key would use, found without reading any secret.

    The environment is checked for the variable; api_key_cmd is not run. The keyring is only
    asked whether it holds an entry when `probe_keyring` is true (`planner key status`); else
    it is named as "if it holds a key" (--dry-run reads no key at all).
    """
    env = config.api_key_env
    if env is None and config.api_key_cmd is None:
        return KeySource("none", t("no key needed (a local server; a placeholder is sent)"))
    if env is not None and os.environ.get(env, "").strip():
        return KeySource("env", t("the environment variable {env}", env=env))
    if config.api_key_cmd is not None:
        command = shown_command(config.api_key_cmd)
        return KeySource("command", t("the output of api_key_cmd {command}", command=command))
    user = key_user(config)
    entry = t("the OS keyring (service {service}, user {user})", service=SERVICE, user=user)
    fallback = _fallback(config, terminal)
    if env is not None and _keyring_installed():
        if not probe_keyring:
            return KeySource("keyring", t("the OS keyring (service {service}, user {user}) if it "
                                          "holds a key; else {fallback}", service=SERVICE,
                                          user=user, fallback=fallback.detail))
        try:
            stored = _stored(user)
        except KeyProblem as problem:
            return KeySource("error", str(problem))
        if stored:
            return KeySource("keyring", entry)
    return fallback


def find_key(config: Config, ask: Callable[[str], str] | None) -> str:
    """The key from the first source that has one; raises MissingKey (or KeyProblem)."""
    env = config.api_key_env
    if env is None and config.api_key_cmd is None:
        # A local server takes any key; asking the person for one would only confuse them.
        return providers.PLACEHOLDER_KEY
    if env is not None:
        key = os.environ.get(env, "").strip()
        if key:
            return key
    if config.api_key_cmd is not None:
        key = run_key_command(config.api_key_cmd)
        _check_header_safe(key, t("the key printed by api_key_cmd {command}",
                                  command=shown_command(config.api_key_cmd)))
        return key
    if env is not None:
        stored = keyring_key(key_user(config))
        if stored:
            _check_header_safe(stored, t("the key in the OS keyring (user {user})",
                                         user=key_user(config)))
            return stored
    name = env or "API key"
    if ask is not None:
        key = (ask(_("{name} (input hidden): ").format(name=name)) or "").strip()
        if key:
            return key
        # Enter at the prompt: the person was asked, so "run in a terminal" would be wrong.
        raise MissingKey(t("no key was typed at the prompt; set {name} in the environment, "
                           "api_key_cmd in {config}, or store one with `planner key set`",
                           name=name, config=config.file))
    raise MissingKey(t("no API key: set {name} in the environment (or api_key_cmd in {config}, "
                       "or store one with `planner key set`, or run in a terminal to type it at "
                       "a hidden prompt)", name=name, config=config.file))


def shown_command(argv: Sequence[str]) -> str:
    """The command as one short line (its arguments, never anything it printed).

    A long one shows each path by its last part first, so a deep folder never pushes the
    program's own name off the line; only then is it cut.
    """
    text = shlex.join(argv)
    if len(text) > _SHOWN:
        text = shlex.join(_last_part(arg) for arg in argv)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _last_part(argument: str) -> str:
    """`.../name` for a path `folder/.../name`; anything else as it is."""
    folder, slash, name = argument.rpartition("/")
    return f".../{name}" if slash and folder and name else argument


def run_key_command(argv: Sequence[str], timeout: float | None = None) -> str:
    """The first line of what `argv` prints: no shell, stdin closed, stderr dropped.

    A failure (cannot start, non-zero exit, a timeout, nothing printed, more than 64 KiB, not
    UTF-8) raises KeyProblem naming the command; what it printed is never shown.
    """
    shown = shown_command(argv)
    timeout = COMMAND_TIMEOUT if timeout is None else timeout
    try:
        process = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except FileNotFoundError:
        raise KeyProblem(t("api_key_cmd {command} could not be started: no such program",
                           command=shown)) from None
    except OSError as error:
        raise KeyProblem(t("api_key_cmd {command} could not be started ({reason})", command=shown,
                           reason=os_reason(error))) from None
    chunks: list[bytes] = []
    reader = threading.Thread(target=_read_bounded, args=(process, chunks), daemon=True)
    reader.start()
    try:
        # The command must end within the timeout; the reader ends it sooner when it prints
        # more than the limit.
        code = process.wait(timeout)
    except subprocess.TimeoutExpired:
        _end(process)
        raise KeyProblem(t("api_key_cmd {command} did not finish within {seconds:g} s",
                           command=shown, seconds=timeout)) from None
    # What it printed before it ended (a helper it left running may hold the pipe open: what
    # that helper prints later is not read).
    reader.join(_OUTPUT_GRACE)
    chunks = list(chunks)
    if sum(map(len, chunks)) > COMMAND_OUTPUT_LIMIT:
        raise KeyProblem(t("api_key_cmd {command} printed more than {size} KiB; a key is one "
                           "short line", command=shown, size=COMMAND_OUTPUT_LIMIT // 1024))
    if not reader.is_alive() and process.stdout is not None:
        process.stdout.close()
    if code < 0:
        raise KeyProblem(t("api_key_cmd {command} was ended by signal {signal}; run it yourself "
                           "to see why", command=shown, signal=-code))
    if code != 0:
        raise KeyProblem(t("api_key_cmd {command} failed (exit status {code}); run it yourself "
                           "to see why", command=shown, code=code))
    try:
        text = b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise KeyProblem(t("api_key_cmd {command} printed something that is not UTF-8 text",
                           command=shown)) from None
    lines = text.splitlines()
    key = lines[0].strip() if lines else ""
    if not key:
        raise KeyProblem(t("api_key_cmd {command} printed no key (its first line is empty)",
                           command=shown))
    return key


def keyring_key(user: str) -> str | None:
    """The key stored for `user`, or None (no keyring library, no backend, or no entry)."""
    return _stored(user)


def set_key(user: str, secret: str) -> None:
    """Store `secret` in the OS keyring (service "planner", user `user`)."""
    secret = secret.strip()
    if not secret:
        raise KeyRefused(t("no key was typed; nothing was stored"))
    _check_header_safe(secret, t("the key typed"), KeyRefused)
    if len(secret) > MAX_KEY_LENGTH:
        raise KeyRefused(t("the key typed is longer than {count:,} characters; nothing was "
                           "stored", count=MAX_KEY_LENGTH))
    keyring = _keyring_or_explain()
    try:
        keyring.set_password(SERVICE, user, secret)
    except Exception as error:  # noqa: BLE001 - any backend failure is one line
        raise KeyProblem(_backend_line("store", error, secret)) from None


def set_key_before_config(user: str, secret: str) -> None:
    """set_key for a config.json written next: a key that cannot be stored is a UsageError
    saying so and that config.json was not written (exit 2)."""
    try:
        set_key(user, secret)
    except KeyProblem as problem:
        raise UsageError(t("{problem}; config.json was not written", problem=problem)) from None


def forget_key(user: str) -> bool:
    """Remove the key stored for `user`; False when there was none."""
    keyring = _keyring_or_explain()
    from keyring.errors import PasswordDeleteError

    try:
        keyring.delete_password(SERVICE, user)
    except PasswordDeleteError:
        return False
    except Exception as error:  # noqa: BLE001 - any backend failure is one line
        raise KeyProblem(_backend_line("remove", error)) from None
    return True


# --- which entry a command means, and what `planner key status` shows ---------------------------

# A base_url host as key_user gives it (a name, an IPv4 or IPv6 address), and a CalDAV entry:
# `caldav:USER@HOST` (the user may itself hold an @, as iCloud's do; HOST may carry a port).
_HOST = re.compile(r"[a-z0-9][a-z0-9._:-]{0,252}", re.ASCII)
_CALDAV = re.compile(r"caldav:([^\s@][^\s]{0,200})@([a-z0-9][a-z0-9._:\[\]-]{0,252})", re.ASCII)


class ProviderKey(NamedTuple):
    """One line of `planner key status`: a keyring user, whether config uses it, its source."""

    user: str
    configured: bool
    source: KeySource


def user_for(config: Config, provider: str | None) -> str:
    """The keyring user `planner key set/forget [PROVIDER]` means: with no PROVIDER the
    configured provider (key_user), else a preset's name, a base_url host, or a CalDAV entry
    `caldav:USER@HOST`; KeyRefused for anything else."""
    if provider is None:
        return key_user(config)
    name = provider.strip()
    if name.lower() in providers.PRESETS:
        return name.lower()
    if _CALDAV.fullmatch(name):
        return name
    # A host needs a dot (a typo of a preset's name is refused, not stored), unless it is the
    # configured one (localhost).
    if _HOST.fullmatch(name.lower()) and ("." in name or name.lower() == key_user(config)):
        return name.lower()
    raise KeyRefused(t("{provider} names no provider: give one of {presets}, a base_url host "
                       "such as api.example.com, or caldav:USER@HOST for a CalDAV password",
                       provider=repr(provider), presets=", ".join(providers.PRESETS)))


def key_status(config: Config, terminal: bool) -> list[ProviderKey]:
    """The configured provider's key source (the keyring asked whether it holds an entry),
    then every other preset that has a key in the environment or the keyring. No key is read
    into the result: a source is named, never its secret."""
    from planner.base.config import parse_config

    first = ProviderKey(key_user(config), True, key_source(config, terminal, probe_keyring=True))
    rows = [first]
    # A keyring that cannot be read is said once, not once per provider.
    probe = first.source.kind != "error"
    for name, preset in providers.PRESETS.items():
        if name == first.user or preset.api_key_env is None:
            continue
        source = key_source(parse_config({"provider": name}), terminal, probe_keyring=probe)
        if source.kind == "env" or (probe and source.kind == "keyring"):
            rows.append(ProviderKey(name, False, source))
    return rows


def check_keyring() -> None:
    """Raise KeyringUnavailable (or KeyProblem) unless keys can be kept in the OS keyring, so
    `planner key set` says so before asking for a key."""
    _keyring_or_explain()


def keyring_installed() -> bool:
    """Whether the keyring library (the optional extra) is installed; it is not imported."""
    return _keyring_installed()


def caldav_user(url: str, user: str) -> str:
    """The keyring user of a CalDAV password: `caldav:USER@HOST` (HOST with its port, if any)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        host, port = "", None
    host = f"[{host}]" if ":" in host else host
    return f"caldav:{user}@{host}{f':{port}' if port else ''}"


def caldav_password(url: str, user: str) -> str | None:
    """The CalDAV password stored for `user` at `url`'s host (`planner key set
    caldav:USER@HOST`), or None: no keyring library, no backend, or no entry. A keyring that
    fails raises KeyProblem (one line, never a secret)."""
    return _stored(caldav_user(url, user))


def find_caldav_password(url: str, user: str | None,
                         ask: Callable[[str], str] | None) -> str | None:
    """The CalDAV password, in this order: PLANNER_CALDAV_PASSWORD; the password in the URL
    itself (None is returned: the sync takes it from there); with no user, None (a server that
    needs no login); the OS keyring (`caldav:USER@HOST`); the hidden prompt `ask`. Raises
    MissingKey when there is none (KeyProblem when the keyring cannot be read)."""
    from_env = os.environ.get(CALDAV_PASSWORD_ENV, "")
    if from_env:
        return from_env
    try:
        in_url = urlsplit(url).password
    except ValueError:
        in_url = None
    if in_url or not user:
        return None
    stored = caldav_password(url, user)
    if stored:
        return stored
    entry = caldav_user(url, user)
    if ask is not None:
        typed = ask(_("CalDAV password for {entry} (input hidden): ")
                    .format(entry=entry.removeprefix("caldav:")))
        if typed:
            return typed
        raise MissingKey(t("no password was typed; set {env} or store one with "
                           "`planner key set {entry}`", env=CALDAV_PASSWORD_ENV, entry=entry))
    raise MissingKey(t("no CalDAV password for {user}: set {env}, store one with "
                       "`planner key set {entry}`, or run in a terminal to type it at a hidden "
                       "prompt", user=user, env=CALDAV_PASSWORD_ENV, entry=entry))


def _fallback(config: Config, terminal: bool) -> KeySource:
    name = config.api_key_env or "API key"
    if terminal:
        # Named, not quoted: a dry run's line must not look like the prompt itself.
        return KeySource("prompt", t("a hidden prompt for {name} on the terminal", name=name))
    return KeySource("missing", t("no key: {name} is not set and there is no terminal to ask on",
                                  name=name))


def _stored(user: str) -> str | None:
    try:
        import keyring
        from keyring.errors import NoKeyringError
    except ImportError:
        return None
    try:
        value = keyring.get_password(SERVICE, user)
    except NoKeyringError:
        # No OS keyring on this machine (e.g. a server without a desktop session).
        return None
    except Exception as error:  # noqa: BLE001 - any backend failure is one line
        raise KeyProblem(_backend_line("read", error)) from None
    return value.strip() if isinstance(value, str) and value.strip() else None


def _keyring_installed() -> bool:
    from importlib.util import find_spec

    return find_spec("keyring") is not None


def _keyring_or_explain() -> ModuleType:  # the keyring module, imported here only
    try:
        import keyring
    except ImportError:
        raise KeyringUnavailable(t("keeping keys in the OS keyring needs the keyring library: "
                                   "{command}", command=install_command("keyring"))) from None
    try:
        backend = keyring.get_keyring()
    except Exception as error:  # noqa: BLE001 - a broken keyring configuration
        raise KeyProblem(_backend_line("open", error)) from None
    if type(backend).__module__ == "keyring.backends.fail":
        raise KeyringUnavailable(_no_backend())
    return keyring


def _no_backend() -> str:
    return t("no OS keyring is available here (no backend found); keep the key in the "
             "environment or use api_key_cmd instead")


def _backend_line(action: str, error: BaseException, secret: str | None = None) -> str:
    """What the keyring failed to do (`action`: store, remove, read or open), and its error."""
    said = " ".join(str(error).split())
    if secret:
        said = said.replace(secret, "***")
    said = said if len(said) <= 160 else said[:157] + "..."
    name = type(error).__name__
    if name == "NoKeyringError":
        return _no_backend()
    # The error's name and its words apart: the words are the backend's, shown as they are.
    if action == "store":
        if said:
            return t("the OS keyring could not store the key ({error}: {said})", error=name,
                     said=said)
        return t("the OS keyring could not store the key ({error})", error=name)
    if action == "remove":
        if said:
            return t("the OS keyring could not remove the key ({error}: {said})", error=name,
                     said=said)
        return t("the OS keyring could not remove the key ({error})", error=name)
    if action == "read":
        if said:
            return t("the OS keyring could not be read ({error}: {said})", error=name, said=said)
        return t("the OS keyring could not be read ({error})", error=name)
    if said:
        return t("the OS keyring could not be opened ({error}: {said})", error=name, said=said)
    return t("the OS keyring could not be opened ({error})", error=name)


def _check_header_safe(key: str, where: str, problem: type[KeyProblem] = KeyProblem) -> None:
    # An HTTP header carries printable ASCII only; the SDK would otherwise fail with a raw
    # error, or echo the key in its message.
    if not (key.isascii() and key.isprintable()):
        raise problem(t("{where} has characters an HTTP header cannot carry (non-ASCII or "
                        "control characters)", where=where))


def _read_bounded(process: subprocess.Popen[bytes], chunks: list[bytes]) -> None:
    """Read the command's output until it ends; past the limit, stop reading and end it."""
    stream = process.stdout
    if stream is None:
        return
    total = 0
    while True:
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
        if not chunk:
            return
        chunks.append(chunk)
        total += len(chunk)
        if total > COMMAND_OUTPUT_LIMIT:
            # No key is that long: end the command at once rather than at the timeout.
            _end(process)
            return


def _end(process: subprocess.Popen[bytes]) -> None:
    """Stop a command that failed or hung, and reap it.

    Its output pipe is left to the reader thread: closing it while that thread reads would
    wait for the read, which a hung command never ends.
    """
    try:
        process.kill()
        process.wait(2)
    except (OSError, subprocess.TimeoutExpired):
        pass
