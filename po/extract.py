"""Extract the catalog from the source: every line planner marks with _(), t() or N_() (nt() and
n_() with a singular and a plural), and every help text of every command and option (README
"中文界面").

`python po/extract.py [FILE]` writes them as a gettext template (planner.pot; stdout without
FILE), each with where it is written, for a translator to merge into po/zh/*.po. The tests check
the catalog against this same extraction both ways: every line has a translation, and the
catalog holds no line that no code uses.
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKERS = {"_": 1, "t": 1, "N_": 1, "nt": 2, "n_": 2}
# The singular of each line marked with a plural (nt(), n_()): its plural, filled in by
# marked_messages(); the catalog holds such a line under its singular.
PLURALS: dict[str, str] = {}


def marked_messages() -> tuple[dict[str, str], list[str]]:
    """Every string planner marks with _(), t() or N_() (the singular of nt() and n_()), with
    where it is; and the calls whose message is not a literal (they cannot be translated)."""
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
            found.setdefault(arguments[0].value, where)
            if len(arguments) == 2:
                PLURALS[arguments[0].value] = arguments[1].value
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


def write_template(stream) -> None:
    """The extracted lines as a .pot file (Babel writes it)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    found, problems = marked_messages()
    if problems:
        raise SystemExit("\n".join(problems))
    catalog = Catalog(domain="planner", project="planner")
    for message, where in {**help_texts(), **found}.items():
        path, _colon, line = where.partition(":")
        catalog.add((message, PLURALS[message]) if message in PLURALS else message,
                    locations=[(path, int(line))] if line.isdigit() else [])
    write_po(stream, catalog, width=100)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        with open(sys.argv[1], "wb") as target:
            write_template(target)
    else:
        write_template(sys.stdout.buffer)
