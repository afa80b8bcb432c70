//go:build linux

package vault

import (
	"errors"
	"path"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames the file or folder at vault path old to new,
// failing with an error that matches fs.ErrExist when new exists — never
// replacing it, atomically: renameat2(RENAME_NOREPLACE), on the folders
// opened through the Root, so neither name can leave the vault. File
// systems without it (some FUSE and network mounts) fall back to a check
// and a rename, which leaves a window of microseconds.
func (v *Vault) renameNoReplace(old, new string) error {
	if err := v.step("rename", new); err != nil {
		return err
	}
	od, err := v.root.Open(dirOrDot(path.Dir(old)))
	if err != nil {
		return err
	}
	defer od.Close()
	nd, err := v.root.Open(dirOrDot(path.Dir(new)))
	if err != nil {
		return err
	}
	defer nd.Close()
	for {
		err = unix.Renameat2(int(od.Fd()), path.Base(old), int(nd.Fd()), path.Base(new), unix.RENAME_NOREPLACE)
		if err != unix.EINTR {
			break
		}
	}
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return v.renameChecked(old, new)
	}
	return err
}
