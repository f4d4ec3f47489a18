#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# compare.py: compares a pipeline's output with the expected one: two
# captures frame by frame (bytes and lengths; timestamps ignored, micro- or
# nanosecond classic pcap) and, optionally, two stats JSON files (every key
# of the expected file, nested ones included, must be present and equal;
# elapsed_s and keys only the actual file has are ignored), and the actual
# file's own accounting: rx_packets == tx_packets + dropped_packets, reasons
# adding up to rx_packets, and with --leaks a leaked_mbufs key that is 0.
# Exit 0 when all agree, 1 with the first differences listed otherwise.
# --cyclic is for a replay of WANT's input in a loop (net_pcap infinite_rx)
# stopped at some point: GOT must be WANT's frames repeated and cut short,
# as many as GOT.json's tx_packets, adding up to its bytes_out.
#
#   compare.py [--leaks] GOT.pcap WANT.pcap [GOT.json WANT.json]
#   compare.py --cyclic GOT.pcap WANT.pcap GOT.json
import json
import struct
import sys

MAGICS = {0xA1B2C3D4: '<', 0xA1B23C4D: '<', 0xD4C3B2A1: '>', 0x4D3CB2A1: '>'}
MAX_REPORTS = 10


def read_pcap(path):
    """Returns [(caplen, wire_len, bytes)] of a classic pcap file."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f'{path}: not a pcap file ({len(data)} bytes)')
    magic = struct.unpack('<I', data[:4])[0]
    if magic not in MAGICS:
        raise ValueError(f'{path}: not a classic pcap file (magic {magic:#x})')
    endian = MAGICS[magic]
    linktype = struct.unpack(endian + 'I', data[20:24])[0]
    if linktype != 1:
        raise ValueError(f'{path}: link type {linktype}, not Ethernet')
    frames, off = [], 24
    while off < len(data):
        if off + 16 > len(data):
            raise ValueError(f'{path}: record header cut short at byte {off}')
        _, _, caplen, wire = struct.unpack(endian + 'IIII', data[off:off + 16])
        off += 16
        if off + caplen > len(data):
            raise ValueError(f'{path}: frame {len(frames) + 1} cut short')
        frames.append((caplen, wire, data[off:off + caplen]))
        off += caplen
    return frames


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def compare_pcaps(got_path, want_path):
    got, want = read_pcap(got_path), read_pcap(want_path)
    problems = []
    if len(got) != len(want):
        problems.append(f'{got_path}: {len(got)} frames, {want_path}: {len(want)}')
    for i, (g, w) in enumerate(zip(got, want)):
        if g[2] != w[2] or g[1] != w[1]:
            at = first_diff(g[2], w[2])
            problems.append(f'frame {i + 1}: length {g[0]}/{g[1]} want {w[0]}/{w[1]}, '
                            f'first differing byte {at}')
        if len(problems) >= MAX_REPORTS:
            break
    return problems


def compare_json(got, want, where=''):
    problems = []
    for key, value in want.items():
        name = where + key
        if key == 'elapsed_s':
            continue
        if key not in got:
            problems.append(f'{name}: missing')
        elif isinstance(value, dict):
            if not isinstance(got[key], dict):
                problems.append(f'{name}: not an object')
            else:
                problems += compare_json(got[key], value, name + '.')
        elif got[key] != value:
            problems.append(f'{name}: {got[key]} want {value}')
    return problems


def accounting(got, leaks):
    problems = []
    if got.get('rx_packets') != got.get('tx_packets', 0) + got.get('dropped_packets', 0):
        problems.append('rx_packets != tx_packets + dropped_packets')
    if sum(got.get('reasons', {}).values()) != got.get('rx_packets'):
        problems.append('reasons do not add up to rx_packets')
    if leaks and got.get('leaked_mbufs') != 0:
        problems.append(f"leaked_mbufs: {got.get('leaked_mbufs', 'missing')}, want 0")
    return problems


def compare_cyclic(got_path, want_path, json_path):
    got, want = read_pcap(got_path), read_pcap(want_path)
    with open(json_path) as f:
        stats = json.load(f)
    problems = accounting(stats, True)
    if not want:
        return problems + [f'{want_path}: no frames']
    if len(got) != stats.get('tx_packets'):
        problems.append(f"{got_path}: {len(got)} frames, tx_packets {stats.get('tx_packets')}")
    if sum(g[0] for g in got) != stats.get('bytes_out'):
        problems.append(f"{got_path}: {sum(g[0] for g in got)} bytes, bytes_out {stats.get('bytes_out')}")
    for i, g in enumerate(got):
        w = want[i % len(want)]
        if g[2] != w[2] or g[1] != w[1]:
            problems.append(f'frame {i + 1}: differs from expected frame {i % len(want) + 1} '
                            f'(length {g[0]} want {w[0]}, first differing byte {first_diff(g[2], w[2])})')
            break
    return problems


def main(argv):
    if len(argv) == 5 and argv[1] == '--cyclic':
        try:
            problems = compare_cyclic(argv[2], argv[3], argv[4])
        except (OSError, ValueError, KeyError) as e:
            problems = [str(e)]
        for p in problems:
            print(f'compare: {p}', file=sys.stderr)
        return 1 if problems else 0
    leaks = len(argv) > 1 and argv[1] == '--leaks'
    if leaks:
        argv = argv[:1] + argv[2:]
    if len(argv) not in (3, 5):
        print('usage: compare.py [--leaks] GOT.pcap WANT.pcap [GOT.json WANT.json]',
              file=sys.stderr)
        return 2
    try:
        problems = compare_pcaps(argv[1], argv[2])
        if len(argv) == 5:
            with open(argv[3]) as g, open(argv[4]) as w:
                got = json.load(g)
                problems += compare_json(got, json.load(w)) + accounting(got, leaks)
    except (OSError, ValueError) as e:
        print(f'compare: {e}', file=sys.stderr)
        return 1
    for p in problems:
        print(f'compare: {p}', file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
