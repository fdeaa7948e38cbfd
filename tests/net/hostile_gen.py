#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""hostile_gen.py: the third host of tests/net/hostile.sh.

Sprays malformed and forged frames from one interface at two rxd hosts on
the same segment, paced, seeded, and writes a manifest: how many frames of
each class went to each host, and under which of rxd's counters each must
end ("server wire 1234").  Every class and its expected fate is one row of
CLASSES; each builder returns (frame bytes, targets).

It builds every frame first (scapy: about 20 s for 20,000 here) and only
then sends them; --spraying names a file it creates when the first goes.

Usage: hostile_gen.py --iface IF --count N --seed S --manifest FILE
       --server IP,MAC,RC_QPN,UD_QPN,PSN --client IP,MAC,RC_QPN,UD_QPN,PSN
       [--spraying FILE]
"""
import argparse
import random
import socket
import struct
import sys
import time

from scapy.all import (ARP, ICMP, IP, UDP, Dot1Q, Ether, ICMPv6ND_NA,
                       ICMPv6ND_NS, IPOption, IPv6, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting, Raw, conf)
from scapy.contrib.roce import BTH

conf.verb = 0
BCAST = 'ff:ff:ff:ff:ff:ff'
ALL_NODES_MAC = '33:33:00:00:00:01'
ROCE_PORT = 4791

# BTH opcodes (RC unless named) and the extension headers they carry.
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY = 0, 1, 2, 4
WRITE_ONLY, READ_REQ = 10, 12
READ_RESP_FIRST, READ_RESP_MIDDLE, READ_RESP_LAST, READ_RESP_ONLY = 13, 14, 15, 16
ACK, ATOMIC_ACK, CMP_SWAP, FETCH_ADD = 17, 18, 19, 20
UD_SEND_ONLY, CNP = 0x64, 0x81


class Host:
    def __init__(self, spec):
        ip, mac, rc, ud, psn = spec.split(',')
        self.ip, self.mac = ip, mac
        self.rc_qpn, self.ud_qpn, self.psn = int(rc), int(ud), int(psn)


class Gen:
    def __init__(self, args):
        self.born = time.monotonic()
        self.r = random.Random(args.seed)
        self.srv = Host(args.server)
        self.cli = Host(args.client)
        self.me_ip = args.my_ip
        self.me_mac = open('/sys/class/net/%s/address' % args.iface).read().strip()

    # --- helpers ---------------------------------------------------------
    def rbytes(self, lo, hi):
        return bytes(self.r.getrandbits(8) for _ in range(self.r.randint(lo, hi)))

    def victim(self):
        return self.r.choice([self.srv, self.cli])

    def peer_of(self, h):
        return self.cli if h is self.srv else self.srv

    def foreign_sport(self):
        # rxd draws its ports from 0xc000..0xffff: these are never a peer's
        return self.r.randint(1024, 0xbfff)

    def plausible_psn(self, h):
        return (h.psn + self.r.randint(-64, 4096)) & 0xffffff

    def eth(self, h):
        return Ether(src=self.me_mac, dst=h.mac)

    def ext_headers(self, op, length):
        """The extension headers of an opcode, with sane values."""
        r = self.r
        if op in (WRITE_ONLY, READ_REQ):      # RETH
            return struct.pack('>QII', r.getrandbits(64), r.getrandbits(32), length)
        if op in (CMP_SWAP, FETCH_ADD):       # AtomicETH
            return struct.pack('>QIQQ', r.getrandbits(61) << 3, r.getrandbits(32),
                               r.getrandbits(64), r.getrandbits(64))
        if op == ACK:                         # AETH: ACK, RNR NAK or NAK
            syn = r.choice([0x1f, 0x00, 0x20 | r.randint(0, 31), 0x60, 0x61,
                            0x62, 0x63])
            return struct.pack('>I', syn << 24 | r.getrandbits(24))
        if op in (READ_RESP_FIRST, READ_RESP_LAST, READ_RESP_ONLY):
            return struct.pack('>I', r.randint(0, 0x1f) << 24 | r.getrandbits(24))
        if op == ATOMIC_ACK:
            return struct.pack('>IQ', 0x1f << 24 | r.getrandbits(24),
                               r.getrandbits(64))
        if op == UD_SEND_ONLY:                # DETH
            return struct.pack('>II', 0x80010000, r.getrandbits(24))
        if op == CNP:
            return bytes(16)
        return b''

    def roce(self, h, op, qpn, src_ip=None, sport=None, payload=b'',
             psn=None, bad_icrc=False, bth_kw=None, **ip_kw):
        """A RoCEv2 frame with a valid ICRC (or one bit off) at host h."""
        ext = self.ext_headers(op, len(payload))
        pad = -len(payload) % 4
        bth = BTH(**dict(dict(opcode=op, padcount=pad, dqpn=qpn, ackreq=1,
                              psn=self.plausible_psn(h) if psn is None else psn),
                         **(bth_kw or {})))
        if sport is None:
            sport = self.foreign_sport()
        p = (self.eth(h) / IP(src=src_ip or self.me_ip, dst=h.ip, flags='DF', **ip_kw)
             / UDP(sport=sport, dport=ROCE_PORT, chksum=0)
             / bth / Raw(ext + payload + bytes(pad)))
        b = bytearray(bytes(p))
        if bad_icrc:
            b[-1] ^= 0x01
        return bytes(b)

    # --- the classes -------------------------------------------------------
    def udp_junk(self):
        h = self.victim()
        p = self.eth(h) / IP(src=self.me_ip, dst=h.ip) / UDP(
            sport=self.foreign_sport(), dport=ROCE_PORT) / Raw(self.rbytes(0, 300))
        return bytes(p), [h]

    FORGED_OPS = [SEND_ONLY, WRITE_ONLY, READ_REQ, CMP_SWAP, FETCH_ADD, ACK,
                  READ_RESP_ONLY, ATOMIC_ACK]

    def forged_request(self):
        h = self.victim()
        op = self.r.choice(self.FORGED_OPS)
        pl = self.rbytes(0, 64) if op in (SEND_ONLY, WRITE_ONLY, READ_RESP_ONLY) else b''
        return self.roce(h, op, h.rc_qpn, payload=pl), [h]

    def bad_icrc(self):
        h = self.victim()
        op = self.r.choice(self.FORGED_OPS)
        return self.roce(h, op, h.rc_qpn, src_ip=self.peer_of(h).ip,
                         bad_icrc=True), [h]

    def truncated(self):
        h = self.victim()
        full = self.roce(h, SEND_ONLY, h.rc_qpn, payload=self.rbytes(0, 64))
        return full[:self.r.randint(15, len(full) - 1)], [h]

    def ip_fragment(self):
        h = self.victim()
        p = self.eth(h) / IP(src=self.me_ip, dst=h.ip, flags='MF',
                             frag=self.r.randint(0, 200)) / Raw(self.rbytes(8, 200))
        return bytes(p), [h]

    def ip_odd(self):
        h = self.victim()
        b = bytearray(self.roce(h, SEND_ONLY, h.rc_qpn, payload=b'x' * 8))
        kind = self.r.randint(0, 2)
        if kind == 0:          # a bad header checksum
            b[24] ^= 0xff
        elif kind == 1:        # version 5 behind the IPv4 ethertype
            b[14] = 0x55
        else:                  # options (ICRC coverage undefined)
            p = self.eth(h) / IP(src=self.me_ip, dst=h.ip,
                                 options=[IPOption(b'\x01\x01\x01\x01')]) / UDP(
                sport=self.foreign_sport(), dport=ROCE_PORT) / Raw(self.rbytes(20, 60))
            b = bytearray(bytes(p))
        return bytes(b), [h]

    def ttl_zero(self):
        h = self.victim()
        return self.roce(h, SEND_ONLY, h.rc_qpn, ttl=0), [h]

    def forged_ack_spoofed(self):
        """ACKs/NAKs with plausible PSNs from the peer's address, wrong port."""
        h = self.victim()
        op = self.r.choice([ACK, ACK, ATOMIC_ACK, READ_RESP_ONLY])
        pl = self.rbytes(1, 64) if op == READ_RESP_ONLY else b''
        return self.roce(h, op, h.rc_qpn, src_ip=self.peer_of(h).ip,
                         payload=pl), [h]

    def unasked_read_response(self):
        h = self.victim()
        op = self.r.choice([READ_RESP_FIRST, READ_RESP_MIDDLE, READ_RESP_LAST])
        pl = self.rbytes(1024, 1024) if op != READ_RESP_LAST else self.rbytes(1, 1024)
        return self.roce(h, op, h.rc_qpn, src_ip=self.peer_of(h).ip,
                         payload=pl), [h]

    def cnp(self):
        h = self.victim()
        src = self.r.choice([self.me_ip, self.peer_of(h).ip])
        return self.roce(h, CNP, h.rc_qpn, src_ip=src), [h]

    def cnp_port0(self):
        """CNPs from the peer's address and UDP source port 0 (as ConnectX
        sends them), so they pass the peer check, but without BECN, with
        another P_Key, or to the UD QP: refused as bad_cnp."""
        h = self.victim()
        kind = self.r.randrange(3)
        qpn = h.ud_qpn if kind == 2 else h.rc_qpn
        kw = [{'becn': 0, 'ackreq': 0}, {'becn': 1, 'ackreq': 0,
              'pkey': 0x1234}, {'becn': 1, 'ackreq': 0}][kind]
        return self.roce(h, CNP, qpn, src_ip=self.peer_of(h).ip, sport=0,
                         psn=0, bth_kw=kw), [h]

    def over_path_mtu(self):
        """Larger than the connection's path MTU (1024), from the peer's
        address with a wrong port."""
        h = self.victim()
        op = self.r.choice([SEND_LAST, SEND_ONLY, WRITE_ONLY])
        return self.roce(h, op, h.rc_qpn, src_ip=self.peer_of(h).ip,
                         payload=self.rbytes(1100, 1400)), [h]

    def under_path_mtu(self):
        """A MIDDLE packet shorter than any path MTU."""
        h = self.victim()
        return self.roce(h, SEND_MIDDLE, h.rc_qpn, src_ip=self.peer_of(h).ip,
                         payload=self.rbytes(4, 200)), [h]

    def ud_foreign(self):
        """UD datagrams with a wrong Q_Key at the UD QP: counted by the QP."""
        h = self.victim()
        return self.roce(h, UD_SEND_ONLY, h.ud_qpn, payload=self.rbytes(0, 256)), [h]

    def qp1_junk(self):
        """GMPs to QP1: random MADs, and CM MADs for comm IDs nobody has."""
        h = self.victim()
        if self.r.random() < 0.5:
            mad = self.rbytes(256, 256)
        else:
            attr = self.r.choice([0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16])
            mad = struct.pack('>BBBBHHQHHI', 1, 7, 2, 3, 0, 0, self.r.getrandbits(64),
                              attr, 0, 0) + struct.pack('>II', self.r.getrandbits(32),
                                                        self.r.getrandbits(32))
            mad += self.rbytes(256 - len(mad), 256 - len(mad))
        return self.roce(h, UD_SEND_ONLY, 1, payload=mad, psn=0), [h]

    def vlan_junk(self):
        h = self.victim()
        inner = self.r.choice(['roce', 'icmp', 'arp'])
        if inner == 'roce':
            b = self.roce(h, SEND_ONLY, h.rc_qpn, src_ip=self.peer_of(h).ip)
            e = Ether(b)
            p = Ether(src=e.src, dst=e.dst) / Dot1Q(vlan=self.r.randint(1, 4094)) / e.payload
        elif inner == 'icmp':
            p = self.eth(h) / Dot1Q(vlan=self.r.randint(1, 4094)) / IP(
                src=self.me_ip, dst=h.ip) / ICMP()
        else:
            p = Ether(src=self.me_mac, dst=BCAST) / Dot1Q(
                vlan=self.r.randint(1, 4094)) / ARP(psrc=self.me_ip, pdst=h.ip,
                                                    hwsrc=self.me_mac)
        return bytes(p), [h] if inner != 'arp' else [self.srv, self.cli]

    def ipv6_ext(self):
        h = self.victim()
        ext = self.r.choice([IPv6ExtHdrHopByHop(), IPv6ExtHdrRouting(),
                             IPv6ExtHdrFragment(m=1), IPv6ExtHdrDestOpt()])
        p = self.eth(h) / IPv6(src='fd88::9', dst='fd88::%x' % (1 if h is self.srv else 2)) \
            / ext / UDP(dport=ROCE_PORT) / Raw(self.rbytes(20, 100))
        return bytes(p), [h]

    def arp_unknown_op(self):
        p = Ether(src=self.me_mac, dst=BCAST) / ARP(
            op=self.r.randint(3, 65535), psrc='10.88.2.%d' % self.r.randint(100, 199),
            hwsrc=self.me_mac, pdst=self.victim().ip)
        return bytes(p), [self.srv, self.cli]

    def arp_unsolicited(self):
        """Replies nobody asked for, claiming other addresses."""
        if self.r.random() < 0.5:
            ip, mac = '10.88.2.77', '02:00:00:00:00:77'
        else:
            ip = '10.88.%d.%d' % (self.r.choice([2, 3]), self.r.randint(100, 199))
            mac = '02:00:00:00:%02x:%02x' % (self.r.randint(0, 255), self.r.randint(0, 255))
        p = Ether(src=self.me_mac, dst=BCAST) / ARP(op=2, psrc=ip, hwsrc=mac,
                                                    pdst=self.victim().ip)
        return bytes(p), [self.srv, self.cli]

    def icmp_bad_checksum(self):
        h = self.victim()
        p = IP(src=self.me_ip, dst=h.ip) / ICMP(type=8) / Raw(self.rbytes(0, 1400))
        b = bytearray(bytes(p))
        b[22] ^= 0x5a                          # the ICMP checksum
        return bytes(self.eth(h) / IP(bytes(b))), [h]

    def nd_junk(self):
        kind = self.r.randint(0, 2)
        tgt = 'fd88::%x' % self.r.randint(0x100, 0x1ff)
        if kind == 0:      # an advertisement nobody asked for
            p = Ether(src=self.me_mac, dst=ALL_NODES_MAC) / IPv6(
                src='fd88::9', dst='ff02::1', hlim=255) / ICMPv6ND_NA(tgt=tgt, R=0)
        elif kind == 1:    # a solicitation with a hop limit other than 255
            p = Ether(src=self.me_mac, dst=ALL_NODES_MAC) / IPv6(
                src='fd88::9', dst='ff02::1', hlim=64) / ICMPv6ND_NS(tgt='fd88::1')
        else:              # a solicitation for someone else
            p = Ether(src=self.me_mac, dst=ALL_NODES_MAC) / IPv6(
                src='fd88::9', dst='ff02::1', hlim=255) / ICMPv6ND_NS(tgt=tgt)
        return bytes(p), [self.srv, self.cli], ['neigh_ignored', 'malformed',
                                                 'not_for_us'][kind]

    def other_ethertype(self):
        h = self.victim()
        p = Ether(src=self.me_mac, dst=h.mac, type=self.r.choice(
            [0x88b5, 0x88b6, 0x8915, 0x0842, 0x9000])) / Raw(self.rbytes(46, 200))
        return bytes(p), [h]

    def other_udp(self):
        h = self.victim()
        p = self.eth(h) / IP(src=self.me_ip, dst=h.ip) / UDP(
            sport=self.foreign_sport(), dport=self.r.choice([4790, 4792, 53])) / Raw(
            self.rbytes(0, 100))
        return bytes(p), [h]

    def echo_valid(self):
        """Valid echo requests of random length: the attacker is answered."""
        h = self.victim()
        p = self.eth(h) / IP(src=self.me_ip, dst=h.ip) / ICMP(type=8) / Raw(
            self.rbytes(0, 1400))
        return bytes(p), [h]


# class -> (weight, fate counter); a builder may return its own fate third.
# Fates "wire", "bad_peer", "neigh_ignored" and "malformed" are exact:
# nothing of the legitimate traffic on the segment ends there.  IP
# fragments end "below_rxd": net_af_packet joins its sockets in a fanout
# group that reassembles IP (PACKET_FANOUT_FLAG_DEFRAG), so the kernel
# holds them and they never reach rxd (the parser's refusal of fragments
# is checked by wire-codec and the fuzzer).
CLASSES = {
    'udp_junk': (8, 'wire'),
    'forged_request': (8, 'bad_peer'),
    'bad_icrc': (6, 'wire'),
    'truncated': (6, 'wire'),
    'ip_fragment': (3, 'below_rxd'),
    'ip_odd': (4, 'wire'),
    'ttl_zero': (2, 'bad_peer'),
    'forged_ack_spoofed': (8, 'bad_peer'),
    'unasked_read_response': (5, 'bad_peer'),
    'cnp': (3, 'bad_peer'),
    'cnp_port0': (3, 'bad_cnp'),
    'over_path_mtu': (3, 'bad_peer'),
    'under_path_mtu': (3, 'wire'),
    'ud_foreign': (3, 'roce_rx'),
    'qp1_junk': (5, 'roce_rx'),
    'vlan_junk': (4, 'vlan'),
    'ipv6_ext': (3, 'other_dropped'),
    'arp_unknown_op': (4, 'neigh_ignored'),
    'arp_unsolicited': (4, 'neigh_ignored'),
    'icmp_bad_checksum': (4, 'malformed'),
    'nd_junk': (4, None),
    'other_ethertype': (3, 'other_dropped'),
    'other_udp': (3, 'other_dropped'),
    'echo_valid': (2, 'echo_answered'),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--iface', required=True)
    ap.add_argument('--my-ip', default='10.88.2.9')
    ap.add_argument('--count', type=int, default=20000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--rate', type=int, default=2000, help='frames per second')
    ap.add_argument('--server', required=True)
    ap.add_argument('--client', required=True)
    ap.add_argument('--manifest', required=True)
    ap.add_argument('--spraying', help='file created when the first frame goes')
    args = ap.parse_args()

    g = Gen(args)
    names = list(CLASSES)
    weights = [CLASSES[n][0] for n in names]
    frames, tally = [], {}
    for _ in range(args.count):
        name = g.r.choices(names, weights)[0]
        built = getattr(g, name)()
        fate = built[2] if len(built) > 2 else CLASSES[name][1]
        frames.append(built[0])
        for h in built[1]:
            who = 'server' if h is g.srv else 'client'
            tally[(who, fate)] = tally.get((who, fate), 0) + 1
            tally[(who, 'class_' + name)] = tally.get((who, 'class_' + name), 0) + 1

    built = time.monotonic() - g.born
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((args.iface, 0))
    if args.spraying:
        open(args.spraying, 'w').close()
    start = time.monotonic()
    for i, f in enumerate(frames):
        s.send(f)
        ahead = i / args.rate - (time.monotonic() - start)
        if ahead > 0.005:
            time.sleep(ahead)
    took = time.monotonic() - start
    with open(args.manifest, 'w') as m:
        for (who, fate), n in sorted(tally.items()):
            m.write('%s %s %d\n' % (who, fate, n))
    print('hostile_gen: %d frames (seed %d) built in %.1f s, sent in %.1f s'
          % (len(frames), args.seed, built, took))
    return 0


if __name__ == '__main__':
    sys.exit(main())
