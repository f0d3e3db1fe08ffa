#!/usr/bin/python3
"""check_hostile.py: hostile inputs to pacer-demo, pacer-bench and the QA tool
(tools/qa.py), as a table. Each case sets up files in a fresh folder, runs
one command and expects either a refusal (a non-zero exit, exactly one line
on stderr holding a given text, no traceback, and every guarded file as it
was: kind, size, mtime, content hash, link target, device number) or
sensible handling (exit 0 and a check of what was written).

  check_hostile.py --demo PACER_DEMO --bench PACER_BENCH --qa tools/qa.py --tmp DIR

Runs under tools/headless.sh (the demo opens windows). Meant to run as root in CI
so that device and link cases are real. As root, the devices are private
copies made with mknod in the case's folder (full: 1,7; null: 1,3; stdout: a
link to /proc/self/fd/1), so a regression that replaces its output destroys
only those, never the machine's /dev; without root they are links to /dev.
Prints one line per case and exits 1 when any failed.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time

SMALL = ["--frames", "3", "--no-overlay", "--width", "320", "--height", "240"]
MIB = 1 << 20


def fingerprint(path):
    """What must not change about a guarded path."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ("missing",)
    kind = stat.S_IFMT(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path))
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        return ("file", st.st_size, st.st_mtime_ns, digest)
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return ("device", kind, st.st_rdev)
    if stat.S_ISDIR(st.st_mode):
        return ("dir", sorted(os.listdir(path)))
    return ("other", kind)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


class Case:
    def __init__(self, name, tool, args, *, setup=None, refuse=None, guard=(), check=None, timeout=30,
                 action=None, code=None, teardown=None, ends_with=0, env=None):
        self.name, self.tool, self.args = name, tool, args
        self.setup = setup          # fn(dir) before the run
        self.refuse = refuse        # text the one stderr line must hold; None: the run must succeed
        self.guard = guard          # paths (relative to dir, or absolute) that must stay as they were
        self.check = check          # fn(dir, proc) -> problem or None, after a successful run
        self.timeout = timeout
        self.action = action        # fn(popen, dir) while it runs (signals)
        self.code = code            # the refusal's exit code, where it must be one (2: bad input)
        self.teardown = teardown    # fn(dir) after the run, whatever happened
        self.ends_with = ends_with  # a run that is not refused: its exit status (1: the display was lost)
        self.env = env              # variables set (None: unset) over this process's environment


def make_devices(d):
    """d/full, d/null: character devices (as /dev/full, /dev/null); d/stdout:
    a link to /proc/self/fd/1, as /dev/stdout."""
    for name, minor in (("full", 7), ("null", 3)):
        path = os.path.join(d, name)
        if os.geteuid() == 0:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        else:
            os.symlink("/dev/" + name, path)
    os.symlink("/proc/self/fd/1", os.path.join(d, "stdout"))


def scenario(text):
    return lambda d: write(os.path.join(d, "s.txt"), text)


SHORT = "at 0s set hz=60\nend frame 3\nexpect frames >= 1\n"


def demo_cases():
    cases = []
    # Devices and links to them are refused and stay what they are.
    for flag in ("--trace", "--chrome-trace", "--summary-json", "--screenshot"):
        for device in ("full", "null"):
            cases.append(Case(f"demo {flag} device {device}", "demo", SMALL + [flag, "{d}/" + device] +
                              (["--screenshot-frame", "1"] if flag == "--screenshot" else []), setup=make_devices,
                              refuse=f"{flag}: cannot write {{d}}/{device}: a", guard=[device]))
    # Counts past int64: refused, not read as INT64_MAX (a run that never ends).
    cases.append(Case("demo --frames 2^64 + 1", "demo", ["--frames", "18446744073709551617"],
                      refuse="--frames: 18446744073709551617 is out of range"))
    cases.append(Case("demo --screenshot-frame 2^64", "demo",
                      SMALL + ["--screenshot", "{d}/s.png", "--screenshot-frame", "18446744073709551616"],
                      refuse="--screenshot-frame: 18446744073709551616 is out of range", guard=["."]))
    # A preemption probability just under 1: each sleep is preempted for at
    # most 64 ticks (SimulatedScheduler::kMaxPreemptTicks), so the run ends.
    cases.append(Case("demo --preempt-prob 0.9999999999 returns", "demo",
                      SMALL + ["--sched-period-ms", "1", "--preempt-prob", "0.9999999999"], timeout=30))
    cases.append(Case("demo --summary-json stdout link", "demo", SMALL + ["--summary-json", "{d}/stdout"],
                      setup=make_devices, refuse="--summary-json: cannot write {d}/stdout: a symbolic link to",
                      guard=["stdout"]))
    cases.append(Case("demo --trace link to device null", "demo", SMALL + ["--trace", "{d}/link"],
                      setup=lambda d: (make_devices(d), os.symlink("null", os.path.join(d, "link"))),
                      refuse="a symbolic link to a character device", guard=["link", "null"]))
    cases.append(Case("demo --trace dangling link", "demo", SMALL + ["--trace", "{d}/link"],
                      setup=lambda d: os.symlink("gone.csv", os.path.join(d, "link")),
                      refuse="dangling", guard=["link", "gone.csv"]))
    cases.append(Case("demo --trace a directory", "demo", SMALL + ["--trace", "{d}/sub"],
                      setup=lambda d: os.mkdir(os.path.join(d, "sub")), refuse="a directory", guard=["sub"]))
    cases.append(Case("demo --trace in a missing folder", "demo", SMALL + ["--trace", "{d}/no/t.csv"],
                      refuse="--trace: cannot write", guard=["no"], code=2))
    # Names of all the bytes a name may have: the temporary file has its own short name.
    long_name = "n" * 250
    cases.append(Case("demo outputs with 255-byte names", "demo",
                      SMALL + ["--trace", "{d}/" + long_name + ".csv", "--summary-json", "{d}/" + long_name + ".jso"],
                      check=lambda d, p: None if sorted(os.listdir(d)) == [long_name + ".csv", long_name + ".jso"]
                      else f"left {sorted(n[-12:] for n in os.listdir(d))}"))
    cases.append(Case("demo --scenario with a 100 KB word", "demo", SMALL + ["--scenario", "{d}/s.txt"],
                      setup=scenario("x" * 100_000 + "\n" + SHORT),
                      refuse="unknown statement 'xxxxxxxxxxxxxxxxxxxxxxxx...'", code=2))

    def two_outputs(d):
        write(os.path.join(d, "o"), "precious\n")
    cases.append(Case("demo --trace o --summary-json o", "demo", SMALL + ["--trace", "{d}/o", "--summary-json", "{d}/o"],
                      setup=two_outputs, refuse="--summary-json: {d}/o is also the --trace file", guard=["o"]))
    cases.append(Case("demo --trace o --chrome-trace ./o", "demo",
                      SMALL + ["--trace", "{d}/o", "--chrome-trace", "{d}/./o"],
                      setup=two_outputs, refuse="is also the --trace file", guard=["o"]))
    cases.append(Case("demo new --trace n --screenshot sub/../n", "demo",
                      SMALL + ["--trace", "{d}/n", "--screenshot", "{d}/sub/../n", "--screenshot-frame", "1"],
                      setup=lambda d: os.mkdir(os.path.join(d, "sub")),
                      refuse="is also the --trace file", guard=["n"]))
    cases.append(Case("demo --trace = --scenario", "demo", SMALL + ["--scenario", "{d}/s.txt", "--trace", "{d}/s.txt"],
                      setup=scenario(SHORT), refuse="is the --scenario file", guard=["s.txt"]))

    def link_to_scenario(d):
        scenario(SHORT)(d)
        os.symlink("s.txt", os.path.join(d, "alias"))
    cases.append(Case("demo --summary-json link to --scenario", "demo",
                      SMALL + ["--scenario", "{d}/s.txt", "--summary-json", "{d}/alias"],
                      setup=link_to_scenario, refuse="is the --scenario file", guard=["s.txt", "alias"]))
    for flag in ("--trace", "--chrome-trace", "--summary-json", "--screenshot", "--scenario"):
        cases.append(Case(f"demo {flag} ''", "demo", SMALL + [flag, ""], refuse=f"{flag}: empty path"))

    # Inputs: devices, FIFOs, folders and huge files are refused without reading them.
    cases.append(Case("demo --scenario /dev/zero", "demo", SMALL + ["--scenario", "/dev/zero"],
                      refuse="a character device, not a regular file", timeout=10))
    cases.append(Case("demo --scenario FIFO", "demo", SMALL + ["--scenario", "{d}/fifo"],
                      setup=lambda d: os.mkfifo(os.path.join(d, "fifo")), refuse="a FIFO, not a regular file",
                      guard=["fifo"], timeout=10))
    cases.append(Case("demo --scenario a directory", "demo", SMALL + ["--scenario", "{d}"],
                      refuse="a directory, not a regular file"))

    def huge(d):
        with open(os.path.join(d, "s.txt"), "wb") as f:
            f.truncate(16 * MIB + 1)
    cases.append(Case("demo --scenario 16 MiB + 1", "demo", SMALL + ["--scenario", "{d}/s.txt"], setup=huge,
                      refuse="more than the 16 MiB", guard=["s.txt"], timeout=10))
    cases.append(Case("demo --scenario with control bytes", "demo", SMALL + ["--scenario", "{d}/s.txt"],
                      setup=scenario("at 0s set \x1b[31mhz=60\nend frame 3\n"), refuse="s.txt:1:", guard=["s.txt"]))
    cases.append(Case("demo --scenario word with a BOM inside", "demo", SMALL + ["--scenario", "{d}/s.txt"],
                      setup=scenario("end frame 3\nat 0s set \ufeffhz=60\n"), refuse="\\xef\\xbb\\xbf",
                      guard=["s.txt"]))

    cases.append(Case("demo --trace path with control bytes", "demo", SMALL + ["--trace", "{d}/no/\x1b[31mred"],
                      refuse="no/\\x1b[31mred: No such file"))
    cases.append(Case("demo --scenario with a byte that is not UTF-8", "demo", SMALL + ["--scenario", "{d}/s.txt"],
                      setup=lambda d: write(os.path.join(d, "s.txt"), b"end frame 3\nat 0s set h\xffz=60\n"),
                      refuse="h\\xffz", guard=["s.txt"]))

    # Sensible handling.
    cases.append(Case("demo --scenario with a BOM", "demo", SMALL + ["--scenario", "{d}/s.txt"],
                      setup=scenario("\ufeff" + SHORT)))

    def through_link(d):
        write(os.path.join(d, "target.csv"), "old\n")
        os.symlink("target.csv", os.path.join(d, "link"))

    def link_written_through(d, proc):
        if not os.path.islink(os.path.join(d, "link")):
            return "the link was replaced"
        with open(os.path.join(d, "target.csv"), encoding="utf-8") as f:
            return None if f.readline().startswith("Frame,") else "the target did not get the trace"
    cases.append(Case("demo --trace link to a regular file", "demo", SMALL + ["--trace", "{d}/link"],
                      setup=through_link, check=link_written_through))

    def others_temp(d):
        write(os.path.join(d, "s.json.tmp"), "someone else's\n")
    cases.append(Case("demo keeps another writer's s.json.tmp", "demo", SMALL + ["--summary-json", "{d}/s.json"],
                      setup=others_temp, guard=["s.json.tmp"],
                      check=lambda d, p: None if os.path.isfile(os.path.join(d, "s.json")) else "no summary"))

    bad_name = os.fsdecode(b"caf\xe9.txt")

    def non_utf8_name(d):
        write(os.path.join(d, bad_name), "title \"caf\xe9\"\n" + SHORT)

    def valid_json_outputs(d, proc):
        for name in ("s.json", "c.json"):
            with open(os.path.join(d, name), "rb") as f:
                data = f.read()
            try:
                json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                return f"{name}: {e}"
        return None
    cases.append(Case("demo non-UTF-8 scenario name", "demo",
                      SMALL + ["--scenario", "{d}/" + bad_name, "--summary-json", "{d}/s.json",
                               "--chrome-trace", "{d}/c.json"],
                      setup=non_utf8_name, check=valid_json_outputs))
    return cases


def wait_for_handlers(proc, timeout_s=20):
    """Waits until the process catches SIGTERM (Linux: SigCgt in /proc), that
    is until the demo has installed its handlers and opens its window."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status", encoding="ascii") as f:
                caught = next(int(line.split()[1], 16) for line in f if line.startswith("SigCgt:"))
            if caught & (1 << (signal.SIGTERM - 1)):
                return
        except (OSError, StopIteration, ValueError):
            pass
        time.sleep(0.02)


def outputs_written(d, proc):
    """The run's trace and summary are whole, and no temporary file is left."""
    for name in ("t.csv", "s.json"):
        if not os.path.isfile(os.path.join(d, name)):
            return f"{name} not written"
    with open(os.path.join(d, "s.json"), encoding="utf-8") as f:
        json.load(f)
    return None


def message_cases():
    """Refusals that once named the wrong thing: the flag, the value, the line."""
    cases = []
    for value, says in (("5abc", "--width: '5abc' is not a decimal whole number"),
                        ("nan", "--width: 'nan' is not a decimal whole number")):
        cases.append(Case(f"demo --width {value}", "demo", ["--width", value], refuse=says, code=2))
    cases.append(Case("demo --timer-margin-us 1e+23", "demo", ["--timer-margin-us", "1e+23"],
                      refuse="--timer-margin-us: 1e+23 is too large for tuning.timer.margin_ns", code=2))
    cases.append(Case("demo scenario screenshot past its end names the line", "demo",
                      ["--scenario", "{d}/s.txt"], setup=scenario("screenshot frame 50\nend frame 5\n"),
                      refuse="s.txt:1: screenshot frame 50 is not before the end", code=2))

    def cr_only(d, proc):
        return None if '"end":{"frame":5}' in proc.stdout.replace(" ", "") else f"not read as lines: {proc.stdout!r}"
    # The display's VRR range and the background rates: the flag and the library's field named.
    for args, says in ((["--vrr-range", "144-48"], "--vrr-range: 144-48 -> display.vrr_min_hz: 144 is above "
                                                   "display.vrr_max_hz 48"),
                       (["--vrr-range", "60-60"], "--vrr-range: 60-60 -> display.vrr_min_hz: 60 equals "
                                                  "display.vrr_max_hz: a range of zero"),
                       (["--vrr-range", "48"], "--vrr-range: '48' is not one of host, or MIN-MAX in Hz"),
                       (["--vrr-range", "0-144"], "--vrr-range: 0-144 -> display.vrr_min_hz: 0 with "
                                                  "display.vrr_max_hz 144: give both or neither"),
                       (["--vrr", "sometimes"], "--vrr: 'sometimes' is not one of off, on, auto"),
                       (["--background-hz", "-30"], "--background-hz: -30 is out of range 0 (off) or [0.001, 10000]"),
                       (["--hidden-hz", "nan"], "--hidden-hz: 'nan' is not a number")):
        cases.append(Case(f"demo {' '.join(args)}", "demo", args, refuse=says, code=2))
    cases.append(Case("demo scenario with CR-only line ends", "demo", ["--scenario", "{d}/s.txt",
                                                                         "--describe-scenario"],
                      setup=scenario("title \"cr\"\rat 0s set hz=60\rend frame 5\r"), check=cr_only))
    return cases


def signal_once_up(sig):
    """An action: sig a second after the demo's handlers are in place; the
    time it was sent (the bound on how long the run may take to end)."""
    def action(proc, d):
        wait_for_handlers(proc)
        time.sleep(1.0)
        proc.send_signal(sig)
        return time.monotonic()
    return action


def ended_by_check(expected, with_outputs):
    """A check: the summary's ended_by says `expected`; with_outputs: the
    trace and the summary were both written first (outputs_written)."""
    def check(d, proc):
        problem = outputs_written(d, proc) if with_outputs else None
        if problem:
            return problem
        with open(os.path.join(d, "s.json"), encoding="utf-8") as f:
            by = json.load(f)["run"].get("ended_by")
        return None if by == expected else f"ended_by {by!r}, not {expected!r}"
    return check


def signal_cases():
    cases = []
    for backend in ("sdl2", "glfw"):
        # HUP (a closed terminal), QUIT and USR1 end a run as TERM does: its
        # trace and summary written, no temporary file left.
        for sig in (signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
            cases.append(Case(f"demo {backend} {sig.name} keeps the trace and summary", "demo",
                              ["--backend", backend, "--no-overlay", "--width", "320", "--height", "240",
                               "--trace", "{d}/t.csv", "--summary-json", "{d}/s.json"], action=signal_once_up(sig),
                              check=ended_by_check(sig.name, with_outputs=True), timeout=20))

        # The X server dies mid-run: Xlib ends the process (exit 1), and the
        # run's trace and summary are still written (its exit guard).
        def kill_x(proc, d):
            time.sleep(4.0)   # the demo up and running on headless.sh's own Xvfb
            found = subprocess.run(["pgrep", "-P", str(proc.pid), "Xvfb"], capture_output=True, text=True)
            for pid in found.stdout.split():
                os.kill(int(pid), signal.SIGTERM)
            return None

        display_lost = ended_by_check("the display server's connection was lost", with_outputs=True)
        cases.append(Case(f"demo {backend} whose X server dies keeps the trace and summary", "headless_demo",
                          ["--backend", backend, "--no-overlay", "--width", "320", "--height", "240",
                           "--trace", "{d}/t.csv", "--summary-json", "{d}/s.json"], action=kill_x,
                          check=display_lost, ends_with=1, timeout=30))

        # A reader that goes away (pacer-demo ... | head -1): the summary's
        # print fails, the files do not.
        def close_reader(proc, d):
            proc.stdout.close()
            return None

        def pipe_check(d, proc):
            return outputs_written(d, proc)
        cases.append(Case(f"demo {backend} with its stdout's reader gone keeps its files", "demo",
                          ["--backend", backend, "--no-overlay", "--width", "320", "--height", "240", "--frames",
                           "60", "--summary", "--trace", "{d}/t.csv", "--summary-json", "{d}/s.json"],
                          action=close_reader, check=pipe_check, timeout=30))

        # A signal during a frame's 11 s of synthetic work: the work stops at
        # once (the timing bound below), not after it.
        def spike_signal(proc, d):
            wait_for_handlers(proc)
            time.sleep(2.0)
            proc.send_signal(signal.SIGTERM)
            return time.monotonic()
        cases.append(Case(f"demo {backend} SIGTERM during 11 s of frame work ends at once", "demo",
                          ["--backend", backend, "--no-overlay", "--width", "320", "--height", "240", "--work-ms",
                           "1000", "--spike-ms", "10000", "--spike-every", "1", "--trace", "{d}/t.csv",
                           "--summary-json", "{d}/s.json"], action=spike_signal, check=outputs_written, timeout=30))

        for sig in (signal.SIGTERM, signal.SIGINT):
            action, summary_written = signal_once_up(sig), ended_by_check(sig.name, with_outputs=False)
            # 2 Hz and 0.001 Hz: the signal cuts the wait (Pacer::interrupt);
            # the run ends within the bound below either way, not after a
            # 1000 s frame.
            for hz in ("2", "0.001"):
                cases.append(Case(f"demo {backend} {sig.name} at {hz} Hz writes the summary", "demo",
                                  ["--backend", backend, "--hz", hz, "--no-overlay", "--width", "320", "--height",
                                   "240", "--summary-json", "{d}/s.json"], action=action, check=summary_written,
                                  timeout=20))
        # A display server that stops answering (its Xvfb stopped) holds the
        # frame loop in the swap: a second signal then ends the process at
        # once, its temporary files removed first (run_case finds none left).
        def stop_x_then_term_twice(proc, d):
            time.sleep(4.0)   # the demo up and running on headless.sh's own Xvfb
            xvfb = subprocess.run(["pgrep", "-P", str(proc.pid), "Xvfb"], capture_output=True, text=True).stdout.split()
            demo = subprocess.run(["pgrep", "-P", str(proc.pid), "pacer-demo"], capture_output=True,
                                  text=True).stdout.split()
            for pid in xvfb:
                os.kill(int(pid), signal.SIGSTOP)
            time.sleep(0.5)
            for pid in demo:
                os.kill(int(pid), signal.SIGTERM)
                time.sleep(0.5)
                os.kill(int(pid), signal.SIGTERM)
            time.sleep(0.5)
            for pid in xvfb:
                os.kill(int(pid), signal.SIGCONT)
            return None
        cases.append(Case(f"demo {backend} SIGTERM twice on a stopped X server leaves no temporary file",
                          "headless_demo",
                          ["--backend", backend, "--no-overlay", "--width", "320", "--height", "240", "--trace",
                           "{d}/t.csv", "--chrome-trace", "{d}/c.json", "--summary-json", "{d}/s.json"],
                          action=stop_x_then_term_twice, ends_with=128 + signal.SIGTERM, timeout=30))
        # --seconds ends the run on time inside a 20 s frame.
        def on_time(d, proc):
            return None if proc.elapsed_s < 8 else f"took {proc.elapsed_s:.1f} s for --seconds 2 at 0.05 Hz"
        cases.append(Case(f"demo {backend} --hz 0.05 --seconds 2 ends on time", "demo",
                          ["--backend", backend, "--hz", "0.05", "--seconds", "2", "--no-overlay", "--width", "320",
                           "--height", "240", "--summary-json", "{d}/s.json"], check=on_time, timeout=20))
    return cases


def stall_case():
    def action(proc, d):
        wait_for_handlers(proc)
        time.sleep(1.5)
        proc.send_signal(signal.SIGSTOP)
        time.sleep(0.5)
        proc.send_signal(signal.SIGCONT)
        return None

    def clamped(d, proc):
        import csv
        with open(os.path.join(d, "t.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        intervals = [float(r["MsBetweenSimulationStart"]) for r in rows if r["MsBetweenSimulationStart"] != "NA"]
        steps = [float(r["MsDt"]) for r in rows]
        if max(intervals) < 400:
            return f"no stall seen (longest interval {max(intervals):.1f} ms)"
        return None if max(steps) <= 100.0 + 1e-6 else f"raw dt {max(steps):.1f} ms, not clamped to 100"
    return [Case("demo raw dt is clamped after a SIGSTOP stall", "demo",
                 ["--hz", "30", "--frames", "150", "--dt-mode", "raw", "--no-overlay", "--width", "320",
                  "--height", "240", "--trace", "{d}/t.csv"], action=action, check=clamped, timeout=30)]


def can_mount_tmpfs():
    """Whether this process may mount a tmpfs (root, and not a container that
    forbids it); says so when not, since the case that needs it is left out."""
    import tempfile
    with tempfile.TemporaryDirectory() as where:
        ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", where],
                            capture_output=True).returncode == 0
        if ok:
            subprocess.run(["umount", where], check=False)
    if not ok:
        print("note: cannot mount a tmpfs here, so the full-disk case is left out")
    return ok


def bench_cases():
    quick = ["--quick", "--experiments", "accuracy", "--conditions", "idle", "--strategies", "sleep", "--hz", "1000",
             "--frames", "10"]
    cases = []
    for flag, value in (("--warmup-s", "nan"), ("--work-ms", "nan"), ("--preempt", "nan"), ("--warmup-s", "inf"),
                        ("--work-ms", "-inf"), ("--timer-quantile", "nan"), ("--preempt", "1e400"),
                        ("--work-ms", "1e9"), ("--hz", "nan"), ("--hz", "1e-300"), ("--frames", "-1"),
                        ("--timer-slack-ns", "1000000000"), ("--wait-slack-ns", "9223372036854775807"),
                        ("--run-s", "nan"), ("--settle-s", "nan"), ("--hz", "0x3e8"), ("--hz", " 1000"),
                        ("--frames", "0x64"), ("--rounds", "18446744073709551617")):
        cases.append(Case(f"bench {flag} {value!r}", "bench", quick + [flag, value], refuse=flag))
    # 0 is no value for a flag whose default is left out; the seed is a
    # non-negative int64; the library's refusal names the flag that set it.
    for flag, value, says in (("--timer-quantile", "0", "--timer-quantile: 0 is no value"),
                              ("--wait-slack-ns", "0", "--wait-slack-ns: 0 is no value"),
                              ("--wait-slice-ns", "0", "--wait-slice-ns: 0 is no value"),
                              ("--seed", "-1", "--seed: -1 is out of range"),
                              ("--seed", "18446744073709551616", "--seed: 18446744073709551616 is out of range"),
                              ("--wait-slice-ns", "50", "--wait-slice-ns: tuning.wait.sched_slice_ns")):
        cases.append(Case(f"bench {flag} {value}", "bench", quick + [flag, value], refuse=says, code=2))
    for args, says in ((["--bogus"], "not expected"), (["--threads", "0x10"], "--threads: '0x10'"),
                       (["--hz", "nan"], "--hz: 'nan'")):
        cases.append(Case(f"wake probe {' '.join(args)}", "probe", args, refuse=says, code=2))
    # A list names each run once: a repeat would measure it twice and print its rows twice.
    for flag, value in (("--experiments", "1,1"), ("--experiments", "accuracy,1"), ("--hz", "1000,,1000"),
                        ("--hz", "1000,1000"), ("--strategies", "sleep,sleep")):
        cases.append(Case(f"bench {flag} {value}", "bench", quick + [flag, value], refuse=flag))
    # Echoed input is cut short: the line stays one short line.
    cases.append(Case("bench --strategies of 100 KB", "bench", quick + ["--strategies", "x" * 100_000],
                      refuse="unknown strategy 'xxxxxxxxxxxxxxxxxxxxxxxx...'"))
    for flag in ("--csv", "--csv-dir"):
        cases.append(Case(f"bench {flag} ''", "bench", quick + [flag, ""], refuse=f"{flag}: empty path"))
    cases.append(Case("bench --csv device full", "bench", quick + ["--csv", "{d}/full"], setup=make_devices,
                      refuse="--csv: {d}/full", guard=["full"]))
    cases.append(Case("bench --csv link to device null", "bench", quick + ["--csv", "{d}/link"],
                      setup=lambda d: (make_devices(d), os.symlink("null", os.path.join(d, "link"))),
                      refuse="--csv:", guard=["link", "null"]))
    cases.append(Case("bench --csv-dir device null", "bench", quick + ["--csv-dir", "{d}/null"], setup=make_devices,
                      refuse="--csv-dir", guard=["null"]))

    # A full disk (a filled 8 KiB tmpfs; mounting needs root, as CI is): the
    # up-front check writes the CSV's header, so the run is refused before
    # anything is measured, not after.
    if can_mount_tmpfs():
        def full_disk(d):
            os.makedirs(os.path.join(d, "fs"))
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", os.path.join(d, "fs")], check=True)
            write(os.path.join(d, "fs", "fill"), b"\0" * 8192)
        cases.append(Case("bench --csv-dir on a full disk", "bench",
                          ["--experiments", "tradeoff", "--conditions", "idle", "--hz", "60", "--run-s", "10",
                           "--csv-dir", "{d}/fs/out"],
                          setup=full_disk, refuse="No space left on device", code=2, timeout=10,
                          teardown=lambda d: subprocess.run(["umount", os.path.join(d, "fs")], check=False)))

    def old_csv(d):
        write(os.path.join(d, "old.csv"), "a,b\n1,2\n")
    cases.append(Case("bench --csv kept on a usage error", "bench",
                      ["--experiments", "sleep", "--csv", "{d}/old.csv"], setup=old_csv, refuse="--csv",
                      guard=["old.csv"]))

    def kill_soon(proc, d):
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        return None
    # Killed mid-run: the old CSV is untouched and no temporary file is left.
    cases.append(Case("bench --csv kept when killed", "bench",
                      ["--experiments", "accuracy", "--conditions", "idle", "--strategies", "sleep", "--hz", "10",
                       "--frames", "100", "--csv", "{d}/old.csv"], setup=old_csv, refuse="", guard=["old.csv", "."],
                      action=kill_soon))

    def replaced(d, proc):
        with open(os.path.join(d, "old.csv"), encoding="utf-8") as f:
            return None if f.readline().startswith("condition,") else "the CSV was not written"
    cases.append(Case("bench --csv replaced on success", "bench", quick + ["--csv", "{d}/old.csv"], setup=old_csv,
                      check=replaced))
    return cases


def display_lock_cases():
    """tools/display_lock.py's bad flags and kept runs: one line, exit 2."""
    kept = "sdl2-3ms-000-strategy-vsync"

    def replay_with(trace, summary):
        def setup(d):
            os.makedirs(os.path.join(d, "r", kept))
            write(os.path.join(d, "r", kept, "trace.csv"), trace)
            write(os.path.join(d, "r", kept, "summary.json"), summary)
        return setup

    def folder(name):
        return lambda d: os.makedirs(os.path.join(d, name))
    replay = ["--backends", "sdl2", "--work-ms", "3", "--runs", "1", "--step-ms", "0", "--replay", "{d}/r"]
    cases = [
        Case("display_lock --replay a missing folder", "display_lock", ["--replay", "{d}/none"],
             refuse="not a folder", code=2),
        Case("display_lock --replay an empty folder", "display_lock", ["--replay", "{d}/r"], setup=folder("r"),
             refuse="empty", code=2),
        Case("display_lock --replay a file", "display_lock", ["--replay", "{d}/f"],
             setup=lambda d: write(os.path.join(d, "f"), "x"), refuse="not a folder", code=2),
        Case("display_lock --replay stray names", "display_lock", ["--replay", "{d}/r"],
             setup=lambda d: os.makedirs(os.path.join(d, "r", "hello")), refuse="'hello' is not a run", code=2),
        Case("display_lock --work-ms abc", "display_lock", ["--work-ms", "abc"], refuse="--work-ms: 'abc'", code=2),
        Case("display_lock --work-ms -1", "display_lock", ["--work-ms", "-1"], refuse="--work-ms: -1 is out of range",
             code=2),
        Case("display_lock --leads-ms nan", "display_lock", ["--leads-ms", "1,nan"],
             refuse="--leads-ms: nan is out of range", code=2),
        Case("display_lock --size 0x480", "display_lock", ["--size", "0x480"],
             refuse="--size: '0x480' is not WIDTHxHEIGHT", code=2),
        Case("display_lock --output huge", "display_lock", ["--output", "123456x1"],
             refuse="--output: '123456x1' is not WIDTHxHEIGHT", code=2),
        Case("display_lock --out a folder", "display_lock", ["--out", "{d}/o"], setup=folder("o"),
             refuse="--out {d}/o: a folder", code=2),
        Case("display_lock --out in a missing folder", "display_lock", ["--out", "{d}/none/x.md"],
             refuse="no folder", code=2),
        Case("display_lock --runs 0", "display_lock", ["--runs", "0"], refuse="--runs: 0 is out of range", code=2),
        Case("display_lock --frames 0", "display_lock", ["--frames", "0"], refuse="--frames: 0 is out of range",
             code=2),
        Case("display_lock --backends sdl3", "display_lock", ["--backends", "sdl3"],
             refuse="--backends: 'sdl3' is not sdl2 or glfw", code=2),
        Case("display_lock --keep under /proc", "display_lock", ["--keep", "/proc/pacer-none/x"],
             refuse="--keep /proc/pacer-none/x: cannot make the folder", code=2),
        Case("display_lock --keep under a file", "display_lock", ["--keep", "{d}/f/x"],
             setup=lambda d: write(os.path.join(d, "f"), "x"), refuse="cannot make the folder", code=2),
        Case("display_lock --keep a file", "display_lock", ["--keep", "{d}/f"],
             setup=lambda d: write(os.path.join(d, "f"), "x"), refuse="--keep {d}/f: not a folder", code=2),
        Case("display_lock a binary kept trace", "display_lock", replay,
             setup=replay_with(b"\x00\xff\xfe", "{}"), refuse="cannot read the trace", code=2),
        Case("display_lock a kept summary that is a list", "display_lock", replay,
             setup=replay_with("Frame,Strategy\n", "[]"), refuse="not a pacer-demo summary", code=2),
    ]
    return cases


def run_demo_cases(root):
    """tools/run-demo.sh: a refused run plots nothing, a flag without its
    value is the demo's error (no file named after the next flag), and a
    DISPLAY with no server behind it is said, not run past."""
    shots = os.path.join(root, "build", "run-demo")

    def no_plots(d, proc):
        made = [n for n in ("run-timeline.png", "trace.csv") if os.path.exists(os.path.join(shots, n))]
        if made:
            return f"a refused run left {made} in {shots}"
        return None if "no plots" in proc.stderr else f"stderr does not say so: {proc.stderr.strip()[-200:]!r}"

    def no_stray(d, proc):
        stray = os.path.join(root, "--summary")
        if os.path.exists(stray):
            os.remove(stray)
            return "a file named --summary appeared in the checkout"
        return None if "--trace" in proc.stderr else f"stderr does not name --trace: {proc.stderr.strip()!r}"

    def said(d, proc):
        return None if "SDL found no display" in proc.stderr else f"not said: {proc.stderr.strip()[-200:]!r}"
    headless = {"DISPLAY": None, "WAYLAND_DISPLAY": None}
    return [
        Case("run-demo.sh --seconds 0 plots nothing", "run_demo", ["--seconds", "0"], env=headless, ends_with=2,
             check=no_plots, timeout=120),
        Case("run-demo.sh --trace without its value", "run_demo", ["--seconds", "1", "--trace"], env=headless,
             ends_with=2, check=no_stray, timeout=120),
        Case("run-demo.sh with DISPLAY naming no server", "run_demo", ["--seconds", "1"],
             env={"DISPLAY": ":77", "WAYLAND_DISPLAY": None}, ends_with=1, check=said, timeout=120),
    ]


def presents_case():
    """Two frames make one present interval too few: the summary says why, not
    that mark_present was never called."""
    def said(d, proc):
        line = "presents: not measured (no two frames in a row with a present mark)"
        return None if line in proc.stdout else f"the summary lacks {line!r}: {proc.stdout[:300]!r}"
    return [Case("demo --frames 2: presents not measured, and why", "demo",
                 ["--frames", "2", "--no-overlay", "--width", "320", "--height", "240", "--summary"], check=said)]


def setup_cases():
    """tools/setup.sh where Debian's package tools are missing: it names them."""
    return [Case("setup.sh without dpkg-query on PATH", "setup", ["library"], env={"PATH": "/nonexistent"},
                 refuse="dpkg-query is not on PATH", code=2)]


def qa_cases():
    cases = []

    def user_folder(d):
        os.makedirs(os.path.join(d, "out", "runs"))
        write(os.path.join(d, "out", "runs", "mine.log"), "mine\n")
        write(os.path.join(d, "out", "thesis.tex"), "precious\n")
        scenario(SHORT)(d)
    cases.append(Case("qa --out a user's folder", "qa", ["--backends", "glfw", "--out", "{d}/out", "{d}/s.txt"],
                      setup=user_folder, refuse="not made by this tool",
                      guard=["out", "out/thesis.tex", "out/runs", "out/runs/mine.log"]))
    # qa.py reads scenarios through the demo (--describe-scenario): one
    # grammar, the demo's messages, its 16 MiB bound, no arithmetic on huge ends.
    cases.append(Case("qa end 1.2.3s", "qa", ["--out", "{d}/out", "{d}/s.txt"],
                      setup=scenario("at 0s set hz=30\nend 1.2.3s\nexpect frames >= 1\n"),
                      refuse="s.txt:2: end: '1.2.3s' is not a time", guard=["s.txt", "out"], code=2))
    cases.append(Case("qa hz=.", "qa", ["--out", "{d}/out", "{d}/s.txt"],
                      setup=scenario("at 0s set hz=.\nend 1s\nexpect frames >= 1\n"),
                      refuse="s.txt:1: hz: '.' is not a number", guard=["s.txt", "out"], code=2))
    cases.append(Case("qa end 4000000000s", "qa", ["--out", "{d}/out", "{d}/s.txt"],
                      setup=scenario("end 4000000000s\nexpect frames >= 1\n"),
                      refuse="s.txt:1: end: time '4000000000s' is over 1e9 s", guard=["s.txt", "out"], code=2))
    for name, text in (("end frame 2^63-1", "end frame 9223372036854775807\n"),
                       ("hz=0.001, end frame 1e8", "at 0s set hz=0.001\nend frame 100000000\n")):
        cases.append(Case(f"qa --quick {name}", "qa", ["--quick", "--out", "{d}/out", "{d}/s.txt"],
                          setup=scenario(text + "expect frames >= 1\n"), refuse="no scenario to run",
                          guard=["s.txt", "out"], code=2))
    def sparse_gib(d):
        with open(os.path.join(d, "s.txt"), "wb") as f:
            f.truncate(1 << 30)
    cases.append(Case("qa scenario of 1 GiB", "qa", ["--out", "{d}/out", "{d}/s.txt"], setup=sparse_gib,
                      refuse="more than the 16 MiB a scenario may have", guard=["out"], code=2))
    for name, args in (("--size 0x0", ["--size", "0x0"]), ("--backends glfw,glfw", ["--backends", "glfw,glfw"]),
                       ("--demo /bin/true", ["--demo", "/bin/true"]), ("one scenario twice", ["{d}/s.txt"])):
        cases.append(Case(f"qa {name}", "qa", ["--out", "{d}/out"] + args + ["{d}/s.txt"], setup=scenario(SHORT),
                          refuse={"--size 0x0": "--size", "--backends glfw,glfw": "glfw given twice",
                                  "--demo /bin/true": "did not describe", "one scenario twice": "given twice"}[name],
                          guard=["s.txt", "out"], code=2))

    def huge_bench_value(d):
        scenario(SHORT)(d)
        os.makedirs(os.path.join(d, "csv"))
        write(os.path.join(d, "csv", "sleep.csv"),
              "strategy,requested_us,actual_mean_us,actual_p99_us\nsleep,1000,1e308,1100\n")
    cases.append(Case("qa --bench-csv with 1e308", "qa", ["--backends", "glfw", "--size", "320x240", "--out",
                                                         "{d}/out", "--bench-csv", "{d}/csv", "{d}/s.txt"],
                      setup=huge_bench_value, refuse="'actual_mean_us': 1e308 is out of range", timeout=120))
    # The demo's grammar is the QA tool's: exponents are numbers in both.
    cases.append(Case("qa end 5e-1s, hz=6e1", "qa",
                      ["--backends", "glfw", "--size", "320x240", "--out", "{d}/out", "{d}/s.txt"],
                      setup=scenario("at 0s set hz=6e1\nend 5e-1s\nexpect frames >= 1\n"), timeout=120))
    cases.append(Case("qa --out ''", "qa", ["--out", "", "{d}/s.txt"], setup=scenario(SHORT), refuse="--out: empty"))
    # Things that exist but are no regular file are called so, not missing.
    cases.append(Case("qa scenario /dev/zero", "qa", ["--out", "{d}/out", "/dev/zero"], refuse="not a regular file",
                      guard=["out"], code=2))
    cases.append(Case("qa --seat-module /dev/null", "qa", ["--display", "weston", "--seat-module", "/dev/null",
                                                          "--out", "{d}/out", "{d}/s.txt"], setup=scenario(SHORT),
                      refuse="--seat-module: /dev/null: not a regular file", guard=["out"], code=2))

    # A short scenario that is not UTF-8, run twice into one folder: it
    # passes, and the second run deletes only what the first one wrote.
    def rerun(d):
        write(os.path.join(d, "s.txt"), b"title \"caf\xe9\"\nat 0s set hz=60\nend frame 5\nexpect frames >= 1\n")
        write(os.path.join(d, "t.txt"), SHORT)
        os.makedirs(os.path.join(d, "out"))
        write(os.path.join(d, "out", ".qa-report"), "# earlier run\nf runs/old.log\nd runs\n")
        os.makedirs(os.path.join(d, "out", "runs"))
        write(os.path.join(d, "out", "runs", "old.log"), "old\n")
        write(os.path.join(d, "out", "notes.txt"), "the user's\n")

    def rerun_check(d, proc):
        out = os.path.join(d, "out")
        if os.path.exists(os.path.join(out, "runs", "old.log")):
            return "the earlier run's file was not deleted"
        if not os.path.isfile(os.path.join(out, "notes.txt")):
            return "the user's file was deleted"
        if "PASS  s on glfw" not in proc.stdout or "PASS  t on glfw" not in proc.stdout:
            return "the short scenarios did not pass: " + proc.stdout.strip().replace("\n", " | ")
        return None
    cases.append(Case("qa short non-UTF-8 scenarios, rerun", "qa",
                      ["--backends", "glfw", "--size", "320x240", "--out", "{d}/out", "{d}/s.txt", "{d}/t.txt"],
                      setup=rerun, guard=["out/notes.txt"], check=rerun_check, timeout=120))
    return cases


def run_case(case, tools, tmp):
    d = os.path.join(tmp, "hostile-" + "".join(c if c.isalnum() else "-" for c in case.name))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    if case.setup:
        case.setup(d)
    guarded = [g if os.path.isabs(g) else os.path.join(d, g) for g in case.guard]
    before = {g: fingerprint(g) for g in guarded}
    args = [a.replace("{d}", d) for a in case.args]
    command = tools[case.tool] + args
    started_at = time.monotonic()
    env = None
    if case.env:
        env = dict(os.environ)
        for key, value in case.env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            cwd=d, env=env)
    sent_at = case.action(proc, d) if case.action else None
    try:
        out, err = proc.communicate(timeout=case.timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return f"did not end within {case.timeout} s (hang?)"
    ended_at = time.monotonic()
    proc.elapsed_s = ended_at - started_at
    proc.stdout, proc.stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    # qa.py's warning that the machine is loaded says nothing of the input.
    lines = [line for line in proc.stderr.splitlines()
             if line.strip() and not line.startswith("qa: warning: load average")]
    problems = []
    if "Traceback" in proc.stderr:
        problems.append("a Python traceback")
    if case.refuse is not None:
        if proc.returncode == 0:
            problems.append("exit 0, expected a refusal")
        elif case.code is not None and proc.returncode != case.code:
            problems.append(f"exit {proc.returncode}, expected {case.code}")
        if case.refuse:
            expected = case.refuse.replace("{d}", d)
            if len(lines) != 1:
                problems.append(f"{len(lines)} lines on stderr, expected 1: {lines[:3]}")
            elif expected not in lines[0]:
                problems.append(f"stderr {lines[0]!r} lacks {expected!r}")
            if "\x1b" in proc.stderr:
                problems.append("a raw control byte on stderr")
    else:
        if proc.returncode != case.ends_with:
            problems.append(f"exit {proc.returncode}, expected {case.ends_with}: {lines[-1:] if lines else ''}")
        elif case.check:
            problem = case.check(d, proc)
            if problem:
                problems.append(problem)
    if sent_at is not None and ended_at - sent_at > 0.5 + 2.0:
        problems.append(f"ended {ended_at - sent_at:.1f} s after the signal (it cuts the wait; 2.5 s allowed "
                        "for the teardown on a loaded VM)")
    for g in guarded:
        after = fingerprint(g)
        if after != before[g]:
            problems.append(f"{g} changed: {before[g][:2]} -> {after[:2]}")
    leftovers = [n for n in os.listdir(d) if n.startswith(".pacer-")]
    if leftovers:
        problems.append(f"temporary files left: {leftovers}")
    if case.teardown:
        case.teardown(d)
    return "; ".join(problems)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--qa", required=True)
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--only", help="run the cases whose name holds this text")
    args = parser.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    args.demo, args.bench, args.qa = (os.path.abspath(p) for p in (args.demo, args.bench, args.qa))
    tools = {"demo": [args.demo], "bench": [args.bench],
             "qa": ["/usr/bin/python3", args.qa, "--demo", args.demo],
             "probe": [os.path.join(os.path.dirname(args.bench), "pacer-wake-probe")],
             "headless_demo": ["bash", os.path.join(os.path.dirname(os.path.abspath(args.qa)), "headless.sh"),
                               args.demo],
             "display_lock": ["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(args.qa)),
                                                               "display_lock.py")],
             "setup": ["/bin/bash", os.path.join(os.path.dirname(os.path.abspath(args.qa)), "setup.sh")],
             "run_demo": ["/bin/bash", os.path.join(os.path.dirname(os.path.abspath(args.qa)), "run-demo.sh")]}
    cases = (demo_cases() + message_cases() + signal_cases() + stall_case() + bench_cases() + qa_cases() +
             display_lock_cases() + setup_cases() + presents_case() +
             run_demo_cases(os.path.dirname(os.path.dirname(os.path.abspath(args.qa)))))
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    failed = 0
    started = time.monotonic()
    for case in cases:
        t0 = time.monotonic()
        problem = run_case(case, tools, args.tmp)
        status = "FAIL" if problem else "ok"
        failed += bool(problem)
        print(f"{status:4} {case.name} ({time.monotonic() - t0:.1f} s){': ' + problem if problem else ''}", flush=True)
    print(f"{len(cases) - failed} of {len(cases)} hostile cases handled, {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
