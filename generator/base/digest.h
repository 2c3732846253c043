/* digest.h — SHA-256 (FIPS 180-4) of a model file, for the banner of generated files. */
#ifndef MBG_DIGEST_H
#define MBG_DIGEST_H

#include <stddef.h>

/* hex = the 64 lower-case hex digits of SHA-256(data[0..n)) and a NUL. */
void mbg_sha256_hex(const void *data, size_t n, char hex[65]);

#endif
