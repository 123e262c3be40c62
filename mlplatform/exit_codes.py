"""The exit codes of every `mlplatform` command, and how `--help` lists them."""

EXIT_OK = 0  # success
EXIT_FAILED = 1  # the command ran and found a failure (e.g. a mandatory policy violation)
EXIT_BAD_INPUT = 2  # invalid config, unreadable file, bad arguments

MEANINGS = {
    EXIT_OK: "success",
    EXIT_FAILED: "the command ran and found a failure (check: a mandatory violation)",
    EXIT_BAD_INPUT: "bad input (invalid configuration, unreadable file, bad arguments)",
}


def exit_codes_help(meanings: dict[int, str] | None = None) -> str:
    """The `--help` epilog: `exit codes: 0 ...; 2 ...` (a command's own meanings, else MEANINGS)."""
    codes = meanings or MEANINGS
    return "exit codes: " + "; ".join(f"{code} {text}" for code, text in sorted(codes.items()))
