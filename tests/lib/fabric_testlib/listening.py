"""Servers the tests start on a loopback port they choose (Prometheus and
Alertmanager take --web.listen-address; neither reports a port the kernel
picked for it).

free_port() binds port 0 and closes the socket; until the server binds that
port, the kernel can hand the same port to the next bind(0), which may be
another server the same test starts meanwhile. One of the two then fails to
bind and exits while the port keeps answering for the other, and a test that
queries it reads the wrong server: scale_out's shard view once answered with
the central server's alerts. start() therefore waits until the socket
listening on the port belongs to the process it started, and starts the
server again on another port when another process holds the one it got."""
import os
import socket
import time

TCP_LISTEN = "0A"  # the st column of /proc/net/tcp


def free_port(host="127.0.0.1"):
    """A port nothing listens on now (taken by whoever binds it first)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def listener_inode(port, host="127.0.0.1"):
    """The inode of the IPv4 TCP socket listening on host:port in this network
    namespace, or None."""
    address = socket.inet_aton(host)[::-1].hex().upper()  # the kernel's byte order
    local = f"{address}:{port:04X}"
    with open("/proc/net/tcp") as f:
        next(f)  # the header
        for line in f:
            fields = line.split()
            if fields[1] == local and fields[3] == TCP_LISTEN:
                return int(fields[9])
    return None


def holds_socket(pid, inode):
    """Whether process `pid` has socket `inode` among its descriptors."""
    target = f"socket:[{inode}]"
    fds = f"/proc/{pid}/fd"
    try:
        names = os.listdir(fds)
    except OSError:
        return False  # exited meanwhile
    for name in names:
        try:
            if os.readlink(os.path.join(fds, name)) == target:
                return True
        except OSError:
            continue
    return False


def start(launch, what, timeout=60, attempts=5, ports=None):
    """Starts a server with launch(port), which returns its subprocess.Popen,
    on a free loopback port; returns (popen, port) once the socket listening
    on 127.0.0.1:port is that process's own. When the process exits while
    another one listens on its port, it is started again on another port (at
    most `attempts` times). Raises RuntimeError naming `what` when it exits
    otherwise or does not listen within `timeout` seconds; the caller's log
    says why. `ports` (an iterator) replaces free_port() for the tests of this
    function."""
    for _ in range(attempts):
        port = next(ports) if ports is not None else free_port()
        proc = launch(port)
        deadline = time.monotonic() + timeout
        while True:
            inode = listener_inode(port)
            if inode is not None and holds_socket(proc.pid, inode):
                return proc, port
            if proc.poll() is not None:
                if listener_inode(port) is not None:
                    break  # another process took the port first: try another one
                raise RuntimeError(f"{what} exited with status {proc.returncode} before it "
                                   f"listened on 127.0.0.1:{port}")
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within "
                                   f"{timeout} s")
            time.sleep(0.05)
    raise RuntimeError(f"{what}: other processes took {attempts} free ports in a row first")
