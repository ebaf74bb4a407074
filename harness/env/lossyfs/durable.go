package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// The backing folder always holds exactly the durable state: what fsync made durable and what
// directory fsyncs linked into reachable directories. A cut therefore only has to forget the
// volatile state and read the backing folder again.

// load reads the backing folder as the state after a (re)boot: volatile equals durable.
func (s *state) load() error {
	var st syscall.Stat_t
	if err := syscall.Lstat(s.backing, &st); err != nil {
		return fmt.Errorf("backing folder %s: %w", s.backing, err)
	}
	s.nodes = map[uint64]*node{}
	root := &node{ino: rootIno, mode: st.Mode, uid: st.Uid, gid: st.Gid, nlink: 2,
		entries: map[string]uint64{}, syncedEntries: map[string]uint64{}}
	s.nodes[rootIno] = root
	if s.nextIno < rootIno {
		s.nextIno = rootIno
	}
	return s.loadDir(root, s.backing, map[[2]uint64]uint64{})
}

// loadDir reads one backing directory; hard links (same device and inode) share one node.
func (s *state) loadDir(dir *node, path string, seen map[[2]uint64]uint64) error {
	names, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, entry := range names {
		full := filepath.Join(path, entry.Name())
		var st syscall.Stat_t
		if err := syscall.Lstat(full, &st); err != nil {
			return err
		}
		key := [2]uint64{st.Dev, st.Ino}
		if id, ok := seen[key]; ok {
			dir.entries[entry.Name()] = id
			s.nodes[id].nlink++
			continue
		}
		child := s.newNode(st.Mode, st.Uid, st.Gid)
		switch {
		case child.isDir():
			child.nlink = 2
			if err := s.loadDir(child, full, seen); err != nil {
				return err
			}
		case child.isRegular():
			if child.data, err = os.ReadFile(full); err != nil {
				return err
			}
			child.synced = bytes.Clone(child.data)
			seen[key] = child.ino
		case child.isSymlink():
			if child.target, err = os.Readlink(full); err != nil {
				return err
			}
		default: // sockets, fifos, devices: not modelled
			delete(s.nodes, child.ino)
			continue
		}
		dir.entries[entry.Name()] = child.ino
	}
	dir.syncedEntries = maps.Clone(dir.entries)
	return nil
}

// durablePaths lists the backing paths at which ino is durably reachable (through synced
// directory entries from the root). A directory graph made cyclic by partial syncs is cut off.
func (s *state) durablePaths(ino uint64) []string {
	var found []string
	onPath := map[uint64]bool{}
	var walk func(id uint64, path string)
	walk = func(id uint64, path string) {
		if id == ino {
			found = append(found, path)
		}
		n := s.nodes[id]
		if n == nil || !n.isDir() || onPath[id] {
			return
		}
		onPath[id] = true
		for _, name := range slices.Sorted(maps.Keys(n.syncedEntries)) {
			walk(n.syncedEntries[name], filepath.Join(path, name))
		}
		onPath[id] = false
	}
	walk(rootIno, s.backing)
	return found
}

// fsyncFile makes a file's content, size and mode durable (fsync and fdatasync alike).
func (s *state) fsyncFile(n *node) error {
	s.stats.Fsyncs++
	for _, path := range s.durablePaths(n.ino) {
		if err := s.writeBacking(n, path); err != nil {
			return err
		}
	}
	n.synced = bytes.Clone(n.data)
	clear(n.dirty)
	return nil
}

// writeBacking writes the dirty pages (all of them when the backing file is new), the size and the
// owner and mode, then fsyncs the backing file.
func (s *state) writeBacking(n *node, path string) error {
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if statErr != nil {
		_, err = f.WriteAt(n.data, 0)
	} else {
		for page := range n.dirty {
			from := page * pageSize
			if from >= int64(len(n.data)) {
				continue
			}
			if _, err = f.WriteAt(n.data[from:min(from+pageSize, int64(len(n.data)))], from); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = f.Truncate(int64(len(n.data)))
	}
	if err == nil {
		err = errors.Join(f.Chmod(os.FileMode(n.mode&0o7777)), f.Chown(int(n.uid), int(n.gid)))
	}
	if err == nil {
		err = f.Sync()
	}
	return err
}

// fsyncDir makes a directory's entries durable: names removed since its last sync leave the
// backing folder, names added or relinked appear there with their inode's durable content.
func (s *state) fsyncDir(d *node) error {
	s.stats.DirSyncs++
	for _, path := range s.durablePaths(d.ino) {
		if err := s.applyEntries(d, path); err != nil {
			return err
		}
	}
	d.syncedEntries = maps.Clone(d.entries)
	return nil
}

func (s *state) applyEntries(d *node, path string) error {
	for name, old := range d.syncedEntries {
		if now, ok := d.entries[name]; !ok || now != old {
			if err := os.RemoveAll(filepath.Join(path, name)); err != nil {
				return err
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.entries)) {
		id := d.entries[name]
		if old, ok := d.syncedEntries[name]; !ok || old != id {
			if err := s.materialize(s.nodes[id], filepath.Join(path, name), map[uint64]bool{}); err != nil {
				return err
			}
		}
	}
	return syncPath(path)
}

// materialize writes an inode's durable form at a backing path that did not hold it.
func (s *state) materialize(n *node, path string, onPath map[uint64]bool) error {
	switch {
	case n.isDir():
		if onPath[n.ino] {
			return nil
		}
		onPath[n.ino] = true
		defer delete(onPath, n.ino)
		if err := os.Mkdir(path, os.FileMode(n.mode&0o777)); err != nil {
			return err
		}
		if err := errors.Join(os.Chmod(path, os.FileMode(n.mode&0o7777)), os.Lchown(path, int(n.uid), int(n.gid))); err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(n.syncedEntries)) {
			if err := s.materialize(s.nodes[n.syncedEntries[name]], filepath.Join(path, name), onPath); err != nil {
				return err
			}
		}
		return syncPath(path)
	case n.isSymlink():
		return errors.Join(os.Symlink(n.target, path), os.Lchown(path, int(n.uid), int(n.gid)))
	default:
		// A second durable name of one inode is a hard link in the backing folder too.
		for _, other := range s.durablePaths(n.ino) {
			if other != path && os.Link(other, path) == nil {
				return nil
			}
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, os.FileMode(n.mode&0o777))
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Write(n.synced)
		return errors.Join(err, f.Chmod(os.FileMode(n.mode&0o7777)), f.Chown(int(n.uid), int(n.gid)), f.Sync())
	}
}

func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// syncAll is sync(2) for this filesystem: every reachable file, then every directory top-down.
func (s *state) syncAll() error {
	s.stats.SyncAlls++
	var dirs []*node
	var walk func(n *node, onPath map[uint64]bool) error
	walk = func(n *node, onPath map[uint64]bool) error {
		if !n.isDir() {
			if n.isRegular() {
				return s.fsyncFile(n)
			}
			return nil
		}
		if onPath[n.ino] {
			return nil
		}
		onPath[n.ino] = true
		dirs = append(dirs, n)
		for _, name := range slices.Sorted(maps.Keys(n.entries)) {
			if err := walk(s.nodes[n.entries[name]], onPath); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(s.nodes[rootIno], map[uint64]bool{}); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := s.fsyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// cut is the power cut: every volatile change is forgotten and the machine "reboots" onto what
// the backing folder holds. Node ids from before the cut name nothing afterwards.
func (s *state) cut() error {
	s.stats.Cuts++
	return s.load()
}
