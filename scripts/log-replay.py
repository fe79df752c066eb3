#!/usr/bin/env python3
"""Rebuild the disk that a power cut leaves when the disk's write cache is lost.

log-replay.py LOG IMAGE

IMAGE is the scratch disk as it was when the boot began; LOG is QEMU's
blklogwrites log of that boot (dm-log-writes' format: a superblock, then one
entry per write, flush or discard, each in the order the guest saw it
complete, with the written data after it). This applies to IMAGE every write
logged before the last flush that completed, and nothing after it: what a
disk keeps that loses its whole volatile cache at the power cut. QEMU turns
a FUA write into a write and a flush, so a FUA write is kept too.
A discard is a hint that a disk may ignore: the old data is kept.
"""
import struct
import sys

MAGIC = 0x6A736677736872
FLUSH, DISCARD = 1 << 0, 1 << 2
SUPER = struct.Struct("<QQQI")
ENTRY = struct.Struct("<QQQQ")


def entries(log):
    """Yield (offset, length, flags, data offset in LOG) of each entry in LOG."""
    magic, version, count, size = SUPER.unpack(log.read(SUPER.size))
    # QEMU writes the superblock at the first flush: none, nothing durable.
    if (magic, version, count, size) == (0, 0, 0, 0):
        return
    if magic != MAGIC or version != 1:
        sys.exit(f"log-replay.py: {log.name} is not a blklogwrites log (magic {magic:#x})")
    pos = size
    for _ in range(count):
        log.seek(pos)
        sector, sectors, flags, _ = ENTRY.unpack(log.read(ENTRY.size))
        data = pos + size
        pos = data + (0 if flags & DISCARD else sectors * size)
        yield sector * size, sectors * size, flags, data


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: log-replay.py LOG IMAGE")
    with open(sys.argv[1], "rb") as log:
        logged = list(entries(log))
        flushes = [i for i, e in enumerate(logged) if e[2] & FLUSH]
        durable = logged[: flushes[-1]] if flushes else []
        kept = [e for e in durable if not e[2] & (FLUSH | DISCARD)]
        with open(sys.argv[2], "r+b") as image:
            for offset, length, _, data in kept:
                log.seek(data)
                image.seek(offset)
                image.write(log.read(length))
    print(f"kept {len(kept)} writes ({sum(e[1] for e in kept)} bytes) up to the last of"
          f" {len(flushes)} flushes; none after it")

main()
