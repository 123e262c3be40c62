"""The exit codes of every `mlplatform` command, and how `--help` lists them."""

EXIT_OK = 0  # success
EXIT_FAILED = 1  # the command ran and found a failure (e.g. a mandatory policy violation)
EXIT_BAD_INPUT = 2  # invalid config, unreadable file, bad arguments, no project
EXIT_INTERNAL = 3  # a bug in mlplatform: one line on stderr, the traceback in a file
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as a shell reports it
EXIT_BROKEN_PIPE = 141  # the reader closed the pipe (`| head`): 128 + SIGPIPE, as a shell reports a tool killed by it

MEANINGS = {
    EXIT_OK: "success",
    EXIT_FAILED: "the command ran and found a failure (check: a mandatory violation)",
    EXIT_BAD_INPUT: "bad input (invalid configuration, unreadable file, bad arguments, no project)",
    EXIT_INTERNAL: "internal error, a bug in mlplatform (the traceback is written to a file whose path is printed)",
}


def exit_codes_help(meanings: dict[int, str] | None = None) -> str:
    """The `--help` epilog: `exit codes: 0 ...; 2 ...; 3 ...` (a command's own meanings, else MEANINGS); the
    internal-error code is the same for every command."""
    codes = {**(meanings or MEANINGS), EXIT_INTERNAL: MEANINGS[EXIT_INTERNAL]}
    return "exit codes: " + "; ".join(f"{code} {text}" for code, text in sorted(codes.items()))
