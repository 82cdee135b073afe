"""`python -m stepscope ARGS`: the same as the `stepscope` command."""
import sys

from stepscope._cli import main

sys.exit(main())
