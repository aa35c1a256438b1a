"""The operating system's and the libraries' own words, marked for the catalog (SPEC 25).

A line such as `could not create {path} ({reason})` carries the system's reason as a value;
`i18n.shown()` translates a value that is a catalog line, so marking the reasons a person meets
here turns `Permission denied` into the person's language by its kind. A server's own message
is never one of these: it stays as data, in quotes.
"""

from planner.base.i18n import N_

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
)
