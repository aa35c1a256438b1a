"""Allow `python -m planner`."""

from planner.cli.app import main

main()
