package vault

import (
	"io/fs"
)

// renameChecked renames old to new unless something is at new.
func (v *Vault) renameChecked(old, new string) error {
	if _, err := v.root.Lstat(new); err == nil {
		return &fs.PathError{Op: "rename", Path: new, Err: fs.ErrExist}
	}
	return v.root.Rename(old, new)
}

func dirOrDot(d string) string {
	if d == "" {
		return "."
	}
	return d
}
