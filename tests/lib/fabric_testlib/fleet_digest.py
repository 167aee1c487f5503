"""The fleet digest as docs/scale.md defines it, computed here independently of the C++ code
(exporter/config/fleet.cc) so the tests check the documented recipe, not the code against
itself: SHA-256 of "fabric-ladder fleet v1\\n" and, per node in name order, each of name,
canonical address, interface, MTU ("" when unset), rack, plane and role as "<length>:<value>;",
then "\\n"; the first 16 hex digits."""
import hashlib
import ipaddress

KEYS = ("name", "address", "interface", "mtu", "rack", "plane", "role")


def fleet_digest(nodes):
    """`nodes`: dicts with the keys of a nodes file (missing keys unset)."""
    text = "fabric-ladder fleet v1\n"
    for node in sorted(nodes, key=lambda n: n["name"]):
        for key in KEYS:
            value = node.get(key)
            if key == "address":
                value = str(ipaddress.ip_address(value))
            value = "" if value is None else str(value)
            text += f"{len(value.encode())}:{value};"
        text += "\n"
    return hashlib.sha256(text.encode()).hexdigest()[:16]
