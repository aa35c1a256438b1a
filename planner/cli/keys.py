"""Keys in the OS keyring: planner key, key set, forget and status."""

from typing import TYPE_CHECKING, Annotated

import typer

from planner import ui
from planner.base.i18n import t
from planner.base.install import install_command
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    open_workspace,
)
from planner.cli.exits import ended, interrupted

if TYPE_CHECKING:
    pass

# --- Keys in the OS keyring: planner key set / forget / status (README "Providers")
# -------------------------
# planner.base.secrets imports the keyring library (an optional extra) only when it is used.

def key_command(ctx: typer.Context) -> None:
    """Keep API keys (and CalDAV passwords) in the OS keyring, or see where keys come from.

    Example: planner key set openai
    """
    if ctx.invoked_subcommand is None:
        # Plain `planner key`: its help, exit 0, as plain `planner` does.
        typer.echo(ctx.get_help())
        ended()

ProviderArgument = Annotated[
    str | None,
    typer.Argument(metavar="[PROVIDER]", show_default=False,
                   help="A provider (deepseek, openai, ...), a base_url host, or "
                   "caldav:USER@HOST for a CalDAV password (default: the configured provider)."),
]


def key_set_command(
    ctx: typer.Context,
    provider: ProviderArgument = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Store a key in the OS keyring: it is typed at a hidden prompt, never shown or written.

    A run takes it from there when the key variable is not set and api_key_cmd is not given.

    Example: planner key set openai
    """
    from planner.base import secrets as keys
    from planner.base.i18n import _

    config = open_workspace(ctx, home, config_path).config()
    # A KeyProblem rises: exit 2 for no keyring or a refused key, else 1 (its exit_code).
    with interrupted(t("interrupted (Ctrl+C); nothing was stored")):
        user = keys.user_for(config, provider)
        keys.check_keyring()
        if not ui.has_terminal():
            raise keys.KeyRefused(t("planner key set reads the key at a hidden prompt; run "
                                    "it in a terminal (nothing was stored)"))
        secret = ui.ask_hidden(_("Key for {user} (input hidden): ").format(user=user))
        keys.set_key(user, secret)
    ui.info(t("Stored the key for {user} in the OS keyring (service {service}, user {user}).",
              user=user, service=keys.SERVICE))
    if provider is None or user == keys.key_user(config):
        source = keys.key_source(config, terminal=True, probe_keyring=True)
        if source.kind != "keyring":
            ui.notice(t("A run still takes its key from {source} first.", source=source.detail))


def key_forget_command(
    ctx: typer.Context,
    provider: ProviderArgument = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Remove a key from the OS keyring (nothing else is changed).

    Example: planner key forget openai
    """
    from planner.base import secrets as keys

    config = open_workspace(ctx, home, config_path).config()
    # A KeyProblem rises: exit 2 for no keyring or a refused name, else 1 (its exit_code).
    user = keys.user_for(config, provider)
    removed = keys.forget_key(user)
    if removed:
        ui.info(t("Removed the key for {user} from the OS keyring.", user=user))
    else:
        ui.info(t("No key for {user} in the OS keyring; nothing was removed.", user=user))


def key_status_command(
    ctx: typer.Context,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Where the configured provider's key would come from, and which other providers have a
    key in the environment or the OS keyring. No key is ever shown.

    Example: planner key status
    """
    from planner.base import secrets as keys
    from planner.base.i18n import language, shown

    config = open_workspace(ctx, home, config_path).config()
    rows = keys.key_status(config, terminal=ui.has_terminal())
    # "{user}: {source}" would match any line with a colon: each part is translated on its own.
    colon = "：" if language() == "zh" else ": "
    for row in rows:
        name = t("{user} (configured)", user=row.user) if row.configured else row.user
        ui.info(f"{shown(name)}{colon}{shown(row.source.detail)}")
    if not keys.keyring_installed():
        ui.notice(t("The OS keyring is not used: it needs {command}.",
                    command=install_command("keyring")))

