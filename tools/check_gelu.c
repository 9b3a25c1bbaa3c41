/* Every float32 through gelu() (c/kernels.c, the portable build: the wasm SIMD build computes
 * the same floats, see the GELU comment there) against ½x·erfc(−x/√2) in double. Prints the
 * largest |error| / max(1, |x|) and where, and checks ±inf and NaN. About a minute:
 *
 *   cc -std=c11 -O2 -Ic -o build/check_gelu tools/check_gelu.c c/kernels.c -lm && build/check_gelu */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"

enum { CHUNK = 1 << 16 };

int main(void) {
    static float x[CHUNK], y[CHUNK];
    double worst = 0;
    float worst_x = 0;
    int specials_ok = 1;
    for (uint64_t base = 0; base < (1ull << 32); base += CHUNK) {
        for (uint32_t i = 0; i < CHUNK; i++) {
            const uint32_t u = (uint32_t)(base + i);
            memcpy(&x[i], &u, sizeof u);
        }
        memcpy(y, x, sizeof y);
        gelu(y, CHUNK);
        for (uint32_t i = 0; i < CHUNK; i++) {
            if (isnan(x[i])) { specials_ok &= isnan(y[i]) != 0; continue; }
            if (isinf(x[i])) { specials_ok &= x[i] > 0 ? y[i] == x[i] : y[i] == 0.0f; continue; }
            const double exact = 0.5 * (double)x[i] * erfc(-(double)x[i] / sqrt(2.0));
            const double error = fabs((double)y[i] - exact) / fmax(1.0, fabs((double)x[i]));
            if (error > worst) worst = error, worst_x = x[i];
        }
    }
    printf("gelu over all floats: max |error|/max(1,|x|) = %.3e at x = %.9g; inf/NaN %s\n", worst,
           (double)worst_x, specials_ok ? "ok" : "WRONG");
    return worst <= 1.2e-7 && specials_ok ? 0 : 1;
}
