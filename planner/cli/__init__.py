"""The command line: the Typer app and its commands."""
