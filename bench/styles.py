"""One colour and marker per algorithm, the same in every plot (plot.py,
predict_plot.py): the all-reduce algorithms in the order of
allreduce_algos/algorithms.def, after auto, then every other operation's
algorithms (collectives/OPERATION_ALGORITHM.cpp) in name order. A name's
place gives its colour (tab20) and its marker together, so two algorithms
never share both, however many a plot holds; a name not in the lists (a
student's new one) comes after them, by a hash of its name.
"""
import glob
import os
import re
import zlib

import matplotlib.pyplot as plt

HERE = os.path.dirname(os.path.abspath(__file__))
MARKERS = "o^sv<>DphX*P8H"


def _names():
    with open(os.path.join(HERE, "..", "allreduce_algos", "algorithms.def")) as f:
        names = ["auto"] + re.findall(r"^COMMLAB_ALLREDUCE\((\w+)\)", f.read(), re.M)
    with open(os.path.join(HERE, "..", "operations", "operations.def")) as f:
        operations = re.findall(r"^COMMLAB_OPERATION\((\w+)\)", f.read(), re.M)
    others = set()
    for path in glob.glob(os.path.join(HERE, "..", "collectives", "*.cpp")):
        stem = os.path.basename(path)[:-4]
        for op in sorted(operations, key=len, reverse=True):  # reduce_scatter before reduce
            if stem.startswith(op + "_"):
                others.add(stem[len(op) + 1:])
                break
    return names + sorted(others - set(names))


NAMES = _names()


def place(name):
    if name in NAMES:
        return NAMES.index(name)
    return len(NAMES) + zlib.crc32(name.encode()) % 200


def style(name):
    """matplotlib keywords for an algorithm's line: its colour and marker."""
    k = place(name)
    return dict(color=plt.cm.tab20(k % 20), marker=MARKERS[k % len(MARKERS)])
