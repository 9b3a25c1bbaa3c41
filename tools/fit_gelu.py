#!/usr/bin/python3
"""The coefficients of the GELU in c/kernels.c (f4_gelu, gelu_scalar).
Run with Debian's python3 and python3-numpy:  python3 tools/fit_gelu.py

GELU(x) = x*Phi(x) = relu(x) - a*T(a),   a = |x|,   T(a) = Phi(-a) = erfc(a/sqrt2)/2.
T(a) = 2^(-a^2*log2(e)/2) * R(a),   R(a) = e^(a^2/2) * T(a) = erfcx(a/sqrt2)/2 (smooth, no exp),
R ~ P(a)/Q(a), P degree MP, Q monic degree NQ;  2^f ~ E(f) degree NE on [-1/2, 1/2].
Both fits minimise the error that matters in the end, |GELU error| / max(1,|x|):
  R: weighted absolute error, weight min(a,1)*e^(-a^2/2)   (= d(GELU err)/d(R err), normalised)
  E: relative error on [-1/2,1/2].
Method: Lawson iteratively reweighted (linearised) least squares on 4000 Chebyshev nodes, then
the coefficients are rounded to float32 and the kernel is simulated op by op in float32 (numpy
float32 arithmetic rounds each operation like wasm f32x4 and C float)."""
import numpy as np, math, sys

MP, NQ, NE = 2, 3, 5
C = np.float32(5.6)           # a clamped to C inside; |error| <= |x|*Phi(-C) = 1.1e-8*|x| beyond
erfc = np.vectorize(math.erfc)
LOG2E = 1.4426950408889634

def R_true(a): return 0.5*np.exp(a*a/2)*erfc(a/math.sqrt(2.0))
def R_weight(a): return np.minimum(a, 1.0)*np.exp(-a*a/2)

def cheb(lo, hi, n):
    t = np.cos(np.pi*(np.arange(n)+0.5)/n)
    return np.sort(lo + (hi-lo)*(t+1)/2)

def fit_R(c, nodes=4000, iters=120):
    a = cheb(0.0, c, nodes); z = a/c; f = R_true(a); w0 = R_weight(a)
    A = np.hstack([z[:,None]**np.arange(MP+1), -(f[:,None]*z[:,None]**np.arange(1,NQ+1))])
    w = np.ones(nodes); Qv = np.ones(nodes); best = None
    for _ in range(iters):
        g = np.sqrt(w)*w0/Qv
        sol, *_ = np.linalg.lstsq(A*g[:,None], f*g, rcond=None)
        p = sol[:MP+1]; q = np.concatenate([[1.0], sol[MP+1:]])
        Qv = np.polyval(q[::-1], z); err = w0*(np.polyval(p[::-1], z)/Qv - f)
        e = np.abs(err).max()
        if best is None or e < best[0]: best = (e, p.copy(), q.copy())
        w = w*np.abs(err)**0.6 + 1e-300; w /= w.sum()
    e, p, q = best
    k = np.arange(max(MP, NQ)+1)
    ps, qs = p/c**k[:MP+1], q/c**k[:NQ+1]          # back to powers of a
    return e, ps/qs[NQ], qs/qs[NQ]                   # Q monic

def fit_E(nodes=2000, iters=200):
    f_ = cheb(-0.5, 0.5, nodes); y = 2.0**f_
    A = f_[:,None]**np.arange(NE+1)
    w = np.ones(nodes); best = None
    for _ in range(iters):
        g = np.sqrt(w)/y
        sol, *_ = np.linalg.lstsq(A*g[:,None], y*g, rcond=None)
        err = (A@sol)/y - 1
        e = np.abs(err).max()
        if best is None or e < best[0]: best = (e, sol.copy())
        w = w*np.abs(err)**0.6 + 1e-300; w /= w.sum()
    return best

f32 = np.float32
def kernel32(x, K):
    """Op-by-op float32 simulation of f4_gelu_new / gelu_scalar_new (same order)."""
    P, Q, E = K["P"], K["Q"], K["E"]
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        a = np.abs(x)
        ac = np.where(C < a, C, a).astype(np.float32)            # pmin(a, C)
        s = ac*ac
        t = s*K["K"]                                              # -a^2 log2(e)/2
        k = t+K["M"]                                              # round to integer (magic add)
        nf = k-K["M"]
        f = t-nf
        e = np.full_like(x, E[NE])
        for i in range(NE-1, -1, -1): e = e*f; e = e+E[i]
        bits = (e.view(np.uint32) + (k.view(np.uint32) << np.uint32(23))).astype(np.uint32)
        e2 = bits.view(np.float32)                                # 2^t
        p = np.full_like(x, P[MP])
        for i in range(MP-1, -1, -1): p = p*ac; p = p+P[i]
        q = a+Q[NQ-1]                                             # Q on the UNclamped a
        for i in range(NQ-2, -1, -1): q = q*a; q = q+Q[i]
        pe = p*e2
        num = pe*ac
        tq = num/q                                                # a*T(a); 0 for |x| = inf
        relu = np.where(x < 0, f32(0.0), x).astype(np.float32)   # pmax(x, 0)
        return relu-tq

def gelu_ref(x):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        return 0.5*x*erfc(-x/math.sqrt(2.0))

def main():
    eR, P, Q = fit_R(float(C))
    eE, E = fit_E()
    K = dict(P=P.astype(np.float32), Q=Q.astype(np.float32), E=E.astype(np.float32),
             K=f32(-0.5*LOG2E), M=f32(12582912.0))
    print(f"R = P/Q ({MP},{NQ}): weighted minimax error {eR:.3e}")
    print(f"2^f degree {NE}: max relative error {eE:.3e}")
    xs = np.concatenate([np.linspace(-9, 9, 2000001), np.linspace(-1, 1, 400001),
                         [np.inf, -np.inf, np.nan, 1e30, -1e30, 1e12, -1e12]]).astype(np.float32)
    r = kernel32(xs, K).astype(np.float64)
    print("x = +inf, -inf, nan, 1e30, -1e30, 1e12, -1e12 ->", r[-7:])
    r, xs = r[:-7], xs[:-7]
    err = np.abs(r-gelu_ref(xs))/np.maximum(1.0, np.abs(xs.astype(np.float64)))
    i = int(np.argmax(err))
    print(f"float32 simulation on {xs.size} points in [-9,9]: max |err|/max(1,|x|) = {err[i]:.3e} at x = {float(xs[i])!r}")
    names = [("GELU_C", C), ("GELU_K", K["K"]), ("GELU_M", K["M"])]
    names += [(f"GELU_P{i}", v) for i, v in enumerate(K["P"])]
    names += [(f"GELU_Q{i}", v) for i, v in enumerate(K["Q"][:NQ])]
    names += [(f"GELU_E{i}", v) for i, v in enumerate(K["E"])]
    for n, v in names: print(f"#define {n} {float(v)!r:>26}f  /* {float(v).hex()} */")
    return K

if __name__ == "__main__":
    main()
