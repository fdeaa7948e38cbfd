#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Remove the DPDK runtime directories a test run left behind.

Every DPDK primary process keeps /var/run/dpdk/PREFIX (config, fbarray
files: about 9 MiB with --no-huge -m 512) after it exits, and the suite
starts hundreds of processes with prefixes of their own; on a machine
whose /run is a tmpfs that is RAM, and it fills /run. Usage:
  dpdk-runtime-clean.py list            the directories there now
  dpdk-runtime-clean.py clean BEFORE    remove those not in the file BEFORE
                                        whose EAL config nobody locks
"""
import fcntl
import os
import shutil
import sys


def base():
    if os.getuid() == 0:
        return '/var/run/dpdk'
    return os.path.join(os.environ.get('XDG_RUNTIME_DIR', '/tmp'), 'dpdk')


def in_use(d):
    cfg = os.path.join(d, 'config')
    try:
        fd = os.open(cfg, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 0, 0)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def main():
    root = base()
    now = sorted(os.listdir(root)) if os.path.isdir(root) else []
    if sys.argv[1:] == ['list']:
        print('\n'.join(now))
        return 0
    if len(sys.argv) != 3 or sys.argv[1] != 'clean':
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[2]) as f:
        before = set(f.read().split())
    gone = 0
    for name in now:
        d = os.path.join(root, name)
        if name in before or not os.path.isdir(d) or in_use(d):
            continue
        shutil.rmtree(d, ignore_errors=True)
        gone += 1
    print(f'removed {gone} DPDK runtime directories the run left in {root}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
