// Embedding of R rows, each row = (sequence n, absolute position pos):
//   pos <  P: patch token pos of image n = pixels(patch pos)·patch.w + patch.b + wpe[pos]
//   pos >= P: text token = wte[text[n, pos - P]] + wpe[pos]
// (model semantics: src/model/reference.ts embedForward / patchify). Patch k
// is row-major over the patch grid; its pixels are flattened in (py, px, c).
//
// Row r maps to n = r / rowsPerSeq, pos = posBase + r % rowsPerSeq (+ the
// step of sequence n when useState = 1: the decode step counter state[0] plus
// the tokens prefilled for n, state[4 + n]). A prefill segment uses
// rowsPerSeq = its positions per sequence, useState = 0; a decode step uses
// rowsPerSeq = 1, posBase = T0, useState = 1. Image n is image[n]; its text
// row is text[n · seqMul] (seqMul = group size G in a shared prefill segment,
// where n counts groups and images holds one image per group; 1 otherwise).
// A row past the text (pos ≥ P + textCap: a sequence whose columns are all
// written, still stepped along with the others) is written 0.
// One invocation per (row, 4 channels); parameters read from the flat buffer.

// Uniform `p` and bindings: generated from its spec (src/kernels/embed/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let D4 = p.D / 4u;
  let c4 = t % D4;
  let r = t / D4;
  if (r >= p.R) { return; }
  let n = r / p.rowsPerSeq;
  let pos = decode_pos(r, p.rowsPerSeq, p.posBase, p.useState, state[0] + state[4u + n]);
  if (pos >= p.P + p.textCap) {
    x[r * D4 + c4] = vec4<f32>(0.0);
    return;
  }
  var v = w[(p.wpeOff / 4u) + pos * D4 + c4];
  if (pos < p.P) {
    let y0 = (pos / p.gridW) * p.ps;
    let x0 = (pos % p.gridW) * p.ps;
    let img = n * p.imgSize;
    var acc = w[p.patchBOff / 4u + c4];
    var i = 0u;
    for (var py = 0u; py < p.ps; py++) {
      for (var px = 0u; px < p.ps; px++) {
        let pix = img + ((y0 + py) * p.imgW + (x0 + px)) * p.C;
        for (var c = 0u; c < p.C; c++) {
          acc += image[pix + c] * w[p.patchWOff / 4u + i * D4 + c4];
          i++;
        }
      }
    }
    v += acc;
  } else {
    let id = u32(text[n * p.seqMul * p.textCap + (pos - p.P)]);
    v += w[p.wteOff / 4u + id * D4 + c4];
  }
  x[r * D4 + c4] = v;
}
