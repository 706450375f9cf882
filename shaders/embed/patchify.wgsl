// patchify: images [B, H·W·Ch] (each H×W×Ch row-major) → patches [B·P, p·p·Ch].
// Patch k is row-major over the (H/p)×(W/p) grid; its pixels are flattened
// in (py, px, c) order (the model semantics). One invocation per output value.
// Dispatch: ceil(B·P·p·p·Ch / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/embed/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let idx = linear_id(gid, nwg);
  let gw = p.W / p.ps;
  let P = (p.H / p.ps) * gw;
  let pd = p.ps * p.ps * p.Ch;
  if (idx >= p.B * P * pd) { return; }
  let e = idx % pd;
  let k = (idx / pd) % P;
  let b = idx / (pd * P);
  let c = e % p.Ch;
  let px = (e / p.Ch) % p.ps;
  let py = e / (p.Ch * p.ps);
  let y = (k / gw) * p.ps + py;
  let x = (k % gw) * p.ps + px;
  patches[idx] = images[b * p.H * p.W * p.Ch + (y * p.W + x) * p.Ch + c];
}
