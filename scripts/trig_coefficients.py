#!/usr/bin/env python3
"""trig_coefficients.py - how the constants of templates/c/sincos_double.c and sincos_float.c were
derived (a development tool: needs python3-mpmath; nothing in the build runs it).

Prints, for double and float:
  - pi/2 split into P1 + P2 + P3 + P4: P1..P3 rounded to 33 (float: 14) significant bits, so that
    k*Pi is exact for |k| < 2^20 (2^10), P4 the rest rounded to 53 (24) bits;
  - the Chebyshev fits S(z) of (sin r / r - 1)/z and C(z) of (cos r - 1 + z/2)/z^2, z = r^2, on
    [0, (pi/4 (1 + 1e-5))^2], rounded to the format, with the relative error of
    r + r^3 S(r^2) and 1 - r^2/2 + r^4 C(r^2) in ulps (without the rounding of the evaluation).
"""
import struct

import mpmath as mp

mp.mp.prec = 200


def split(v, bits):
    e = mp.floor(mp.log(abs(v), 2))
    scale = mp.mpf(2) ** (bits - 1 - e)
    return mp.nint(v * scale) / scale


def as_float(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def fit(fn, zmax, terms, single):
    coef = mp.chebyfit(fn, [0, zmax], terms)
    return [mp.mpf(as_float(c) if single else float(c)) for c in coef]


def main():
    pio2 = mp.pi / 2
    zmax = (mp.pi / 4 * mp.mpf("1.00001")) ** 2

    def g_sin(z):
        if z == 0:
            return mp.mpf(-1) / 6
        r = mp.sqrt(z)
        return (mp.sin(r) / r - 1) / z

    def g_cos(z):
        if z == 0:
            return mp.mpf(1) / 24
        r = mp.sqrt(z)
        return (mp.cos(r) - 1 + z / 2) / (z * z)

    for name, bits, mant, sterms, cterms in (("double", 33, 53, 7, 6), ("float", 14, 24, 4, 4)):
        single = name == "float"
        p1 = split(pio2, bits)
        p2 = split(pio2 - p1, bits)
        p3 = split(pio2 - p1 - p2, bits)
        p4 = split(pio2 - p1 - p2 - p3, mant)
        print(name, "pi/2 parts:", [float(p).hex() for p in (p1, p2, p3, p4)])
        print(name, "2/pi:", (as_float(2 / mp.pi) if single else float(2 / mp.pi)).hex())
        ulp = mp.mpf(2) ** -mant  # the ulp of values in [0.5, 1)
        s = fit(g_sin, zmax, sterms, single)
        c = fit(g_cos, zmax, cterms, single)
        zs = mp.linspace(zmax / 10000, zmax, 2000)
        es = max(abs(mp.polyval(s, z) * z * mp.sqrt(z) + mp.sqrt(z) - mp.sin(mp.sqrt(z))) /
                 mp.sin(mp.sqrt(z)) for z in zs)
        ec = max(abs(mp.polyval(c, z) * z * z + 1 - z / 2 - mp.cos(mp.sqrt(z))) /
                 mp.cos(mp.sqrt(z)) for z in zs)
        print(name, "S (z^0 first):", [float(k).hex() for k in reversed(s)],
              "error", mp.nstr(es / ulp, 3), "ulp")
        print(name, "C (z^0 first):", [float(k).hex() for k in reversed(c)],
              "error", mp.nstr(ec / ulp, 3), "ulp")


if __name__ == "__main__":
    main()
