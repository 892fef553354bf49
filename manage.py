#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import sys


def main() -> None:
    from pirates_site.startup import explain_failure, load_settings_or_exit

    load_settings_or_exit()
    from django.core.management import execute_from_command_line

    explain_failure(lambda: execute_from_command_line(sys.argv))


if __name__ == "__main__":
    main()
