"""The exit codes of every `mlplatform` command."""

EXIT_OK = 0  # success
EXIT_FAILED = 1  # the command ran and found a failure (e.g. a mandatory policy violation)
EXIT_BAD_INPUT = 2  # invalid config, unreadable file, bad arguments
