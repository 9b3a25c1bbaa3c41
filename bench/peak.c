/* The wasm SIMD f32 peak of this machine, as the engine's kernels can reach it: twelve
 * independent f32x4 chains of acc = acc·a + b (one mul and one add per lane, the
 * multiply-add form wasm SIMD128 has without relaxed-simd FMA). 2 FLOPs per lane per step.
 * Built by `make bench` into build/peak.wasm; bench/bench.mjs times peak_f32x4(iterations). */
#include <stdint.h>
#include <wasm_simd128.h>

__attribute__((export_name("peak_f32x4"))) float peak_f32x4(int iterations, float a, float b) {
    const v128_t va = wasm_f32x4_splat(a), vb = wasm_f32x4_splat(b);
    v128_t c0 = wasm_f32x4_splat(0.0f), c1 = wasm_f32x4_splat(0.1f), c2 = wasm_f32x4_splat(0.2f);
    v128_t c3 = wasm_f32x4_splat(0.3f), c4 = wasm_f32x4_splat(0.4f), c5 = wasm_f32x4_splat(0.5f);
    v128_t c6 = wasm_f32x4_splat(0.6f), c7 = wasm_f32x4_splat(0.7f), c8 = wasm_f32x4_splat(0.8f);
    v128_t c9 = wasm_f32x4_splat(0.9f), c10 = wasm_f32x4_splat(1.0f), c11 = wasm_f32x4_splat(1.1f);
#define STEP(c) c = wasm_f32x4_add(wasm_f32x4_mul(c, va), vb)
    for (int i = 0; i < iterations; i++) {
        STEP(c0);
        STEP(c1);
        STEP(c2);
        STEP(c3);
        STEP(c4);
        STEP(c5);
        STEP(c6);
        STEP(c7);
        STEP(c8);
        STEP(c9);
        STEP(c10);
        STEP(c11);
    }
#undef STEP
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(c0, c1), wasm_f32x4_add(c2, c3)),
                              wasm_f32x4_add(wasm_f32x4_add(c4, c5), wasm_f32x4_add(c6, c7)));
    s = wasm_f32x4_add(s, wasm_f32x4_add(wasm_f32x4_add(c8, c9), wasm_f32x4_add(c10, c11)));
    return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) + wasm_f32x4_extract_lane(s, 2) +
           wasm_f32x4_extract_lane(s, 3);
}

/* FLOPs of one call: iterations × 12 chains × 4 lanes × 2. */
__attribute__((export_name("peak_flops_per_iteration"))) int peak_flops_per_iteration(void) { return 12 * 4 * 2; }

/* The integer-dot peak the weight products can reach: eight independent i32x4 chains of
 * acc = acc + dot(x, w) (i32x4.dot_i16x8_s: 8 multiply-adds), as the product tiles issue them:
 * four x vectors loaded every step from a 1 KB buffer, each against two fixed w, so that no two
 * chains add the same product. Eight chains, not more: with the two w, the loaded x and the
 * product, eight accumulators fill 12 of the 15 xmm registers V8 allocates on x64; twelve
 * accumulators (the former loop) need 16, and V8 then keeps some on the stack — on an AMD EPYC the
 * twelve-chain loop ran at 31 GMAC/s in Node 20 and 34 in Chromium 156 while the engine's own
 * products reached 40, the eight-chain loop at ~51 in both. 8 multiply-adds per chain step. */
static int16_t dot_input[512] __attribute__((aligned(16)));

__attribute__((export_name("peak_dot_i16x8"))) int peak_dot_i16x8(int iterations, int seed) {
    for (int i = 0; i < 512; i++) dot_input[i] = (int16_t)((seed + 7 * i) % 61 - 30);
    const v128_t w0 = wasm_i16x8_splat((int16_t)(seed % 5 + 1)), w1 = wasm_i16x8_splat((int16_t)(seed % 3 - 2));
    v128_t c0 = wasm_i32x4_splat(0), c1 = wasm_i32x4_splat(1), c2 = wasm_i32x4_splat(2), c3 = wasm_i32x4_splat(3);
    v128_t c4 = wasm_i32x4_splat(4), c5 = wasm_i32x4_splat(5), c6 = wasm_i32x4_splat(6), c7 = wasm_i32x4_splat(7);
    for (int i = 0; i < iterations; i++) {
        const int16_t *p = dot_input + 32 * (i & 15);
        v128_t x = wasm_v128_load(p);
        c0 = wasm_i32x4_add(c0, wasm_i32x4_dot_i16x8(x, w0));
        c1 = wasm_i32x4_add(c1, wasm_i32x4_dot_i16x8(x, w1));
        x = wasm_v128_load(p + 8);
        c2 = wasm_i32x4_add(c2, wasm_i32x4_dot_i16x8(x, w0));
        c3 = wasm_i32x4_add(c3, wasm_i32x4_dot_i16x8(x, w1));
        x = wasm_v128_load(p + 16);
        c4 = wasm_i32x4_add(c4, wasm_i32x4_dot_i16x8(x, w0));
        c5 = wasm_i32x4_add(c5, wasm_i32x4_dot_i16x8(x, w1));
        x = wasm_v128_load(p + 24);
        c6 = wasm_i32x4_add(c6, wasm_i32x4_dot_i16x8(x, w0));
        c7 = wasm_i32x4_add(c7, wasm_i32x4_dot_i16x8(x, w1));
    }
    v128_t s = wasm_i32x4_add(wasm_i32x4_add(wasm_i32x4_add(c0, c1), wasm_i32x4_add(c2, c3)),
                              wasm_i32x4_add(wasm_i32x4_add(c4, c5), wasm_i32x4_add(c6, c7)));
    return wasm_i32x4_extract_lane(s, 0) ^ wasm_i32x4_extract_lane(s, 3);
}

/* Multiply-adds of one call: iterations × 8 chains × 8. */
__attribute__((export_name("peak_dot_macs_per_iteration"))) int peak_dot_macs_per_iteration(void) { return 8 * 8; }
