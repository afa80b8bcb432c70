//go:build !linux

package vault

import (
	"io/fs"
	"os"
)

// beneath is the one-call open of vault paths where the kernel can vouch
// for them (files_linux.go); elsewhere every path goes the careful way.
type beneath struct{}

func openBeneath(string) *beneath { return nil }

func (*beneath) close() {}

func (*beneath) open(string, int) (*os.File, bool) { return nil, false }

const openPath = 0

// Elsewhere no walk trusts folder times (listing_linux.go): every folder
// is read.
func (*beneath) foldersTrusted() bool { return false }

func (*beneath) stamp(fs.FileInfo) folderStamp { return folderStamp{} }

func (*beneath) trustListing(*os.File, string, FolderListing) ([]fs.DirEntry, bool) {
	return nil, false
}

func (*beneath) recheck(TrustedFolder) bool { return false }
