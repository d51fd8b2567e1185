"""`python -m bot` runs the command line."""

import sys

if __name__ == "__main__":
    # Imported here, not above: the index's spawned workers re-import this module (as __mp_main__) and need none of
    # the command line's imports (the Slack and database drivers), which would slow every worker's start.
    from bot.cli import main

    sys.exit(main())
