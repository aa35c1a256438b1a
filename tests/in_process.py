"""Run `planner` inside the test process, as the installed program would run: same bytes out,
same exit code, same files, no interpreter started (README "What the tests prove").

Starting Python and importing planner costs ~0.2 s per command, and the tests run thousands.
What a command can leave behind in a process that outlives it is put back after each one: the
environment, working folder, umask, signal handlers, standard streams (at the descriptor level,
so a child process writes where planner's would), `sys.argv`, the garbage collector's state, the
module attributes planner's help patches into Typer's Click, and planner's own per-process state
(the language in use, the two consoles built for the run's stdout and environment, the last
error line). What cannot be made the same runs in a real process (`in_process_ok`).
"""

from __future__ import annotations

import contextlib
import gc
import io
import locale
import os
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence

# Variables that change how the interpreter itself starts, reads or writes: a test that sets
# one is testing the process, so it gets one.
_INTERPRETER = ("PYTHONIOENCODING", "PYTHONUTF8", "PYTHONPATH", "PYTHONHOME", "PYTHONWARNINGS",
                "PYTHONSAFEPATH", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONOPTIMIZE",
                "PYTHONHASHSEED", "PYTHONMALLOC", "PYTHONDEVMODE", "PYTHONFAULTHANDLER",
                "PYTHONTRACEMALLOC", "PYTHONNODEBUGRANGES", "PYTHONINTMAXSTRDIGITS",
                "PYTHONPLATLIBDIR", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "PYTHONEXECUTABLE",
                "PYTHONLEGACYWINDOWSSTDIO", "PYTHONBREAKPOINT")
# Locale variables: whichever is set first decides the streams' encoding.
_LOCALE = ("LC_ALL", "LC_CTYPE", "LANG")
# planner never reaches a terminal in process: its modules' name for it points nowhere.
_NO_TTY = "/nonexistent/planner-tests/tty"


def in_process_ok(env: Mapping[str, str]) -> bool:
    """Whether a run with this environment is the same in process: the interpreter's own
    variables and the stream encoding are this process's."""
    here = os.environ
    if any(env.get(name) != here.get(name) for name in _INTERPRETER):
        return False
    if os.environ.get("PLANNER_TESTS_SUBPROCESS") == "1":
        return False
    if env.get("LD_PRELOAD"):
        # A library loaded into the process (libfaketime under make test-clock, which moves the
        # clock of C code and file times too): this process has not loaded it.
        return False
    return _codeset(env) == _codeset(here)


def _codeset(env: Mapping[str, str]) -> str:
    """The encoding a locale setting names (utf-8 when it names none: Python's UTF-8 mode
    covers the C locale, the only one without a codeset here)."""
    for name in _LOCALE:
        value = env.get(name)
        if value:
            codeset = value.partition(".")[2].partition("@")[0].lower().replace("-", "")
            return codeset or "utf8"
    return "utf8"


_typer_state: list[tuple[object, dict[str, object]]] | None = None


def pristine() -> None:
    """Note Typer's and Click's attributes now, before any command patched them; load the
    modules that name the terminal, so that no command run here can reach it."""
    import importlib

    _patched_modules()
    for name in ("plain", "console", "editor", "init_screen", "conversation"):
        importlib.import_module(f"planner.ui.{name}")


def share_tls_context() -> None:
    """One TLS context for every HTTP client made in this process with the same trust settings.

    Each client of the openai SDK builds its own, loading the system's whole CA bundle (50-85 ms;
    a planner process builds one), though the tests' model servers speak plain HTTP. The context
    is made exactly as the library makes it, once for each trust setting and CA variables.
    """
    try:
        from httpx2._transports import default
    except ImportError:
        return
    make = default.create_ssl_context
    made: dict[tuple[object, ...], object] = {}

    def create_ssl_context(verify: object = True, cert: object = None,
                           trust_env: bool = True) -> object:
        if verify is not True or cert is not None:
            return make(verify=verify, cert=cert, trust_env=trust_env)  # type: ignore[arg-type]
        key = (trust_env, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
        if key not in made:
            made[key] = make(verify=True, cert=None, trust_env=trust_env)
        return made[key]

    default.create_ssl_context = create_ssl_context  # type: ignore[assignment]


def _patched_modules() -> list[tuple[object, dict[str, object]]]:
    """Typer's and its Click's modules and their classes, each with its attributes now (before
    any command ran): planner's help replaces some of them (planner.cli.help)."""
    global _typer_state
    if _typer_state is None:
        import importlib

        import typer
        import typer._click

        names = [name for name in ("typer.core", "typer.main", "typer.models")]
        names += [f"typer._click.{name}" for name in (
            "_compat", "_textwrap", "core", "decorators", "exceptions", "formatting", "globals",
            "parser", "shell_completion", "termui", "types", "utils")]
        owners: list[object] = [typer, typer._click]
        for name in names:
            with contextlib.suppress(ImportError):
                owners.append(importlib.import_module(name))
        for module in list(owners):
            owners.extend(value for value in vars(module).values()
                          if isinstance(value, type)
                          and value.__module__ == module.__name__)  # type: ignore[attr-defined]
        _typer_state = [(owner, dict(vars(owner))) for owner in owners]
    return _typer_state


def _restore(owner: object, saved: dict[str, object]) -> None:
    now = vars(owner)
    for name in [name for name in now if name not in saved]:
        with contextlib.suppress(AttributeError, TypeError):
            delattr(owner, name)
    for name, value in saved.items():
        if now.get(name, _restore) is not value:
            with contextlib.suppress(AttributeError, TypeError):
                setattr(owner, name, value)


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    import time

    time.tzset()
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        time.tzset()


@contextlib.contextmanager
def _descriptors(stdin: int, stdout: int, stderr: int) -> Iterator[None]:
    """Descriptors 0, 1 and 2 pointed at the given ones, Python's streams made anew on them."""
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    saved_streams = (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__,
                     sys.__stderr__)
    try:
        for target, fd in zip((stdin, stdout, stderr), (0, 1, 2), strict=True):
            os.dup2(target, fd)
        encoding = locale.getpreferredencoding(False)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                     encoding=encoding, errors="strict")
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                      encoding=encoding, errors="strict")
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                      encoding=encoding, errors="backslashreplace",
                                      line_buffering=True)
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        yield
    finally:
        # What the interpreter does at exit: flush what is still buffered (a failure is lost).
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                stream.flush()  # type: ignore[union-attr]
        (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__,
         sys.__stderr__) = saved_streams
        for saved, fd in zip(saved_fds, (0, 1, 2), strict=True):
            os.dup2(saved, fd)
            os.close(saved)


def _handlers() -> dict[int, object]:
    found = {}
    for number in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            found[number] = signal.getsignal(number)
    return found


# planner's per-process state: (module, attribute) -> what a new process starts with (None:
# what it holds as imported; "console": a console built anew for the run's streams).
_STATE = {("planner.base.i18n", "_translations"): None, ("planner.base.i18n", "_language"): "en",
          ("planner.base.i18n", "_missed"): [], ("planner.base.i18n", "_recorded"): {},
          ("planner.ui.console", "last_error"): None, ("planner.ui.console", "_signalled"): False,
          ("planner.ui.init_screen", "_console"): None}


@contextlib.contextmanager
def _planner_state() -> Iterator[None]:
    """planner's per-process state as a new process starts with it for the command; the test
    process's own (its language, its consoles) back after it."""
    import planner.base.i18n  # noqa: F401 - the language in use lives there

    saved: list[tuple[object, str, object]] = []
    for (module_name, name), fresh in _STATE.items():
        module = sys.modules.get(module_name)
        if module is not None:
            saved.append((module, name, getattr(module, name)))
            setattr(module, name, type(fresh)() if isinstance(fresh, (list, dict)) else fresh)
    console = sys.modules.get("planner.ui.console")
    consoles = []
    if console is not None:
        # Rich reads NO_COLOR, FORCE_COLOR, TERM and whether the stream is a terminal when a
        # console is built: built again for this run, in the objects other modules imported.
        for name, stderr in (("out", False), ("err", True)):
            old = getattr(console, name)
            consoles.append((old, dict(old.__dict__)))
            fresh_console = console._console(stderr=stderr)  # type: ignore[attr-defined]
            old.__dict__.clear()
            old.__dict__.update(fresh_console.__dict__)
    ttys = [(module, module.TTY) for name, module in list(sys.modules.items())
            if name.startswith("planner.") and isinstance(getattr(module, "TTY", None), str)]
    for module, _tty in ttys:
        module.TTY = _NO_TTY  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
        for old, state in consoles:
            old.__dict__.clear()
            old.__dict__.update(state)
        for module, tty in ttys:
            module.TTY = tty  # type: ignore[attr-defined]


# planner's Click command tree as Typer builds it (~20 ms at each start): built once, used again
# until a Chinese command translates it. Typer reads one variable as it builds (whether its
# completion options may look for the shell): a tree for each value.
_commands: dict[str | None, object] = {}
_BUILD_VARIABLE = "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"


@contextlib.contextmanager
def _built_once(app: object) -> Iterator[None]:
    """planner's command tree built once for all the commands run here, not once for each."""
    import typer.main

    build, translate = typer.main.get_command, app.translate_commands  # type: ignore[attr-defined]

    def get_command(typer_instance: object) -> object:
        if typer_instance is not app.app:  # type: ignore[attr-defined]
            return build(typer_instance)  # type: ignore[arg-type]
        key = os.environ.get(_BUILD_VARIABLE)
        if key not in _commands:
            _commands[key] = build(typer_instance)  # type: ignore[arg-type]
        return _commands[key]

    def translate_commands(command: object) -> None:
        # The tree's own texts become Chinese: the next command gets a tree of its own.
        for key in [key for key, built in _commands.items() if built is command]:
            del _commands[key]
        translate(command)

    typer.main.get_command = get_command  # type: ignore[assignment]
    app.translate_commands = translate_commands  # type: ignore[attr-defined]
    try:
        yield
    finally:
        typer.main.get_command = build
        app.translate_commands = translate  # type: ignore[attr-defined]


def _interpreter_warnings() -> None:
    """The interpreter's default warning filters (pytest's are for the tests' own code)."""
    warnings.resetwarnings()
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                     ResourceWarning):
        warnings.simplefilter("ignore", category)


def _returncode(code: object) -> int:
    """The exit status a process ending with SystemExit(code) reports."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run(args: Sequence[str], *, cwd: os.PathLike[str] | str | None, env: Mapping[str, str],
        input: str | bytes | None, capture: bool, text: bool) -> subprocess.CompletedProcess:
    """`planner args` in this process; what subprocess.run would return for it."""
    from planner.cli import app

    encoding = locale.getpreferredencoding(False)
    data = input.encode(encoding) if isinstance(input, str) else input
    patched = _patched_modules()
    handlers = _handlers()
    threads = set(threading.enumerate())
    gc_enabled = gc.isenabled()
    saved_argv, saved_cwd, saved_umask = sys.argv, os.getcwd(), os.umask(0o022)
    os.umask(saved_umask)
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(tempfile.TemporaryFile()) for _ in range(3)]
        stdin_file, out_file, err_file = files
        if data is not None:
            stdin_file.write(data)
            stdin_file.seek(0)
            stdin_fd = stdin_file.fileno()
        else:
            stdin_fd = stack.enter_context(open(os.devnull, "rb")).fileno()
        out_fd = out_file.fileno() if capture else \
            stack.enter_context(open(os.devnull, "wb")).fileno()
        code: int
        try:
            with _environment(env), _descriptors(stdin_fd, out_fd, err_file.fileno()), \
                    warnings.catch_warnings(), _planner_state(), _built_once(app):
                _interpreter_warnings()
                if cwd is not None:
                    os.chdir(cwd)
                sys.argv = ["planner", *args]
                try:
                    app.main()
                    code = 0
                except SystemExit as ended:
                    code = _returncode(ended.code)
                except KeyboardInterrupt:
                    traceback.print_exc()
                    code = -signal.SIGINT
                except BaseException as error:
                    if type(error).__module__.startswith("_pytest"):
                        raise  # the test's own end (pytest-timeout's, say), not planner's
                    traceback.print_exc()  # what the interpreter prints for an uncaught error
                    code = 1
                # The interpreter waits for the threads that are not daemons before it ends.
                for thread in set(threading.enumerate()) - threads:
                    if not thread.daemon:
                        thread.join(60)
        finally:
            sys.argv = saved_argv
            os.chdir(saved_cwd)
            os.umask(saved_umask)
            for number, handler in handlers.items():
                if signal.getsignal(number) is not handler:
                    with contextlib.suppress(OSError, ValueError, TypeError):
                        signal.signal(number, handler)  # type: ignore[arg-type]
            for owner, saved in patched:
                _restore(owner, saved)
            gc.unfreeze()
            (gc.enable if gc_enabled else gc.disable)()
        out_file.seek(0)
        err_file.seek(0)
        stdout, stderr = out_file.read() if capture else None, err_file.read()
    if text:
        stdout = None if stdout is None else _text(stdout, encoding)
        stderr = _text(stderr, encoding)
    return subprocess.CompletedProcess(["planner", *args], code, stdout, stderr)


def _text(data: bytes, encoding: str) -> str:
    # As subprocess decodes with text=True: universal newlines.
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
