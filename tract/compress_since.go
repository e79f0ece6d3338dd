package tract

import "context"

// maxCompressWalk bounds the first parents compressSince reads: a head
// that moved further than that is treated as holding a compress.
const maxCompressWalk = 10_000

// compressSince returns the newest compress commit on the first-parent
// history from head back to (not including) old, or "" when none.
func compressSince(ctx context.Context, rd Reader, head, old Hash) (Hash, error) {
	at := head
	for range maxCompressWalk {
		if at == old || at == "" {
			return "", nil
		}
		c, err := rd.Commit(ctx, at)
		if err != nil {
			return "", err
		}
		if c.Operation == OpCompress {
			return c.Hash, nil
		}
		if len(c.Parents) == 0 {
			return "", nil
		}
		at = c.Parents[0]
	}
	return head, nil
}
