/* Debian's wine 8 lacks bcryptprimitives.dll, whose ProcessPrng Rust's standard library
 * (1.78 on) draws random bytes from on Windows; a test binary then cannot start. This is its
 * one function over wine's bcrypt.dll, built by scripts/platforms into the test prefix only
 * (Windows itself has the real one). */
#include <windows.h>
#include <bcrypt.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
        data += n; len -= n;
    }
    return TRUE;
}
