/* digest.c — SHA-256 (FIPS 180-4 §6.2), written from the standard. */
#include "base/digest.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const uint32_t K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

/* One 64-byte block into the state H (§6.2.2). */
static void block(uint32_t H[8], const unsigned char *p) {
  uint32_t W[64], s[8];
  for (int t = 0; t < 16; t++)
    W[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 |
           (uint32_t)p[4 * t + 3];
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = rotr(W[t - 15], 7) ^ rotr(W[t - 15], 18) ^ (W[t - 15] >> 3);
    uint32_t s1 = rotr(W[t - 2], 17) ^ rotr(W[t - 2], 19) ^ (W[t - 2] >> 10);
    W[t] = W[t - 16] + s0 + W[t - 7] + s1;
  }
  memcpy(s, H, sizeof s);
  for (int t = 0; t < 64; t++) {
    uint32_t S1 = rotr(s[4], 6) ^ rotr(s[4], 11) ^ rotr(s[4], 25);
    uint32_t ch = (s[4] & s[5]) ^ (~s[4] & s[6]);
    uint32_t T1 = s[7] + S1 + ch + K[t] + W[t];
    uint32_t S0 = rotr(s[0], 2) ^ rotr(s[0], 13) ^ rotr(s[0], 22);
    uint32_t maj = (s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]);
    memmove(s + 1, s, 7 * sizeof s[0]);
    s[4] += T1;
    s[0] = T1 + S0 + maj;
  }
  for (int k = 0; k < 8; k++) H[k] += s[k];
}

void mbg_sha256_hex(const void *data, size_t n, char hex[65]) {
  uint32_t H[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const unsigned char *p = data;
  size_t done = 0;
  for (; n - done >= 64; done += 64) block(H, p + done);
  /* padding: 0x80, zeros, the bit length big-endian in the last 8 bytes (§5.1.1) */
  unsigned char tail[128] = {0};
  size_t rest = n - done, len = rest < 56 ? 64 : 128;
  memcpy(tail, p + done, rest);
  tail[rest] = 0x80;
  uint64_t bits = (uint64_t)n * 8;
  for (int k = 0; k < 8; k++) tail[len - 1 - (size_t)k] = (unsigned char)(bits >> (8 * k));
  for (size_t off = 0; off < len; off += 64) block(H, tail + off);
  for (int k = 0; k < 8; k++) snprintf(hex + 8 * k, 9, "%08x", (unsigned)H[k]);
}
