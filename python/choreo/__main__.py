"""The ``choreo`` command, run in this interpreter: ``python -m choreo run X``."""

import sys


def main() -> int:
    """Runs the choreo command with this process's arguments; returns its exit code."""
    from choreo._native import cli_main

    return cli_main([sys.argv[0]] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
