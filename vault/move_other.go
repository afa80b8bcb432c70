//go:build !linux

package vault

// renameNoReplace renames the file or folder at vault path old to new,
// failing with an error that matches fs.ErrExist when new exists. Without
// renameat2 it checks, then renames: a file created at new in between
// (microseconds) would be replaced.
func (v *Vault) renameNoReplace(old, new string) error {
	if err := v.step("rename", new); err != nil {
		return err
	}
	return v.renameChecked(old, new)
}
