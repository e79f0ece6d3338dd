package sqlite

// SetTestDSN adds query parameters to every writable open's DSN until the
// returned func restores them (a test makes a store read-only to a
// writable open with _pragma=query_only(1): what another user's file is).
func SetTestDSN(extra string) func() {
	old := testDSN
	testDSN = extra
	return func() { testDSN = old }
}
