//go:build !unix

package vault

import "errors"

func wMkfifo(p string) error { return errors.ErrUnsupported }
