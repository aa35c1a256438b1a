"""The operating system's and the libraries' own words, marked for the catalog (README "中文界面").

A line such as `could not create {path} ({reason})` carries the system's reason as a value;
Each reason planner knows is returned as a program line (`t()`), so marking the reasons a person
meets here turns `Permission denied` into the person's language by its kind. A server's own message
is never one of these: it stays as data, in quotes.
"""

import re

from planner.base.i18n import N_, Message, t

# os.strerror() of the errors a person meets with files, pipes and connections (glibc words).
OS_REASONS = (
    N_("Permission denied"), N_("No such file or directory"), N_("No space left on device"),
    N_("Read-only file system"), N_("Is a directory"), N_("Not a directory"),
    N_("File exists"), N_("Broken pipe"), N_("Connection refused"),
    N_("Connection reset by peer"), N_("Network is unreachable"), N_("No route to host"),
    N_("Too many levels of symbolic links"), N_("File name too long"),
    N_("Input/output error"), N_("Disk quota exceeded"), N_("Operation not permitted"),
    N_("Connection timed out"), N_("Name or service not known"),
)

# PyYAML's words for what is wrong in a note's front matter.
YAML_PROBLEMS = (
    N_("mapping values are not allowed here"), N_("could not find expected ':'"),
    N_("found character that cannot start any token"), N_("did not find expected key"),
    N_("found unexpected end of stream"), N_("found undefined alias"),
    N_("while scanning a simple key"), N_("while parsing a block mapping"),
    N_("while scanning a quoted scalar"), N_("found unknown escape character"),
    N_("did not find expected '-' indicator"), N_("found duplicate anchor"),
    # libyaml's words for the same (the C loader, used when present)
    N_("mapping values are not allowed in this context"),
    N_("block sequence entries are not allowed in this context"),
    N_("did not find expected comment or line break"),
    N_("found a tab character that violates indentation"),
    N_("did not find expected ',' or ']'"),
    N_("did not find expected ',' or '}'"),
    N_("did not find expected node content"),
    N_("found unexpected ':'"),
    N_("found a tab character where an indentation space is expected"),
    N_("control characters are not allowed"),
    N_("found unexpected document indicator"),
    N_("mapping keys are not allowed in this context"),
    N_("did not find expected whitespace or line break"),
    N_("did not find expected alphabetic or numeric character"),
    N_("while parsing a flow sequence"),
    N_("while parsing a flow mapping"),
    N_("while parsing a block collection"),
    N_("while parsing a quoted scalar"),
    N_("while parsing a block node"),
    N_("while parsing a flow node"),
)

_KNOWN_REASONS = frozenset(OS_REASONS)
# The kind of each error above, by its errno name: the words are planner's, whatever the system
# (another C library, another locale) printed for it.
_REASON_OF_KIND = {
    "EACCES": "Permission denied", "ENOENT": "No such file or directory",
    "ENOSPC": "No space left on device", "EROFS": "Read-only file system",
    "EISDIR": "Is a directory", "ENOTDIR": "Not a directory", "EEXIST": "File exists",
    "EPIPE": "Broken pipe", "ECONNREFUSED": "Connection refused",
    "ECONNRESET": "Connection reset by peer", "ENETUNREACH": "Network is unreachable",
    "EHOSTUNREACH": "No route to host", "ELOOP": "Too many levels of symbolic links",
    "ENAMETOOLONG": "File name too long", "EIO": "Input/output error",
    "EDQUOT": "Disk quota exceeded", "EPERM": "Operation not permitted",
    "ETIMEDOUT": "Connection timed out",
}
_TLS_MODULES = ("ssl", "_ssl")
_ERRNO_TEXT = re.compile(r"\[Errno (-?[0-9]{1,5})\] ([^\n]{0,200})")
_KNOWN_PROBLEMS = frozenset(YAML_PROBLEMS)


def os_reason(error: OSError) -> str:
    """Why `error` happened, for a line the person reads: planner's words for its kind (its
    errno, so the screen translates them whatever the system printed), else the system's words
    in quotes, as data, under a line of planner's own."""
    import errno

    code = errno.errorcode.get(error.errno or 0) if _numbered_by_errno(error) else None
    if code in _REASON_OF_KIND:
        return Message(_REASON_OF_KIND[code])  # by its kind: errno 111 is Connection refused
    words = error.strerror or str(error) or type(error).__name__
    if words in _KNOWN_REASONS:
        return Message(words)
    if code is None:
        return t("the system said “{words}”", words=words)
    return t("the system said “{words}” ({code})", words=words, code=code)


def said_reason(words: str) -> str:
    """The system's `words` as a program line when they are a reason planner knows (said in
    the person's language), else as they are."""
    return Message(words) if words in _KNOWN_REASONS else words


def _numbered_by_errno(error: OSError) -> bool:
    """Whether error.errno is an errno value: a name lookup's numbers (EAI_*) and TLS's
    (SSL_ERROR_*) are their own."""
    import socket

    return not isinstance(error, (socket.gaierror, socket.herror)) and \
        type(error).__module__ not in _TLS_MODULES


def reason_within(error: BaseException) -> str | None:
    """os_reason() of the operating system's error behind a library's (httpx wraps the refused
    connection in two errors of its own, and prints it as `[Errno 111] Connection refused`);
    None when no system error is behind it."""
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(seen) < 16 and current not in seen:
        if isinstance(current, OSError) and current.errno is not None:
            # A TLS failure keeps the library's own words.
            return None if type(current).__module__ in _TLS_MODULES else os_reason(current)
        seen.append(current)
        current = current.__cause__ or current.__context__
    for each in seen:
        found = _ERRNO_TEXT.search(str(each))
        if found:
            return os_reason(OSError(int(found.group(1)), found.group(2)))
    return None


def yaml_problem(problem: str) -> str:
    """A YAML reader's problem: its words where planner knows them, else quoted, as data."""
    return Message(problem) if problem in _KNOWN_PROBLEMS else f"“{problem}”"
