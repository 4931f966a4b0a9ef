"""An interrupt that Python swallows (raised inside a `__del__` or weakref callback, where it can
only be printed as "ignored") still stops the command: no output is committed, the status is
130, and stderr holds only the command's one line."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The body interrupts itself from inside a finaliser, then goes on: the KeyboardInterrupt raised
# there cannot propagate, so without the record the command would finish normally.
PROGRAM = textwrap.dedent("""
    import os, signal, sys, time
    from solvers.atomic import atomic_target
    from solvers.cli_support import run_guarded

    class InterruptsWhenCollected:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # bytecode for the handler to run on, still inside __del__
                pass

    def body():
        InterruptsWhenCollected()  # collected at once
        if sys.argv[2] == "commit":
            with atomic_target(sys.argv[1]) as temporary:
                temporary.write_text("output")
        elif sys.argv[2] == "break":  # what an interrupted library step may raise instead
            raise RuntimeError("no compiled object yet")
        elif sys.argv[2] == "leave-broken-objects":  # llvmlite's, after a compile cut short
            class FailsWhenCollected:
                def __del__(self):
                    raise AttributeError("half made")

            global left_behind
            left_behind = [FailsWhenCollected() for _ in range(3)]  # collected at exit
            raise RuntimeError("no compiled object yet")
        elif sys.argv[2] == "keep-working":
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                time.sleep(0.001)
        return 0

    sys.exit(run_guarded("probe", body, "interrupted; no file was written"))
""")


def run(tmp_path: Path, mode: str, ignoring: bool = False) -> tuple[subprocess.CompletedProcess, float]:
    """The program in a process of its own (started with SIGINT ignored if `ignoring`, as a
    shell starts a background job), its status and how long it ran."""
    target = tmp_path / "out.txt"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(target), mode], cwd=ROOT, capture_output=True,
                          text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN if ignoring else signal.SIG_DFL))
    return done, time.monotonic() - started


def test_a_swallowed_interrupt_does_not_commit_an_output(tmp_path):
    done, _ = run(tmp_path, "commit")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "probe: interrupted; no file was written\n"
    assert list(tmp_path.iterdir()) == []


def test_a_swallowed_interrupt_is_delivered_again_promptly(tmp_path):
    done, elapsed = run(tmp_path, "keep-working")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "probe: interrupted; no file was written\n"
    assert elapsed < 15, f"the work went on for {elapsed:.1f} s after the interrupt"


def test_a_swallowed_interrupt_at_the_end_still_counts(tmp_path):
    done, _ = run(tmp_path, "return")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "probe: interrupted; no file was written\n"


def test_a_command_started_to_ignore_interrupts_keeps_ignoring_them(tmp_path):
    done, _ = run(tmp_path, "commit", ignoring=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.txt").read_text() == "output"


def test_an_error_that_follows_an_interrupt_is_reported_as_the_interrupt(tmp_path):
    """A step cut short by the interrupt (numba's compiler, mid-kernel) may fail with an error of
    its own: the user asked to stop, so it is the interrupt's line and status, not a bug report."""
    done, _ = run(tmp_path, "break")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "probe: interrupted; no file was written\n"


def test_objects_an_interrupt_left_half_made_add_nothing_to_the_line(tmp_path):
    """Finalizers of objects a cut-short step left broken raise at exit; the user sees only the
    interrupt's line, not their "Exception ignored" tracebacks."""
    done, _ = run(tmp_path, "leave-broken-objects")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "probe: interrupted; no file was written\n"
