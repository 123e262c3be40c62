"""The error every layer raises for input the user can fix: the `mlplatform` command's exit code 2.

Kept apart from the settings model so that the command line can name it without importing pydantic.
"""


class InputError(Exception):
    """Input the user can fix (a setting, a file, an argument, a project): its message names what is wrong,
    the value, and what would be valid."""
