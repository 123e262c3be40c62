"""One module per `mlplatform` command: HELP, add_arguments(parser) and run(args) -> exit code.

A new command is a new module here, listed in mlplatform.cli.COMMANDS.
"""
