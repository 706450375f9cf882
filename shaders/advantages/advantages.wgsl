// Advantage estimators of docs/reward-spec.md §1 for a whole batch of groups, in ONE
// dispatch of ONE workgroup (WG invocations).
//
// Layout: rewards/valid/adv are [numGroups · groupSize], consecutive groups.
// valid[i] = 0 marks an unscorable rollout (NaN/±Inf/missing reward on the
// CPU side; its reward slot holds 0, never NaN): it gets advantage 0 and is
// left out of every statistic.
//
// Algorithm (no atomics; one workgroup so batch statistics need no second pass
// over a second dispatch):
//   A. invocation t owns groups t, t+WG, ...: two-pass group mean/std over the
//      group's valid rewards, group flags, and the per-rollout value
//        grpo:        (r−μ)/(σ+eps)                     (final)
//        grpo-stable: clip((r−μ)/(σ+eps), −clip, clip), group → 0 when σ < skipStd (final)
//        rloo:        G'/(G'−1)·(r−μ) = r − mean of the others   (final)
//        reinforce++: r                     (whitened in C)
//        rf++-base:   r − μ                 (whitened in C)
//      written into adv[] (each invocation later reads back only its own writes).
//   B. batch estimators only: workgroup reductions of count/sum/min/max, then of
//      Σ(x−m)² (two passes, never E[x²]−E[x]²).
//   C. batch estimators only: adv = (x−m)/(s+eps).
// "All values equal" (including fewer than 2 valid values) gives exactly 0,
// checked with min == max rather than through the division.
// Reductions write one partial per invocation to workgroup memory, then every
// invocation sums the WG partials in the same order (identical results, one
// barrier per reduction instead of a log2(WG) tree: cheap on SwiftShader).
//
// Variants (one source, src/kernels/advantages/spec.ts):
//   GROUP  phase A only, for the group estimators (codes 0-2): no barrier, so
//          SwiftShader builds it in about a third of BATCH's time (the
//          default run compiles it before its first step)
//   BATCH  phases A, B and C, every estimator (the batch ones need it)
// Both run phase A with the same code, so a group estimator's values are the
// same bits either way.
//
// Uniform `p`, bindings and WG: generated from its spec
// (src/kernels/advantages/spec.ts); the estimator codes are KERNEL_ESTIMATORS'
// order in src/kernels/advantages/launch.ts.

const BIG: f32 = 3.0e38;

//>>BATCH
var<workgroup> wSum: array<f32, WG>;
var<workgroup> wCnt: array<f32, WG>;
var<workgroup> wMin: array<f32, WG>;
var<workgroup> wMax: array<f32, WG>;

fn isBatchMethod() -> bool {
  return p.estimator >= 3u;
}
//<<BATCH

fn stdOf(ss: f32, n: f32) -> f32 {
  if (n < 2.0) { return 0.0; }
  let denom = select(n, n - 1.0, p.sampleStd == 1u);
  return sqrt(ss / denom);
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) t: u32) {
  let G = p.groupSize;
  var lSum = 0.0;
  var lCnt = 0.0;
  var lMin = BIG;
  var lMax = -BIG;

  // ---- A: group statistics and per-rollout values --------------------------
  for (var g = t; g < p.numGroups; g += WG) {
    let base = g * G;
    var s = 0.0;
    var n = 0.0;
    var lo = BIG;
    var hi = -BIG;
    for (var k = 0u; k < G; k++) {
      if (valid[base + k] != 0u) {
        let r = rewards[base + k];
        s += r;
        n += 1.0;
        lo = min(lo, r);
        hi = max(hi, r);
      }
    }
    let mean = s / max(n, 1.0);
    var ss = 0.0;
    for (var k = 0u; k < G; k++) {
      if (valid[base + k] != 0u) {
        let d = rewards[base + k] - mean;
        ss += d * d;
      }
    }
    let sd = stdOf(ss, n);
    let zeroStd = n < 2.0 || lo == hi;
    let skipped = zeroStd || (p.estimator == 1u && sd < p.skipStd);
    var flags = 0.0;
    if (zeroStd) { flags += 1.0; }
    if (p.estimator == 1u && skipped) { flags += 2.0; }
    groupStats[g] = vec4f(select(mean, 0.0, n < 1.0), sd, n, flags);

    for (var k = 0u; k < G; k++) {
      let i = base + k;
      var x = 0.0;
      let ok = valid[i] != 0u;
      if (ok) {
        let r = rewards[i];
        switch p.estimator {
          case 0u: { if (!zeroStd) { x = (r - mean) / (sd + p.eps); } }
          case 1u: { if (!skipped) { x = clamp((r - mean) / (sd + p.eps), -p.clipLimit, p.clipLimit); } }
          case 2u: { if (!zeroStd) { x = n / (n - 1.0) * (r - mean); } }
          case 3u: { x = r; }
          default: { if (!zeroStd) { x = r - mean; } }
        }
        lSum += x;
        lCnt += 1.0;
        lMin = min(lMin, x);
        lMax = max(lMax, x);
      }
      adv[i] = x;
    }
  }

//>>GROUP
  if (t == 0u) { batchStats[0] = vec4f(0.0); }
//<<GROUP
//>>BATCH
  if (!isBatchMethod()) {
    if (t == 0u) { batchStats[0] = vec4f(0.0); }
    return;
  }

  // ---- B: batch mean, then Σ(x−m)² ------------------------------------------
  wSum[t] = lSum;
  wCnt[t] = lCnt;
  wMin[t] = lMin;
  wMax[t] = lMax;
  workgroupBarrier();
  var bSum = 0.0;
  var bCnt = 0.0;
  var bMin = BIG;
  var bMax = -BIG;
  for (var j = 0u; j < WG; j++) {
    bSum += wSum[j];
    bCnt += wCnt[j];
    bMin = min(bMin, wMin[j]);
    bMax = max(bMax, wMax[j]);
  }
  workgroupBarrier();
  let m = bSum / max(bCnt, 1.0);
  let bZero = bCnt < 2.0 || bMin == bMax;

  var lSS = 0.0;
  for (var g = t; g < p.numGroups; g += WG) {
    for (var k = 0u; k < G; k++) {
      let i = g * G + k;
      if (valid[i] != 0u) {
        let d = adv[i] - m;
        lSS += d * d;
      }
    }
  }
  wSum[t] = lSS;
  workgroupBarrier();
  var bSS = 0.0;
  for (var j = 0u; j < WG; j++) {
    bSS += wSum[j];
  }
  let s = stdOf(bSS, bCnt);
  if (t == 0u) {
    batchStats[0] = vec4f(m, s, bCnt, select(0.0, 1.0, bZero));
  }

  // ---- C: whitening ------------------------------------------------------------
  for (var g = t; g < p.numGroups; g += WG) {
    for (var k = 0u; k < G; k++) {
      let i = g * G + k;
      var a = 0.0;
      if (valid[i] != 0u && !bZero) {
        a = (adv[i] - m) / (s + p.eps);
      }
      adv[i] = a;
    }
  }
//<<BATCH
}
