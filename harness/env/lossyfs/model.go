package main

import (
	"bytes"
	"maps"
	"sync"
	"syscall"
	"time"
)

// pageSize is the unit in which written data is tracked as dirty until fsync.
const pageSize = 4096

// rootIno is the kernel's node id for the mount's root; it stays 1 across power cuts.
const rootIno = 1

// node is one inode. The volatile fields are what the running machine sees (its page cache and
// in-memory directory entries); the synced fields are what a power cut keeps, and what the
// backing folder holds wherever the inode is durably reachable.
type node struct {
	ino      uint64
	mode     uint32 // file type bits and permissions
	uid, gid uint32
	mtime    time.Time
	nlink    uint32 // names in volatile directories (files only; dirs report 2)

	data   []byte             // volatile content (regular files)
	synced []byte             // content as of the last fsync/fdatasync
	dirty  map[int64]struct{} // pages of data changed since the last fsync

	target string // symlink target (a symlink is durable once its directory is synced)

	entries       map[string]uint64 // volatile directory entries
	syncedEntries map[string]uint64 // entries as of the last fsync of this directory
}

func (n *node) isDir() bool     { return n.mode&syscall.S_IFMT == syscall.S_IFDIR }
func (n *node) isRegular() bool { return n.mode&syscall.S_IFMT == syscall.S_IFREG }
func (n *node) isSymlink() bool { return n.mode&syscall.S_IFMT == syscall.S_IFLNK }

// state is the whole filesystem: one lock serialises every operation, including a cut.
type state struct {
	mu      sync.Mutex
	backing string
	nodes   map[uint64]*node
	nextIno uint64 // never reused, so a node id from before a cut never names a node after it
	stats   counters
}

// counters are reported by the control socket's "stats" command.
type counters struct {
	Fsyncs    uint64 `json:"fsyncs"`
	DirSyncs  uint64 `json:"dirsyncs"`
	Cuts      uint64 `json:"cuts"`
	SyncAlls  uint64 `json:"syncalls"`
	Writes    uint64 `json:"writes"`
	Unsynced  int    `json:"unsynced"`  // files whose content differs from what a cut keeps
	DirsAhead int    `json:"dirsahead"` // directories whose entries differ from what a cut keeps
}

func (s *state) newNode(mode, uid, gid uint32) *node {
	s.nextIno++
	n := &node{ino: s.nextIno, mode: mode, uid: uid, gid: gid, mtime: time.Now(), nlink: 1}
	if n.isDir() {
		n.entries = map[string]uint64{}
		n.syncedEntries = map[string]uint64{}
	}
	if n.isRegular() {
		n.dirty = map[int64]struct{}{}
	}
	s.nodes[n.ino] = n
	return n
}

// markDirty records the pages in [from, to) as changed since the last fsync.
func (n *node) markDirty(from, to int64) {
	for page := from / pageSize; page*pageSize < to; page++ {
		n.dirty[page] = struct{}{}
	}
}

// write puts data at off in the volatile content only: nothing reaches the backing folder.
func (n *node) write(off int64, data []byte) {
	end := off + int64(len(data))
	if end > int64(len(n.data)) {
		n.data = append(n.data, make([]byte, end-int64(len(n.data)))...)
	}
	copy(n.data[off:end], data)
	n.markDirty(off, end)
	n.mtime = time.Now()
}

// truncate changes the volatile size; grown bytes are zeros, never a stale tail.
func (n *node) truncate(size int64) {
	old := int64(len(n.data))
	if size < old {
		n.data = bytes.Clone(n.data[:size])
		n.markDirty(size, old)
	} else if size > old {
		n.data = append(n.data, make([]byte, size-old)...)
		n.markDirty(old, size)
	}
	n.mtime = time.Now()
}

// unsyncedCounts says how much a cut would drop now.
func (s *state) unsyncedCounts() (files, dirs int) {
	for _, n := range s.nodes {
		if n.isRegular() && (len(n.dirty) > 0 || !bytes.Equal(n.data, n.synced)) {
			files++
		}
		if n.isDir() && !maps.Equal(n.entries, n.syncedEntries) {
			dirs++
		}
	}
	return files, dirs
}
