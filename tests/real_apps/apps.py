"""The real programs of the real_apps layer, between two namespaces: sshd and
the rsync daemon, socat and iperf3 servers on the receiving node, and the
transfers (scp, rsync over ssh and to the daemon, scp per file, dd | socat,
parallel iperf3) started on the sending node.

The applications under test run in cpu cgroups capped at a fraction of one
CPU (`CpuCap`), one per end, as two hosts each have their own CPUs: on this
small host the line is shaped to 3 Gbit/s, and a cap gives an application
the CPU per byte of line that one core has on a 100 GbE host, where ssh's one
encrypting core reaches a few percent of the line (issue 41: a restore at 8%
of it). The cap bounds an application's own ceiling from above (a busy host
only lowers it), so "far below the proven rung" holds on a loaded CI machine
too; the test measures each ceiling and checks that relation before it judges
any alert. The healthy mover runs uncapped: it is the control that the path
carries what the probe proved."""
import os
import subprocess
import threading
import time

SSH_OPTIONS = ("-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o",
               "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "BatchMode=yes")


def netns_cmd(ns, *args):
    return ["ip", "netns", "exec", ns, *args]


class CpuCap:
    """A cpu cgroup capped at `fraction` of one CPU (None: not capped);
    `wrap(args)` runs a command inside it. The test runs under `ip netns exec`, whose sysfs hides
    the host's /sys/fs/cgroup: the cpu hierarchy (cgroup v1's `cpu`
    controller, else cgroup v2) is mounted again at `mountpoint`."""

    # A CPU-bound program on a busy core runs in slices of a few milliseconds.
    # A 100 ms period froze the capped rsync daemon for up to 90 ms at a time,
    # holding its socket's lock, so its kernel stopped acknowledging: the
    # sender saw a slow network, not a receiver that does not read. 20 ms is
    # the shortest period whose least quota (1 ms) still allows a 5% cap.
    PERIOD_US = 20000

    def __init__(self, name, fraction, mountpoint):
        os.makedirs(mountpoint, exist_ok=True)
        self.mountpoint = mountpoint
        self.version = self._mount()
        self.path = os.path.join(mountpoint, name)
        if self.version == 2:
            with open(os.path.join(mountpoint, "cgroup.subtree_control"), "w") as f:
                f.write("+cpu")
        os.makedirs(self.path, exist_ok=True)
        self.set(fraction)

    def _mount(self):
        # How the host mounts it: pid 1's mounts (this process's own lost the
        # cgroup tree with the host's /sys).
        with open("/proc/1/mounts") as f:
            mounts = [line.split()[:4] for line in f]
        for _, _, fstype, options in mounts:
            if fstype == "cgroup" and "cpu" in options.split(","):
                controllers = [o for o in options.split(",") if o in ("cpu", "cpuacct")]
                subprocess.run(["mount", "-t", "cgroup", "-o", ",".join(controllers), "none",
                                self.mountpoint], check=True)
                return 1
        if any(fstype == "cgroup2" for _, _, fstype, _ in mounts):
            subprocess.run(["mount", "-t", "cgroup2", "none", self.mountpoint], check=True)
            return 2
        raise RuntimeError("no cpu cgroup hierarchy (cgroup v1 `cpu` or cgroup v2) is mounted")

    def set(self, fraction):
        """Caps the group at `fraction` of one CPU from now on (running
        processes too); None lifts the cap."""
        if fraction is None:
            quota = None
            self.fraction = None
        else:
            quota = max(1000, int(fraction * self.PERIOD_US))  # the kernel's least quota: 1 ms
            self.fraction = quota / self.PERIOD_US
        if self.version == 1:
            self._write("cpu.cfs_period_us", self.PERIOD_US)
            self._write("cpu.cfs_quota_us", -1 if quota is None else quota)
        else:
            self._write("cpu.max", f"{'max' if quota is None else quota} {self.PERIOD_US}")

    def _write(self, key, value):
        with open(os.path.join(self.path, key), "w") as f:
            f.write(str(value))

    def wrap(self, args):
        """`args` run inside the cgroup (the shell joins it, then execs them).
        Outside `ip netns exec`, which mounts a sysfs of its own namespace
        over /sys (and so hides the cgroup tree): wrap the whole command."""
        return ["sh", "-c", f'echo $$ > {self.path}/cgroup.procs && exec "$@"', "cap", *args]

    def close(self):
        procs = os.path.join(self.path, "cgroup.procs")
        for _ in range(50):
            try:
                with open(procs) as f:
                    pids = [int(p) for p in f.read().split()]
            except OSError:
                return
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        try:
            os.rmdir(self.path)
        except OSError:
            pass
        subprocess.run(["umount", self.mountpoint], check=False)


class Servers:
    """The receiving node's servers: sshd (port 22), the rsync daemon (873),
    a socat sink (5500, the dd | socat case) and iperf3 (5201). Keys, configs
    and the rsync module's directory live under `tmp`; all but iperf3 (the
    healthy mover's) run in the receiving end's `cap`."""

    SOCAT_PORT = 5500

    def __init__(self, tmp, ns, address, cap):
        self.tmp, self.ns, self.address, self.cap = tmp, ns, address, cap
        self.procs = []
        self.key = os.path.join(tmp, "id_ed25519")
        self.dest = os.path.join(tmp, "dest")
        os.makedirs(self.dest, exist_ok=True)

    def start(self):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.key],
                       check=True)
        host_key = os.path.join(self.tmp, "host_ed25519")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", host_key],
                       check=True)
        os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege-separation directory
        sshd_config = os.path.join(self.tmp, "sshd_config")
        with open(sshd_config, "w") as f:
            f.write(f"ListenAddress {self.address}\nPort 22\nHostKey {host_key}\n"
                    f"AuthorizedKeysFile {self.key}.pub\nPermitRootLogin yes\nUsePAM no\n"
                    f"StrictModes no\nPidFile {self.tmp}/sshd.pid\n"
                    "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                    "Subsystem sftp internal-sftp\n")
        rsyncd_config = os.path.join(self.tmp, "rsyncd.conf")
        with open(rsyncd_config, "w") as f:
            f.write(f"pid file = {self.tmp}/rsyncd.pid\nuse chroot = no\n"
                    f"[data]\n  path = {self.dest}\n  read only = no\n  uid = root\n"
                    "  gid = root\n")
        # The remote shell (`ssh HOST cmd`, rsync's `rsync --server`) starts
        # without this host's dotfiles: an empty /root in sshd's own mount
        # namespace (`ip netns exec` made one), as on a clean node. A host's
        # .bashrc may run anything (one here waited 60 s on a lock).
        self._spawn("sh", "-c", 'mount -t tmpfs -o size=1m none /root && exec "$@"', "sshd",
                    "/usr/sbin/sshd", "-D", "-e", "-f", sshd_config)
        self._spawn("rsync", "--daemon", "--no-detach", "--config=" + rsyncd_config,
                    "--address=" + self.address, "--port=873")
        self._spawn("socat", "-u", f"TCP-LISTEN:{self.SOCAT_PORT},bind={self.address},"
                    "reuseaddr,fork", "OPEN:/dev/null,wronly")
        self._spawn("iperf3", "-s", "-B", self.address, capped=False)
        deadline = time.monotonic() + 20
        for port in (22, 873, self.SOCAT_PORT, 5201):
            while not self._listening(port):
                for p in self.procs:
                    if p.poll() is not None:
                        raise RuntimeError(f"{p.args[-1]} exited at start-up: "
                                           f"{p.stderr.read()}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"nothing listens on {self.address}:{port} after 20 s")
                time.sleep(0.1)

    def _spawn(self, *args, capped=True):
        cmd = netns_cmd(self.ns, *args)
        if capped:
            cmd = self.cap.wrap(cmd)
        self.procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.PIPE, text=True))

    def _listening(self, port):
        out = subprocess.run(netns_cmd(self.ns, "ss", "-tlnH", f"sport = :{port}"),
                             capture_output=True, text=True).stdout
        return bool(out.strip())

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stderr.close()


class Loop:
    """Runs `once(stopping)` (one whole transfer; returns the bytes it moved,
    or (bytes, seconds) where the program reports its own transfer time, None
    when cut short by `stopping`) again and again in a thread until `stop()`.
    `rate()`: the bytes of the transfers that started after the last `reset()`
    and ended, over the time they took."""

    def __init__(self, once):
        self.once = once
        self.lock = threading.Lock()
        self.error = None
        self.stopping = threading.Event()
        self.reset()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def reset(self):
        with self.lock:
            self.since = time.monotonic()
            self.bytes, self.runs, self.busy = 0, 0, 0.0

    def _run(self):
        while not self.stopping.is_set():
            t0 = time.monotonic()
            try:
                moved = self.once(self.stopping)
            except Exception as e:  # noqa: BLE001 - raised again by stop()
                self.error = e
                return
            if moved is None:
                return
            took = time.monotonic() - t0
            if isinstance(moved, tuple):
                moved, took = moved
            with self.lock:
                if t0 >= self.since:
                    self.bytes += moved
                    self.runs += 1
                    self.busy += took

    def rate(self):
        with self.lock:
            return self.bytes / self.busy if self.busy else 0.0

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=60)
        if self.error:
            raise self.error
        return self.rate()


def run_until(cmd, stopping, moved):
    """Runs `cmd` to its end and returns `moved`; None when `stopping` was set
    meanwhile (the process is killed)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while p.poll() is None:
        if stopping.wait(0.1):
            p.kill()
            p.wait()
            p.stderr.close()
            return None
    err = p.stderr.read()
    p.stderr.close()
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd[-6:])} exited {p.returncode}: {err.strip()}")
    return moved


class Sender:
    """The transfers of each case, started in the sending namespace (inside
    the sending end's `cap`) against `servers`."""

    def __init__(self, tmp, ns, servers, cap):
        self.tmp, self.ns, self.servers, self.cap = tmp, ns, servers, cap
        self.peer = servers.address
        self.ssh = ["ssh", *SSH_OPTIONS, "-i", servers.key]

    def sparse_file(self, name, size):
        """A file of `size` zero bytes that occupies no disk (holes read as zeros)."""
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.truncate(size)
        return path

    def cmd(self, *args):
        return self.cap.wrap(netns_cmd(self.ns, *args))

    def _scp_cmd(self, path):
        return self.cmd("scp", "-q", *SSH_OPTIONS, "-i", self.servers.key, path,
                        f"root@{self.peer}:/dev/null")

    def scp(self, path, size):
        """One scp of one file (one connection)."""
        cmd = self._scp_cmd(path)
        return lambda stopping: run_until(cmd, stopping, size)

    def scp_per_file(self, paths, size):
        """scp of each file in turn, one connection per file (how scp loops run)."""
        turn = iter(range(1 << 62))
        return lambda stopping: run_until(self._scp_cmd(paths[next(turn) % len(paths)]),
                                          stopping, size)

    def rsync_ssh(self, path, size):
        cmd = self.cmd("rsync", "--whole-file", "--ignore-times", "--sparse", "-e",
                       " ".join(self.ssh), path, f"root@{self.peer}:{self.servers.dest}/ssh/")
        return lambda stopping: run_until(cmd, stopping, size)

    def rsync_daemon(self, path, size):
        cmd = self.cmd("rsync", "--whole-file", "--ignore-times", "--sparse", path,
                       f"rsync://{self.peer}/data/daemon/")
        return lambda stopping: run_until(cmd, stopping, size)

    def dd_socat(self, size):
        block = 1 << 20
        cmd = self.cmd("sh", "-c", f"dd if=/dev/zero bs={block} count={size // block} "
                       f"status=none | socat -u - TCP:{self.peer}:{Servers.SOCAT_PORT}")
        return lambda stopping: run_until(cmd, stopping, size // block * block)

    def iperf3(self, seconds, streams):
        """`streams` parallel iperf3 streams with sendfile (-Z) for `seconds`,
        uncapped: the healthy mover. Its rate is iperf3's own (the receiver's
        bytes over the test's seconds), not the wall time of `once`: a try
        refused while the server winds down its last test moves nothing, and
        its wait is no part of the transfer (one run measured the mover at 173
        of a 355 MB/s rung over wall time; the tries it refused are printed)."""
        cmd = netns_cmd(self.ns, "iperf3", "-c", self.peer, "-Z", "-P", str(streams),
                        "-t", str(seconds), "-J")

        def once(stopping):
            import json
            while True:
                p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
                while p.poll() is None:
                    if stopping.wait(0.2):
                        p.kill()
                        p.communicate()
                        return None
                out, err = p.communicate()
                report = json.loads(out) if out.strip().startswith("{") else {}
                # The server still winding down the last test (one at a time): iperf3
                # says so in its report's "error", or (3.12) ends with a report without
                # a receiver's sum; the next try a moment later runs.
                received = report.get("end", {}).get("sum_received", {}).get("bytes")
                if "busy" in str(report.get("error", "")) or (not p.returncode and
                                                               received is None):
                    print(f"  mover: iperf3 refused ({report.get('error', 'no receiver sum')}),"
                          " trying again", flush=True)
                    if stopping.wait(0.5):
                        return None
                    continue
                if p.returncode:
                    raise RuntimeError(f"iperf3 exited {p.returncode}: {err.strip()} "
                                       f"{report.get('error', out[-300:])}")
                seconds = report["end"]["sum_received"].get("seconds")
                return (int(received), float(seconds)) if seconds else int(received)
        return once
