"""This machine on the venue's network: the address phones can reach it at.

Both the CLI (the URLs it prints) and the join page (the QR code's address) need it, so it lives
below both.
"""

import socket


def lan_ip() -> str:
    """This machine's address on the local network, which phones at the venue can reach.

    connect() on a UDP socket only picks the outgoing interface; no packet is sent.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
    return "127.0.0.1" if address.startswith("0.") else address
