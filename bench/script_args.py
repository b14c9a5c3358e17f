"""What bench/args.sh is to the shell scripts, for the Python ones: imported
first, before matplotlib (so --help answers without it) and before anything
is read or written.
  folder, = script_args(__doc__, "FOLDER")   # the arguments it takes, by name
--help (or -h) prints the script's docstring and exits 0; an option, or
another count of arguments than it names, is refused in one line, exit 2."""
import sys
from pathlib import Path


def script_args(doc, usage):
    name = Path(sys.argv[0]).name
    args = sys.argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        try:
            print(doc.strip("\n").rstrip(), flush=True)
        except BrokenPipeError:  # --help | head
            sys.stdout = None
        sys.exit(0)
    for a in args:
        if a.startswith("-"):
            refuse(f"{name} takes {usage}, not the option '{a}' ({name} --help)")
    if len(args) != len(usage.split()):
        refuse(f"usage: {name} {usage} ({name} --help)")
    return args


def refuse(line):
    print(f"error: {line}", file=sys.stderr)
    sys.exit(2)
