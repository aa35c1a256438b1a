"""A stand-in for a password manager's command line (pass, op, security, ...), for api_key_cmd.

    python tests/key_command.py print TEXT   # prints TEXT, then a second line; exit 0
    python tests/key_command.py fail TEXT    # prints TEXT on stdout and stderr; exit 3
    python tests/key_command.py hang         # prints nothing and never ends
    python tests/key_command.py empty        # prints nothing; exit 0
    python tests/key_command.py blank        # prints an empty first line, then a key
    python tests/key_command.py big          # prints BIG_KEY then 1 MB more; exit 0
    python tests/key_command.py flood        # prints without end
    python tests/key_command.py binary       # prints bytes that are not UTF-8; exit 0
    python tests/key_command.py touch PATH   # creates PATH (proves the command ran)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

BIG_KEY = "sk-printed-before-a-megabyte-0123456789"


def main(mode: str, *rest: str) -> int:
    out = sys.stdout
    if mode == "print":
        out.write(f"{rest[0]}\nsecond line is never the key\n")
    elif mode == "fail":
        out.write(f"{rest[0]}\n")
        sys.stderr.write(f"error: vault locked; token {rest[0]}\n")
        return 3
    elif mode == "hang":
        out.flush()
        time.sleep(3600)
    elif mode == "empty":
        pass
    elif mode == "blank":
        out.write("\nsk-after-a-blank-line\n")
    elif mode == "big":
        out.write(BIG_KEY + "\n" + "x" * (1024 * 1024) + "\n")
    elif mode == "flood":
        line = "y" * 1023 + "\n"
        while True:
            out.write(line)
    elif mode == "binary":
        out.flush()
        sys.stdout.buffer.write(b"\xff\xfe\xfakey\n")
    elif mode == "touch":
        Path(rest[0]).write_text("ran", encoding="utf-8")
        out.write("sk-touched-key-0123456789\n")
    else:
        return 64
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
