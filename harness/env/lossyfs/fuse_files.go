package main

import (
	"log"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

const (
	renameNoReplace = 1 // RENAME_NOREPLACE
	renameExchange  = 2 // RENAME_EXCHANGE
)

func (f *lossyFS) Unlink(_ <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	return f.remove(h.NodeId, name, false)
}

func (f *lossyFS) Rmdir(_ <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	return f.remove(h.NodeId, name, true)
}

// remove drops a name from the volatile directory only; the backing folder keeps it until the
// directory is fsynced.
func (f *lossyFS) remove(parent uint64, name string, wantDir bool) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	d, n, st := f.child(parent, name)
	if st != fuse.OK {
		return st
	}
	switch {
	case wantDir && !n.isDir():
		return fuse.ENOTDIR
	case !wantDir && n.isDir():
		return fuse.Status(syscall.EISDIR)
	case n.isDir() && len(n.entries) > 0:
		return fuse.Status(syscall.ENOTEMPTY)
	}
	delete(d.entries, name)
	if !n.isDir() {
		n.nlink--
	}
	d.mtime = time.Now()
	return fuse.OK
}

func (f *lossyFS) Rename(_ <-chan struct{}, in *fuse.RenameIn, oldName, newName string) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	from, st := f.dir(in.NodeId)
	if st != fuse.OK {
		return st
	}
	to, st := f.dir(in.Newdir)
	if st != fuse.OK {
		return st
	}
	id, ok := from.entries[oldName]
	if !ok {
		return fuse.ENOENT
	}
	moved := f.s.nodes[id]
	if moved.isDir() && f.contains(moved, to.ino) {
		return fuse.EINVAL // a directory cannot move under itself
	}
	victimID, exists := to.entries[newName]
	switch {
	case in.Flags&^(renameNoReplace|renameExchange) != 0:
		return fuse.EINVAL
	case in.Flags&renameExchange != 0:
		if !exists {
			return fuse.ENOENT
		}
		from.entries[oldName], to.entries[newName] = victimID, id
		return fuse.OK
	case exists && in.Flags&renameNoReplace != 0:
		return fuse.Status(syscall.EEXIST)
	case exists && victimID == id:
		return fuse.OK
	case exists:
		victim := f.s.nodes[victimID]
		if victim.isDir() != moved.isDir() {
			if victim.isDir() {
				return fuse.Status(syscall.EISDIR)
			}
			return fuse.ENOTDIR
		}
		if victim.isDir() && len(victim.entries) > 0 {
			return fuse.Status(syscall.ENOTEMPTY)
		}
		if !victim.isDir() {
			victim.nlink--
		}
	}
	delete(from.entries, oldName)
	to.entries[newName] = id
	from.mtime, to.mtime = time.Now(), time.Now()
	return fuse.OK
}

// contains says whether dir's volatile subtree (itself included) holds the node id.
func (f *lossyFS) contains(dir *node, id uint64) bool {
	if dir.ino == id {
		return true
	}
	for _, child := range dir.entries {
		if c := f.s.nodes[child]; c.isDir() && f.contains(c, id) {
			return true
		}
	}
	return false
}

func (f *lossyFS) Create(_ <-chan struct{}, in *fuse.CreateIn, name string, out *fuse.CreateOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	d, st := f.dir(in.NodeId)
	if st != fuse.OK {
		return st
	}
	if id, exists := d.entries[name]; exists {
		if in.Flags&syscall.O_EXCL != 0 {
			return fuse.Status(syscall.EEXIST)
		}
		n := f.s.nodes[id]
		if in.Flags&syscall.O_TRUNC != 0 && n.isRegular() {
			n.truncate(0)
		}
		fillEntry(n, &out.EntryOut)
		return fuse.OK
	}
	n, st := f.add(in.NodeId, name, syscall.S_IFREG|in.Mode&0o7777, in.Caller)
	if st == fuse.OK {
		fillEntry(n, &out.EntryOut)
	}
	return st
}

func (f *lossyFS) Open(_ <-chan struct{}, in *fuse.OpenIn, _ *fuse.OpenOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.node(in.NodeId)
	if st == fuse.OK && in.Flags&syscall.O_TRUNC != 0 && n.isRegular() {
		n.truncate(0)
	}
	return st
}

func (f *lossyFS) Read(_ <-chan struct{}, in *fuse.ReadIn, _ []byte) (fuse.ReadResult, fuse.Status) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.node(in.NodeId)
	if st != fuse.OK {
		return nil, st
	}
	off := min(int64(in.Offset), int64(len(n.data)))
	end := min(off+int64(in.Size), int64(len(n.data)))
	return fuse.ReadResultData(append([]byte(nil), n.data[off:end]...)), fuse.OK
}

func (f *lossyFS) Write(_ <-chan struct{}, in *fuse.WriteIn, data []byte) (uint32, fuse.Status) {
	return f.Writev(nil, in, [][]byte{data})
}

func (f *lossyFS) Writev(_ <-chan struct{}, in *fuse.WriteIn, data [][]byte) (uint32, fuse.Status) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.node(in.NodeId)
	if st != fuse.OK {
		return 0, st
	}
	f.s.stats.Writes++
	off := int64(in.Offset)
	for _, piece := range data {
		n.write(off, piece)
		off += int64(len(piece))
	}
	return uint32(off - int64(in.Offset)), fuse.OK
}

func (f *lossyFS) Fallocate(_ <-chan struct{}, in *fuse.FallocateIn) fuse.Status {
	if in.Mode != 0 {
		return fuse.Status(syscall.EOPNOTSUPP)
	}
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.node(in.NodeId)
	if st == fuse.OK && int64(in.Offset+in.Length) > int64(len(n.data)) {
		n.truncate(int64(in.Offset + in.Length))
	}
	return st
}

// Fsync is fsync(2) and fdatasync(2): the file's content becomes durable.
func (f *lossyFS) Fsync(_ <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.node(in.NodeId)
	if st != fuse.OK || !n.isRegular() {
		return st
	}
	return errnoStatus(f.s.fsyncFile(n))
}

// FsyncDir is fsync(2) on a directory: its entries become durable.
func (f *lossyFS) FsyncDir(_ <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	d, st := f.dir(in.NodeId)
	if st != fuse.OK {
		return st
	}
	return errnoStatus(f.s.fsyncDir(d))
}

func (f *lossyFS) Flush(_ <-chan struct{}, _ *fuse.FlushIn) fuse.Status { return fuse.OK }

func (f *lossyFS) StatFs(_ <-chan struct{}, _ *fuse.InHeader, out *fuse.StatfsOut) fuse.Status {
	var st syscall.Statfs_t
	if err := syscall.Statfs(f.s.backing, &st); err != nil {
		return fuse.ToStatus(err)
	}
	out.FromStatfsT(&st)
	return fuse.OK
}

// errnoStatus reports a failed write to the backing folder as EIO to the caller of fsync.
func errnoStatus(err error) fuse.Status {
	if err == nil {
		return fuse.OK
	}
	log.Printf("lossyfs: writing the backing folder failed: %v", err)
	return fuse.EIO
}
