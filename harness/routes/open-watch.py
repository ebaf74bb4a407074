"""Watches files for any access through Linux inotify and prints what it saw, one JSON line per event.

Usage: python3 open-watch.py PATH...   Prints `ready` once every watch is in place; exits when its
standard input closes, after reading every event the kernel queued. Used by the harness's storage
seals: a sealed file's placeholder must not even be opened (IN_OPEN), which a file's contents or
timestamps cannot show. A PATH may be a folder: an event on one of its entries names the entry
(which declared state files an honest attempt used). Standard library only (ctypes on libc).
"""
import ctypes
import json
import os
import select
import struct
import sys

EVENTS = {
    0x001: "read",  # IN_ACCESS
    0x002: "written",  # IN_MODIFY
    0x004: "attributes changed",  # IN_ATTRIB
    0x008: "closed after writing",  # IN_CLOSE_WRITE
    0x020: "opened",  # IN_OPEN
    0x080: "moved in",  # IN_MOVED_TO (a watched folder's entry)
    0x100: "created",  # IN_CREATE (a watched folder's entry)
    0x400: "deleted",  # IN_DELETE_SELF
    0x800: "moved",  # IN_MOVE_SELF
}
MASK = 0x001 | 0x002 | 0x004 | 0x008 | 0x020 | 0x080 | 0x100 | 0x400 | 0x800
HEADER = struct.Struct("iIII")


def main(paths):
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0:
        print(json.dumps({"error": "inotify_init1", "errno": ctypes.get_errno()}), flush=True)
        return 2
    watches = {}
    for path in paths:
        wd = libc.inotify_add_watch(fd, os.fsencode(path), MASK)
        if wd < 0:
            print(json.dumps({"error": "inotify_add_watch", "errno": ctypes.get_errno()}), flush=True)
            return 2
        watches[wd] = path
    print("ready", flush=True)

    def drain():
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, length = HEADER.unpack_from(data, offset)
                entry = data[offset + HEADER.size : offset + HEADER.size + length].rstrip(b"\0")
                offset += HEADER.size + length
                names = [name for bit, name in EVENTS.items() if mask & bit]
                if wd in watches and names:
                    event = {"path": watches[wd], "events": names}
                    if entry:  # an event on an entry of a watched folder names the entry
                        event["entry"] = os.fsdecode(entry)
                    print(json.dumps(event), flush=True)

    stdin = sys.stdin.fileno()
    while True:
        readable, _, _ = select.select([fd, stdin], [], [])
        if fd in readable:
            drain()
        if stdin in readable and not os.read(stdin, 4096):
            drain()
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
