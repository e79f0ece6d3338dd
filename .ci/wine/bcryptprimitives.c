/*
 * A stand-in for Windows' bcryptprimitives.dll, for running Go's Windows
 * test binaries under Wine 8.0 (Debian 12), which lacks that DLL (Wine added
 * it in 8.13). Go's runtime loads it at start for ProcessPrng, its source of
 * random bytes; without it every Go program exits at once. This forwards to
 * BCryptGenRandom, which Wine 8.0 has. Built by .ci/windows with mingw-w64
 * and copied into the throwaway Wine prefix only; never shipped.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
		if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
