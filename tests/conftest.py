"""Shared fixtures: every test runs in its own home folder with no API key set."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import in_process
import pexpect
import pytest
from stub_server import StubServer

ROOT = Path(__file__).resolve().parent.parent
PLANNER = str(Path(sys.executable).with_name("planner"))
# The Radicale server (module-scoped), its calendar and a proxy before it, for any test asking.
pytest_plugins = ["radicale_server"]
# Typer's and Click's attributes as imported, before any command in this process patches them.
in_process.pristine()
in_process.share_tls_context()

# planner builds its Rich consoles when imported (as the tests are collected), and a console built
# while COLUMNS or LINES is set keeps that size for good. pytest-xdist's workers start with
# COLUMNS=80, a terminal may export its own: drop both, so every test sees the width it sets
# (the `home` fixture's COLUMNS=120, or its own) however the tests are run.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

# make test-clock: the whole suite with the clock moved by PLANNER_TEST_CLOCK (`+NNNs`, from
# tests/faketime_offset.py). This process moves its own clock with time-machine (Python's time
# and datetime); every process a test starts (planner, khal, Radicale) gets libfaketime with the
# same offset through LD_PRELOAD. The pytest processes themselves never load libfaketime: under
# it, xdist's worker processes died of a segmentation fault in execnet's reading thread and the
# run waited on them.
_CLOCK = os.environ.get("PLANNER_TEST_CLOCK")
if _CLOCK:
    import time_machine

    _seconds = int(_CLOCK.strip("+s"))
    time_machine.travel(time.time() + _seconds, tick=True).start()
    os.environ["FAKETIME"] = _CLOCK


@pytest.fixture(autouse=True, scope="session")
def _children_under_faketime() -> None:
    """Under make test-clock, every process a test starts loads libfaketime. Set here, in the
    processes that run tests, never in xdist's controller: its workers would inherit it."""
    if _CLOCK:
        os.environ["LD_PRELOAD"] = os.environ.get("PLANNER_FAKETIME_LIBRARY", "")

# A suite started in the background of a shell inherits SIGINT ignored, and every planner it
# starts would too: Ctrl+C in the terminal tests would do nothing. Planner gets the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh home folder as the working directory; key variables cleared.

    HOME and XDG_DATA_HOME point into tmp_path, so no test ever writes into the real user's
    folders. The home is the per-user data folder they give (tmp_path/data/planner), so an
    empty current folder, which is not a planner home, still resolves to it (README "Going on with
    a conversation").
    """
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("PLANNER_HOME", raising=False)
    home = tmp_path / "data" / "planner"
    home.mkdir(parents=True)
    monkeypatch.chdir(home)
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name in ("NO_COLOR", "FORCE_COLOR"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "120")
    # English whatever the machine's locale (README "中文界面"): the Chinese tests set their own.
    monkeypatch.setenv("LANGUAGE", "en")
    return home


@contextlib.contextmanager
def in_zone(zone: str | None) -> Iterator[None]:
    """This process's local time in `zone` (TZ; None: unset) for the `with` block, then back."""
    saved = os.environ.get("TZ")
    try:
        if zone is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = zone
        time.tzset()
        yield
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
        time.tzset()


def today(zone: str | None = None) -> _dt.date:
    """Today as a planner started with TZ=zone sees it (None: the TZ this process passes on).

    The one clock of the tests: planner dates "today" in its own zone, so a test that starts it
    with another TZ (Europe/Berlin, say) asks for that zone's date, not this process's.
    """
    with in_zone(os.environ.get("TZ") if zone is None else zone):
        return _dt.date(*time.localtime()[:3])


def run_dirs(home: Path) -> list[Path]:
    """The run folders under home/tool-records, oldest first."""
    records = home / "tool-records"
    return sorted(p for p in records.iterdir() if p.is_dir()) if records.exists() else []


def read_summary(folder: Path) -> dict:
    """A run's summary.json."""
    return json.loads((folder / "summary.json").read_text(encoding="utf-8"))


def all_files(root: Path) -> list[Path]:
    """Every file (and link) under root, recursively, sorted; none when root does not exist."""
    if not root.exists():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink())


def snapshot(*roots: Path) -> dict[str, tuple]:
    """Every entry under the roots, links not followed: its type and mode, a regular file's
    bytes, a link's target. Compare one taken before a command with one taken after it.
    The memory cache (README "A memory fitted to you": `.planner/memory-cache*`, kept by any
    command that schedules)
    is left out, and so is the `.planner` folder entry that holds it."""
    seen = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):  # os.walk does not follow links to folders
            for name in dirs + files:
                path = os.path.join(folder, name)
                if name == ".planner" or (name.startswith("memory-cache")
                                          and os.path.basename(folder) == ".planner"):
                    continue
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    content: object = os.readlink(path)
                elif stat.S_ISREG(info.st_mode):
                    content = Path(path).read_bytes()
                else:
                    content = None  # a folder, FIFO or device: never opened
                seen[path] = (info.st_mode, content)
    return seen


def run_planner(
    *args: str,
    command: Sequence[str] = (PLANNER,),
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
    input: str | bytes | None = None,
    stdout: object = subprocess.PIPE,
    text: bool = True,
    new_session: bool = True,
    timeout: float = 60,
) -> subprocess.CompletedProcess:
    """Run the installed `planner` (or `command`, such as the fault driver, then `args`) with no
    terminal: stdin closed (or fed `input`), a new session so no controlling terminal, stdout
    and stderr captured, bounded by `timeout` seconds (a hang fails with TimeoutExpired).

    `env` is the whole environment (None: this process's, as the `home` fixture left it);
    `stdin=None` inherits the test process's stdin, `new_session=False` its session.

    planner itself runs in this process (tests/in_process.py), the same bytes out, exit code and
    files, unless something only a process has is asked for: another command, the test's own
    stdin or session, output to a file, the interpreter's variables. PLANNER_TESTS_SUBPROCESS=1
    starts a process every time (to compare the two).
    """
    environment = dict(os.environ if env is None else env)
    if (tuple(command) == (PLANNER,) and stdin == subprocess.DEVNULL and new_session
            and stdout in (subprocess.PIPE, subprocess.DEVNULL)
            and in_process.in_process_ok(environment)):
        return in_process.run(args, cwd=cwd, env=environment, input=input,
                              capture=stdout == subprocess.PIPE, text=text)
    return subprocess.run(
        [*command, *args], cwd=cwd, env=env, stdin=None if input is not None else stdin,
        input=input, stdout=stdout, stderr=subprocess.PIPE, text=text,
        start_new_session=new_session, timeout=timeout,
    )


def env_with(**extra: str) -> dict[str, str]:
    """This process's environment (as the `home` fixture left it) with `extra` on top: the whole
    `env` to give run_planner or spawn."""
    return {**os.environ, **extra}


def succeeded(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    """A run that exited 0 with no traceback (or the test fails with its stderr)."""
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done


def one_error(result: subprocess.CompletedProcess, code: int, words: str) -> None:
    """The command failed with `code` and exactly one line on stderr containing `words`."""
    assert result.returncode == code, (result.returncode, result.stderr)
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr, result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def plan_body(path: Path) -> dict:
    """What a plan file says was planned: {"simulated", "plan"} (version 2 adds run facts)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 2 and data["run_id"] == path.stem, data
    return {"simulated": data["simulated"], "plan": data["plan"]}


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy configured on the machine must not carry the test traffic to 127.0.0.1."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")


@pytest.fixture
def server():
    """A scripted Chat Completions server on 127.0.0.1, stopped after the test."""
    with StubServer() as stub:
        yield stub


@pytest.hookimpl(tryfirst=True)  # before `-m` reads the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests measured as slow in tests/slow_tests.txt (make check skips them). The
    terminal tests run on both workers, two at a time: each waits on what its terminal shows,
    never on time, so a busy core only makes it later (README "What the tests prove")."""
    listed = Path(__file__).with_name("slow_tests.txt").read_text(encoding="utf-8").splitlines()
    measured = {line for line in listed if line and not line.startswith("#")}
    for item in items:
        if item.nodeid in measured:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _terminal_tests_are_marked(request: pytest.FixtureRequest,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that opens a pseudo-terminal must be marked `terminal` (`-m terminal` selects
    them, and they skip themselves under libfaketime); one that is not fails at its first spawn,
    naming the marker."""
    if request.node.get_closest_marker("terminal"):
        return

    def unmarked(*args: object, **kwargs: object) -> None:
        raise AssertionError("this test opens a pseudo-terminal: mark it @pytest.mark.terminal")

    monkeypatch.setattr(pexpect, "spawn", unmarked)


@pytest.fixture(autouse=True)
def _faketime_skips(request: pytest.FixtureRequest) -> None:
    """Under libfaketime (make test-clock; FAKETIME is set) a test marked `not_under_faketime`
    skips itself, with the marker's reason: the library changes what that test measures. So do
    the terminal tests: libfaketime changes pseudo-terminal timing (README "What the tests
    prove")."""
    if not os.environ.get("FAKETIME"):
        return
    marker = request.node.get_closest_marker("not_under_faketime")
    if marker is not None:
        pytest.skip(f"under faketime: {marker.args[0]}")
    if request.node.get_closest_marker("terminal"):
        pytest.skip("under faketime: pseudo-terminal timing changes")


def _children() -> dict[int, str]:
    """This process's live child processes: their IDs and command lines (zombies left out)."""
    found = {}
    for listing in Path("/proc/self/task").glob("*/children"):
        for pid in listing.read_text().split():
            try:
                stat_line = Path(f"/proc/{pid}/stat").read_text()
                if stat_line.rpartition(")")[2].split()[0] == "Z":
                    continue
                found[int(pid)] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(
                    b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue  # ended meanwhile
    return found


def _become_subreaper() -> None:
    """A process a test's child leaves behind (orphaned) becomes this process's child, not
    init's, so the check at the end sees it too (Linux PR_SET_CHILD_SUBREAPER)."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)


@pytest.fixture(autouse=True, scope="session")
def _no_process_left_behind() -> Iterator[None]:
    """No test leaves a process behind (README "What the tests prove"): at the end of the
    session, any child of this test process still alive is killed, and the session fails
    naming it."""
    if not Path("/proc/self/task").exists():
        yield
        return
    _become_subreaper()
    before = set(_children())
    yield
    left: dict[int, str] = {}
    # Killing a child hands its own children to this process (the subreaper): a few rounds.
    for _ in range(5):
        found = {pid: line for pid, line in _children().items() if pid not in before}
        if not found:
            break
        left.update(found)
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in found:
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
    if left:
        pytest.fail("processes left running by the tests (now killed): "
                    + "; ".join(f"{pid} {line}" for pid, line in left.items()), pytrace=False)
