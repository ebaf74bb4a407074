package main

import (
	"maps"
	"slices"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// lossyFS serves the model to the kernel through go-fuse's raw (node id) API. Node ids are the
// model's inode numbers; entry and attribute timeouts are zero, so the kernel asks again on every
// path walk and sees a cut at once.
type lossyFS struct {
	fuse.RawFileSystem
	s *state
}

func (f *lossyFS) node(id uint64) (*node, fuse.Status) {
	n := f.s.nodes[id]
	if n == nil {
		return nil, fuse.EIO // a node id from before a power cut
	}
	return n, fuse.OK
}

func (f *lossyFS) dir(id uint64) (*node, fuse.Status) {
	n, st := f.node(id)
	if st == fuse.OK && !n.isDir() {
		return nil, fuse.ENOTDIR
	}
	return n, st
}

// child looks name up in the directory parent: the directory and the node it names, or why not.
func (f *lossyFS) child(parent uint64, name string) (*node, *node, fuse.Status) {
	d, st := f.dir(parent)
	if st != fuse.OK {
		return nil, nil, st
	}
	id, ok := d.entries[name]
	if !ok {
		return nil, nil, fuse.ENOENT
	}
	return d, f.s.nodes[id], fuse.OK
}

func fillAttr(n *node, a *fuse.Attr) {
	*a = fuse.Attr{Ino: n.ino, Mode: n.mode, Nlink: n.nlink, Blksize: pageSize}
	a.Uid, a.Gid = n.uid, n.gid
	switch {
	case n.isRegular():
		a.Size = uint64(len(n.data))
	case n.isSymlink():
		a.Size = uint64(len(n.target))
	case n.isDir():
		a.Size, a.Nlink = pageSize, 2
	}
	a.Blocks = (a.Size + 511) / 512
	t := uint64(n.mtime.Unix())
	ns := uint32(n.mtime.Nanosecond())
	a.Atime, a.Mtime, a.Ctime = t, t, t
	a.Atimensec, a.Mtimensec, a.Ctimensec = ns, ns, ns
}

func fillEntry(n *node, out *fuse.EntryOut) {
	out.NodeId = n.ino
	out.Generation = 0
	out.SetEntryTimeout(0)
	out.SetAttrTimeout(0)
	fillAttr(n, &out.Attr)
}

func (f *lossyFS) Lookup(_ <-chan struct{}, h *fuse.InHeader, name string, out *fuse.EntryOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	_, n, st := f.child(h.NodeId, name)
	if st != fuse.OK {
		return st
	}
	fillEntry(n, out)
	return fuse.OK
}

func (f *lossyFS) GetAttr(_ <-chan struct{}, in *fuse.GetAttrIn, out *fuse.AttrOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.node(in.NodeId)
	if st == fuse.OK {
		out.SetTimeout(0)
		fillAttr(n, &out.Attr)
	}
	return st
}

func (f *lossyFS) SetAttr(_ <-chan struct{}, in *fuse.SetAttrIn, out *fuse.AttrOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.node(in.NodeId)
	if st != fuse.OK {
		return st
	}
	if in.Valid&fuse.FATTR_SIZE != 0 {
		if !n.isRegular() {
			return fuse.EINVAL
		}
		n.truncate(int64(in.Size))
	}
	if in.Valid&fuse.FATTR_MODE != 0 {
		n.mode = n.mode&syscall.S_IFMT | in.Mode&0o7777
	}
	if in.Valid&fuse.FATTR_UID != 0 {
		n.uid = in.Uid
	}
	if in.Valid&fuse.FATTR_GID != 0 {
		n.gid = in.Gid
	}
	if in.Valid&fuse.FATTR_MTIME_NOW != 0 {
		n.mtime = time.Now()
	} else if in.Valid&fuse.FATTR_MTIME != 0 {
		n.mtime = time.Unix(int64(in.Mtime), int64(in.Mtimensec))
	}
	out.SetTimeout(0)
	fillAttr(n, &out.Attr)
	return fuse.OK
}

// add links a new node under a directory (volatile until that directory is fsynced).
func (f *lossyFS) add(parent uint64, name string, mode uint32, caller fuse.Caller) (*node, fuse.Status) {
	d, st := f.dir(parent)
	if st != fuse.OK {
		return nil, st
	}
	if _, exists := d.entries[name]; exists {
		return nil, fuse.Status(syscall.EEXIST)
	}
	n := f.s.newNode(mode, caller.Uid, caller.Gid)
	d.entries[name] = n.ino
	d.mtime = time.Now()
	return n, fuse.OK
}

func (f *lossyFS) Mkdir(_ <-chan struct{}, in *fuse.MkdirIn, name string, out *fuse.EntryOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.add(in.NodeId, name, syscall.S_IFDIR|in.Mode&0o7777, in.Caller)
	if st == fuse.OK {
		fillEntry(n, out)
	}
	return st
}

func (f *lossyFS) Mknod(_ <-chan struct{}, in *fuse.MknodIn, name string, out *fuse.EntryOut) fuse.Status {
	if in.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return fuse.EPERM // only regular files are modelled
	}
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.add(in.NodeId, name, in.Mode, in.Caller)
	if st == fuse.OK {
		fillEntry(n, out)
	}
	return st
}

func (f *lossyFS) Symlink(_ <-chan struct{}, h *fuse.InHeader, target, name string, out *fuse.EntryOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.add(h.NodeId, name, syscall.S_IFLNK|0o777, h.Caller)
	if st == fuse.OK {
		n.target = target
		fillEntry(n, out)
	}
	return st
}

func (f *lossyFS) Readlink(_ <-chan struct{}, h *fuse.InHeader) ([]byte, fuse.Status) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n, st := f.node(h.NodeId)
	if st != fuse.OK {
		return nil, st
	}
	if !n.isSymlink() {
		return nil, fuse.EINVAL
	}
	return []byte(n.target), fuse.OK
}

func (f *lossyFS) Link(_ <-chan struct{}, in *fuse.LinkIn, name string, out *fuse.EntryOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	d, st := f.dir(in.NodeId)
	if st != fuse.OK {
		return st
	}
	n, st := f.node(in.Oldnodeid)
	if st != fuse.OK {
		return st
	}
	if n.isDir() {
		return fuse.EPERM
	}
	if _, exists := d.entries[name]; exists {
		return fuse.Status(syscall.EEXIST)
	}
	d.entries[name] = n.ino
	n.nlink++
	fillEntry(n, out)
	return fuse.OK
}

func (f *lossyFS) ReadDir(_ <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	d, st := f.dir(in.NodeId)
	if st != fuse.OK {
		return st
	}
	names := slices.Sorted(maps.Keys(d.entries))
	for i := int(in.Offset); i < len(names); i++ {
		child := f.s.nodes[d.entries[names[i]]]
		if !out.AddDirEntry(fuse.DirEntry{Name: names[i], Ino: child.ino, Mode: child.mode}) {
			break
		}
	}
	return fuse.OK
}

func (f *lossyFS) OpenDir(_ <-chan struct{}, in *fuse.OpenIn, _ *fuse.OpenOut) fuse.Status {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	_, st := f.dir(in.NodeId)
	return st
}

func (f *lossyFS) Access(_ <-chan struct{}, _ *fuse.AccessIn) fuse.Status { return fuse.OK }
