package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/internal/fsx"
)

// MaxSettingsBytes is the largest settings file read.
const MaxSettingsBytes = 4 << 20

// SettingsEdit is what [EditSettingsFile] did.
type SettingsEdit struct {
	// Target is the file read and written: the settings path, or where it
	// leads when it is a symbolic link (a dotfile manager's).
	Target string
	// Before is the file's content, nil when it is Missing; After what the
	// edit made of it.
	Before, After []byte
	Missing       bool
	// Written is true when After replaced Before on disk.
	Written bool
}

// EditSettingsFile runs edit on the settings file at path and writes what
// it returns when that differs (and write is set), all under an exclusive
// lock in lockDir keyed by the file's real path, so concurrent installs
// and uninstalls each see the other's result and none is lost. A settings
// file that is a symbolic link (stow, chezmoi, home-manager) is written
// through to its target, never replaced by a regular file; the target's
// permission bits and owner are kept. The write is atomic. A dangling
// symbolic link or anything but a regular file is refused.
func EditSettingsFile(ctx context.Context, path, lockDir string, write bool, edit func(before []byte, missing bool) ([]byte, error)) (SettingsEdit, error) {
	target, err := settingsTarget(path)
	if err != nil {
		return SettingsEdit{}, err
	}
	res := SettingsEdit{Target: target}
	if write {
		if err := os.MkdirAll(lockDir, 0o700); err != nil {
			return res, fmt.Errorf("lock %s: %w", path, err)
		}
		sum := sha256.Sum256([]byte(target))
		lock, err := fsx.LockFile(ctx, filepath.Join(lockDir, "settings-"+hex.EncodeToString(sum[:8])+".lock"))
		if err != nil {
			return res, err
		}
		defer lock.Unlock()
	}
	before, err := fsx.ReadRegular(target, MaxSettingsBytes)
	res.Missing = errors.Is(err, fs.ErrNotExist)
	if err != nil && !res.Missing {
		return res, fmt.Errorf("read %s: %w", target, err)
	}
	res.Before = before
	if res.After, err = edit(before, res.Missing); err != nil {
		return res, err
	}
	if !write || (!res.Missing && string(res.After) == string(before)) || (res.Missing && res.After == nil) {
		return res, nil
	}
	if res.Missing {
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return res, err
		}
		err = fsx.WriteFileAtomic(target, res.After, 0o644)
	} else {
		var fi fs.FileInfo
		if fi, err = os.Stat(target); err == nil {
			err = fsx.WriteFileAtomicLike(target, res.After, fi)
		}
	}
	if err != nil {
		return res, err
	}
	res.Written = true
	return res, nil
}

// settingsTarget is path, or the real file a symbolic link at path leads
// to.
func settingsTarget(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s is a symbolic link to a file that does not exist; create it or remove the link", path)
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return real, nil
}
