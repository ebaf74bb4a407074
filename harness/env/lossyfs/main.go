// Command lossyfs mounts a FUSE filesystem over a backing folder that loses what was not synced
// when told to cut the power (the LazyFS technique). See README.md beside this file.
//
//	lossyfs -backing DIR -mount DIR -control SOCKET
//
// It prints "ready" on stdout once the mount serves. The control socket takes one command per
// line and answers one line: "cut" (drop everything not synced), "sync" (sync everything),
// "stats" (a JSON line of counters). SIGTERM or SIGINT unmounts without syncing (a power cut), and
// so does the death of the process that started it (PR_SET_PDEATHSIG).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

func main() {
	backing := flag.String("backing", "", "the real folder that holds what survives a power cut")
	mount := flag.String("mount", "", "where to mount the filesystem")
	control := flag.String("control", "", "unix socket path for cut/sync/stats")
	debug := flag.Bool("debug", false, "log every FUSE request")
	flag.Parse()
	if *backing == "" || *mount == "" || *control == "" {
		fmt.Fprintln(os.Stderr, "usage: lossyfs -backing DIR -mount DIR -control SOCKET")
		os.Exit(2)
	}
	// A harness killed outright (SIGKILL) must not leave a mount behind: its death is our SIGTERM.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0); errno != 0 {
		log.Printf("lossyfs: PR_SET_PDEATHSIG: %v", errno)
	}
	if os.Getppid() == 1 {
		log.Fatal("lossyfs: the process that started it is gone")
	}
	s := &state{backing: *backing}
	if err := s.load(); err != nil {
		log.Fatalf("lossyfs: %v", err)
	}
	fs := &lossyFS{RawFileSystem: fuse.NewDefaultRawFileSystem(), s: s}
	server, err := fuse.NewServer(fs, *mount, &fuse.MountOptions{
		FsName: "lossyfs", Name: "lossyfs", AllowOther: true, DirectMount: true,
		DisableXAttrs: true, DisableReadDirPlus: true, Debug: *debug,
	})
	if err != nil {
		log.Fatalf("lossyfs: mount %s: %v", *mount, err)
	}
	listener, err := net.Listen("unix", *control)
	if err != nil {
		_ = server.Unmount()
		log.Fatalf("lossyfs: control socket %s: %v", *control, err)
	}
	go serveControl(listener, s)
	go server.Serve()
	if err := server.WaitMount(); err != nil {
		log.Fatalf("lossyfs: %v", err)
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		if err := server.Unmount(); err != nil {
			// Still busy (a process holds a file open): detach it lazily and stop serving.
			log.Printf("lossyfs: unmount: %v; detaching", err)
			_ = syscall.Unmount(*mount, syscall.MNT_DETACH)
			_ = listener.Close()
			removeFolders(*mount, *control)
			os.Exit(0)
		}
	}()
	fmt.Println("ready")
	server.Wait()
	_ = listener.Close()
	removeFolders(*mount, *control)
}

// removeFolders removes the control socket, the (now unmounted, empty) mount point and, when the
// socket sat beside it, their folder if nothing else is left in it: a harness killed outright
// (SIGKILL) cannot remove its own temporary folder, so the filesystem it started does.
// Each removal is of an empty folder only (os.Remove), so nothing the harness still uses goes.
func removeFolders(mount, control string) {
	_ = os.Remove(control)
	_ = os.Remove(mount)
	if dir := filepath.Dir(mount); dir == filepath.Dir(control) {
		_ = os.Remove(dir)
	}
}

func serveControl(listener net.Listener, s *state) {
	for {
		conn, err := listener.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			lines := bufio.NewScanner(conn)
			for lines.Scan() {
				fmt.Fprintln(conn, command(s, strings.TrimSpace(lines.Text())))
			}
		}()
	}
}

func command(s *state, cmd string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	switch cmd {
	case "cut":
		err = s.cut()
	case "sync":
		err = s.syncAll()
	case "stats":
		stats := s.stats
		stats.Unsynced, stats.DirsAhead = s.unsyncedCounts()
		line, _ := json.Marshal(stats)
		return string(line)
	default:
		return "error unknown command " + cmd
	}
	if err != nil {
		return "error " + err.Error()
	}
	return "ok"
}
