#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# mkseeds.py: the fuzzer's seed corpus, one file per frame of every
# VECTORS/*/in.pcap, each behind the 8-byte prefix fuzz_stage.c reads: the
# configuration the vector was made with (port, overflow policy,
# drop_invalid, from its folder name as ../shared/vectors/README.md lays it
# out), then hints, kernel and segment cuts varied from frame to frame.
#
#   mkseeds.py VECTORS OUTDIR
import os
import re
import struct
import sys

POLICY = {'keep': 0, 'saturate': 1, 'drop': 2}


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    endian = '<' if data[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack(endian + 'I', data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def config_byte(name):
    m = re.search(r'-port(\d+)-', name)
    port_bit = 1 if m and m.group(1) == '9999' else 0
    if name.endswith('-drop-invalid'):
        return port_bit | POLICY['keep'] << 1 | 1 << 3
    for policy, value in POLICY.items():
        if name.endswith('-' + policy):
            return port_bit | value << 1
    return port_bit


def main(argv):
    if len(argv) != 3:
        print('usage: mkseeds.py VECTORS OUTDIR', file=sys.stderr)
        return 2
    vectors, out = argv[1], argv[2]
    os.makedirs(out, exist_ok=True)
    count = 0
    for name in sorted(os.listdir(vectors)):
        cap = os.path.join(vectors, name, 'in.pcap')
        if not os.path.isfile(cap):
            continue
        base = config_byte(name)
        for i, frame in enumerate(frames(cap)):
            h = (i * 2654435761) & 0xffffffff
            cfg = base | (h >> 7 & 1) << 4 | (h >> 13 & 7) << 5
            cuts = [(h >> s) & 0xffff for s in (0, 5, 11)]
            prefix = bytes([cfg, h >> 20 & 0xff]) + struct.pack('<HHH', *cuts)
            with open(os.path.join(out, f'{name}-{i:04d}'), 'wb') as f:
                f.write(prefix + frame)
            count += 1
    if count == 0:
        print(f'mkseeds.py: no frames under {vectors}/*/in.pcap', file=sys.stderr)
        return 1
    print(f'mkseeds.py: {count} seeds in {out}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
