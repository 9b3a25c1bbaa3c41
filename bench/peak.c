/* The wasm SIMD f32 peak of this machine, as the engine's kernels can reach it: twelve
 * independent f32x4 chains of acc = acc·a + b (one mul and one add per lane, the
 * multiply-add form wasm SIMD128 has without relaxed-simd FMA). 2 FLOPs per lane per step.
 * Built by `make bench` into build/peak.wasm; bench/bench.mjs times peak_f32x4(iterations). */
#include <stdint.h>
#include <wasm_simd128.h>

__attribute__((export_name("peak_f32x4")))
float peak_f32x4(int iterations, float a, float b) {
    const v128_t va = wasm_f32x4_splat(a), vb = wasm_f32x4_splat(b);
    v128_t c0 = wasm_f32x4_splat(0.0f), c1 = wasm_f32x4_splat(0.1f), c2 = wasm_f32x4_splat(0.2f);
    v128_t c3 = wasm_f32x4_splat(0.3f), c4 = wasm_f32x4_splat(0.4f), c5 = wasm_f32x4_splat(0.5f);
    v128_t c6 = wasm_f32x4_splat(0.6f), c7 = wasm_f32x4_splat(0.7f), c8 = wasm_f32x4_splat(0.8f);
    v128_t c9 = wasm_f32x4_splat(0.9f), c10 = wasm_f32x4_splat(1.0f), c11 = wasm_f32x4_splat(1.1f);
#define STEP(c) c = wasm_f32x4_add(wasm_f32x4_mul(c, va), vb)
    for (int i = 0; i < iterations; i++) {
        STEP(c0); STEP(c1); STEP(c2); STEP(c3); STEP(c4); STEP(c5);
        STEP(c6); STEP(c7); STEP(c8); STEP(c9); STEP(c10); STEP(c11);
    }
#undef STEP
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(c0, c1), wasm_f32x4_add(c2, c3)),
                              wasm_f32x4_add(wasm_f32x4_add(c4, c5), wasm_f32x4_add(c6, c7)));
    s = wasm_f32x4_add(s, wasm_f32x4_add(wasm_f32x4_add(c8, c9), wasm_f32x4_add(c10, c11)));
    return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) +
           wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3);
}

/* FLOPs of one call: iterations × 12 chains × 4 lanes × 2. */
__attribute__((export_name("peak_flops_per_iteration")))
int peak_flops_per_iteration(void) { return 12 * 4 * 2; }
