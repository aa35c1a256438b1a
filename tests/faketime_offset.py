"""The faketime offset (`+NNNs`) that moves the clock to the next HH:MM UTC, for make test-clock.

An offset, not an absolute date: libfaketime reads an absolute date in each process's own zone,
so a planner started with another TZ would live at another instant (README "What the tests prove").
"""

import datetime as _dt
import sys

hour, minute = map(int, sys.argv[1].split(":"))
now = _dt.datetime.now(_dt.UTC)
moment = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
if moment <= now:
    moment += _dt.timedelta(days=1)
print(f"+{int((moment - now).total_seconds())}s")
