//go:build linux

package vault

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// trustedFS are the file systems whose folder times a walk trusts
// (FolderListing): local ones, where the kernel itself sets a folder's
// mtime and ctime on every change of its entries. Network and FUSE file
// systems (NFS, SMB, sshfs, cloud drives) are left out: their folders'
// times are what a server or a program says, and a change made on another
// machine may show in a listing before it shows in the times.
var trustedFS = map[int64]bool{
	0xEF53:     true, // ext2, ext3, ext4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0x2FC12FC1: true, // zfs
	0xF2F52010: true, // f2fs
	0xCA451A4E: true, // bcachefs
	0x794C7630: true, // overlayfs (containers)
}

// foldersTrusted reports whether the vault's folder lies on a file system
// whose folder times a walk may trust.
func (b *beneath) foldersTrusted() bool {
	if b == nil || b.dir == nil {
		return false
	}
	b.trustOnce.Do(func() {
		var sfs unix.Statfs_t
		var st unix.Stat_t
		fd := int(b.dir.Fd())
		if unix.Fstatfs(fd, &sfs) != nil || unix.Fstat(fd, &st) != nil {
			return
		}
		b.dev, b.trusted = st.Dev, trustedFS[int64(sfs.Type)]
	})
	return b.trusted
}

// stamp is the stamp of a folder stat-ed as fi; not ok when it lies on
// another file system than the vault's folder (a mount inside the vault).
func (b *beneath) stamp(fi fs.FileInfo) folderStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || b == nil || uint64(st.Dev) != b.dev {
		return folderStamp{}
	}
	return folderStamp{ok: true, ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// trustListing returns the entries of the folder name in dir (a folder of
// the vault, open) from its listing l when the folder is still the one l
// describes, as it was: the same inode, mtime and ctime, on the vault's
// file system. It is opened by its name alone, without following a link,
// and each file of l is stat-ed by name in it (without following a link
// either); ok is false, and the caller reads the folder, where anything
// differs or fails.
func (b *beneath) trustListing(dir *os.File, name string, l FolderListing) (entries []fs.DirEntry, ok bool) {
	if b == nil || dir == nil {
		return nil, false
	}
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil, false
	}
	fd := -1
	// Control fails once dir is closed, never using its number after.
	cerr := rc.Control(func(dfd uintptr) {
		for {
			fd, err = unix.Openat(int(dfd), name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != unix.EINTR {
				return
			}
		}
	})
	if cerr != nil || err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	if !b.sameFolder(fd, l) {
		return nil, false
	}
	entries = make([]fs.DirEntry, len(l.Files))
	stats := make([]statEntry, len(l.Files))
	for i, file := range l.Files {
		e := &stats[i]
		e.name = file
		if unix.Fstatat(fd, file, &e.st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return nil, false
		}
		entries[i] = e
	}
	return entries, true
}

// sameFolder reports whether the folder open as fd is the one l describes,
// as it was: the same inode, mtime and ctime, on the vault's file system.
func (b *beneath) sameFolder(fd int, l FolderListing) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Dev == b.dev && st.Ino == l.Ino &&
		st.Mtim.Nano() == l.MTime && st.Ctim.Nano() == l.CTime
}

// recheck is Vault.Recheck: the folder is opened from the vault's folder
// through no link (beneath.open).
func (b *beneath) recheck(t TrustedFolder) bool {
	fh, ok := b.open(t.Path, unix.O_PATH|unix.O_DIRECTORY)
	if !ok {
		return false
	}
	defer fh.Close()
	fd := int(fh.Fd())
	if !b.sameFolder(fd, t.Listing) {
		return false
	}
	var st unix.Stat_t
	for _, e := range t.files {
		was, ok := e.(*statEntry)
		if !ok || unix.Fstatat(fd, was.name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Ino != was.st.Ino ||
			st.Size != was.st.Size || st.Mtim != was.st.Mtim || st.Ctim != was.st.Ctim {
			return false
		}
	}
	return true
}

// statEntry is a folder entry and its stat, for a trusted listing.
type statEntry struct {
	name string
	st   unix.Stat_t
}

func (e *statEntry) Name() string               { return e.name }
func (e *statEntry) IsDir() bool                { return e.st.Mode&unix.S_IFMT == unix.S_IFDIR }
func (e *statEntry) Type() fs.FileMode          { return e.Mode().Type() }
func (e *statEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e *statEntry) Size() int64                { return e.st.Size }
func (e *statEntry) ModTime() time.Time         { return time.Unix(e.st.Mtim.Unix()) }
func (e *statEntry) Sys() any                   { return &e.st }

func (e *statEntry) Mode() fs.FileMode {
	m := fs.FileMode(e.st.Mode & 0o777)
	switch e.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	}
	return m
}
