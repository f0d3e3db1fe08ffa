"""The tools' command lines: a usage error is one line naming the tool (its
prog; the usage is in --help), and exit status 2. plots.py, qa.py and
display_lock.py parse with it."""

import argparse
import sys


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        print(f"{self.prog}: {message} (see --help)", file=sys.stderr)
        sys.exit(2)
