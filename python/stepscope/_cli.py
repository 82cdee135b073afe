"""The `stepscope` console command of the pip wheel: runs the CLI the wheel installed at
stepscope/_prefix/bin/stepscope (which finds its collector and shim in ../lib/stepscope)."""
import os
import sys


def cli_path():
    """The wheel's stepscope executable, or None outside a wheel install."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "_prefix", "bin", "stepscope")
    return path if os.access(path, os.X_OK) else None


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    path = cli_path()
    if path is None:
        sys.stderr.write("stepscope: the command-line tool is not part of this installation "
                         "(pip install stepscope builds it into stepscope/_prefix/bin)\n")
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, ["stepscope"] + args)
    return 127  # not reached: execv replaces the process or raises OSError
