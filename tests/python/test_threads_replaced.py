"""set_num_threads() from one thread while another thread's call runs in the arena it replaces:
each call holds its arena to the end (before, the arena was destroyed under the call: a
segmentation fault within seconds). Run in a child process, so that a crash fails this test
instead of ending pytest."""

import os
import subprocess
import sys
import textwrap

# How long the threads race; the crash came well within this (one thread calling find_all_pairs on
# 200,000 boxes, the other switching the count).
RACE_SECONDS = 6

CHILD = textwrap.dedent(
    """
    import sys, threading, time
    import numpy as np
    import agrid

    rng = np.random.default_rng(5)
    mins = rng.uniform(0, 150, (200000, 3)).astype(np.float32)
    maxs = mins + np.float32(1)
    expected = agrid.find_all_pairs(mins, maxs)
    stop = time.monotonic() + float(sys.argv[1])
    calls = [0]
    wrong = []

    def pairs():
        while time.monotonic() < stop:
            found = agrid.find_all_pairs(mins, maxs)  # the GIL released, in the module's arena
            if not np.array_equal(found, expected):
                wrong.append(len(found))
            calls[0] += 1

    def switch():
        count = 1
        while time.monotonic() < stop:
            agrid.set_num_threads(count)
            count = 3 - count  # 1, 2, 1, ...
        agrid.set_num_threads(0)

    threads = [threading.Thread(target=pairs), threading.Thread(target=switch)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong, wrong
    print("calls", calls[0])
    """
)


def test_set_num_threads_while_another_thread_finds_pairs():
    child = subprocess.run([sys.executable, "-c", CHILD, str(RACE_SECONDS)], capture_output=True, text=True,
                           env=dict(os.environ), timeout=RACE_SECONDS * 20)
    assert child.returncode == 0, f"exit {child.returncode}: {child.stderr[-2000:]}"
    assert int(child.stdout.split()[-1]) > 1  # the calls did run while the count changed
